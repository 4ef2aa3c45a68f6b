"""The library entry point: scan files and folders, get the calls table back.

from auditor import scan
result = scan(["logs/"])
result.calls.filter(pl.col("finding") == "false_success")
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from auditor.audit import audit_conversation
from auditor.model import Reject
from auditor.readers import read_file
from auditor.rules_loader import RuleSet, load_rules
from auditor.table import calls_frame, rejects_frame, summarize

TRANSCRIPT_SUFFIXES = (".jsonl", ".ndjson", ".json")


@dataclass
class ScanResult:
    calls: pl.DataFrame
    rejects: pl.DataFrame
    files: int
    conversations: int

    @property
    def findings(self) -> pl.DataFrame:
        return self.calls.filter(pl.col("finding").is_not_null())

    def summary(self) -> dict[str, Any]:
        return summarize(
            self.calls, self.rejects, files=self.files, conversations=self.conversations
        )


def expand(paths: Iterable[str | Path]) -> Iterator[tuple[Path, str]]:
    """(file, source name) for each input: files as given, folders walked in sorted order."""
    for given in paths:
        path = Path(given)
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                if child.is_file() and child.suffix.lower() in TRANSCRIPT_SUFFIXES:
                    yield child, str(child)
        else:
            yield path, str(given)


def scan(
    paths: Iterable[str | Path],
    *,
    rules: RuleSet | None = None,
    rules_dir: str | Path | None = None,
    input_format: str | None = None,
) -> ScanResult:
    """Audit every transcript under ``paths``; bad input goes to ``rejects``, never raises."""
    rules = rules or load_rules(rules_dir)
    rows: list[dict[str, Any]] = []
    rejects: list[Reject] = []
    files = conversations = 0
    for path, source in expand(paths):
        files += 1
        if not path.exists():
            rejects.append(Reject(source=source, line=0, reason="no such file"))
            continue
        read = read_file(path, source, input_format)
        rejects.extend(read.rejects)
        for conversation in read.conversations:
            conversations += 1
            audited = audit_conversation(conversation, rules)
            rows.extend(audited.rows)
            for orphan in audited.orphan_results:
                rejects.append(
                    Reject(
                        source=source,
                        line=orphan.line,
                        reason=f"tool result for unknown call id {orphan.call_id!r}",
                    )
                )
    return ScanResult(
        calls=calls_frame(rows),
        rejects=rejects_frame(rejects),
        files=files,
        conversations=conversations,
    )
