"""The library entry point: scan files and folders, get the calls table back.

from auditor import scan
result = scan(["logs/"])
result.calls.filter(pl.col("finding") == "false_success")
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from auditor.audit import audit_conversation
from auditor.model import Reject
from auditor.readers import read_file
from auditor.redact import Redactor
from auditor.rules_loader import RuleSet, load_rules
from auditor.table import calls_frame, rejects_frame, summarize

STDIN = "-"


@dataclass
class ScanResult:
    calls: pl.DataFrame
    rejects: pl.DataFrame
    files: int
    conversations: int
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (source, why)
    passed_over: dict[str, int] = field(default_factory=dict)  # reason -> lines or records

    @property
    def findings(self) -> pl.DataFrame:
        return self.calls.filter(pl.col("finding").is_not_null())

    def summary(self) -> dict[str, Any]:
        return summarize(
            self.calls,
            self.rejects,
            files=self.files,
            conversations=self.conversations,
            skipped=self.skipped,
            passed_over=self.passed_over,
        )


def _visible(path: Path, root: Path) -> bool:
    return not any(part.startswith(".") for part in path.relative_to(root).parts)


def expand(paths: Iterable[str | Path]) -> Iterator[tuple[Path, str]]:
    """(file, source name) for each input: files as given, folders walked in sorted order
    (hidden files and folders, such as ``.git``, are left out)."""
    for given in paths:
        path = Path(given)
        if str(given) == STDIN:
            yield path, STDIN
        elif path.is_dir():
            for child in sorted(path.rglob("*")):
                if child.is_file() and _visible(child, path):
                    yield child, str(child)
        else:
            yield path, str(given)


REPEATED = "tool call already audited from another file (same conversation and call id)"


def _first_reading(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """Rows with calls that an earlier file already held (a log copied into a longer one, the
    same benchmark run exported twice) left out; ids repeated inside one file are kept."""
    first_source: dict[tuple[str, str], str] = {}
    kept: list[dict[str, Any]] = []
    for row in rows:
        key = (row["conversation_id"], row["tool_call_id"])
        source = first_source.setdefault(key, row["source"])
        if source == row["source"]:
            kept.append(row)
    return kept, len(rows) - len(kept)


def _stdin_copy() -> Path:
    """Standard input saved to a temporary file, so that detection can look at its start."""
    with tempfile.NamedTemporaryFile(prefix="auditor-stdin-", delete=False) as handle:
        shutil.copyfileobj(sys.stdin.buffer, handle)
    return Path(handle.name)


def scan(
    paths: Iterable[str | Path],
    *,
    rules: RuleSet | None = None,
    rules_dir: str | Path | None = None,
    input_format: str | None = None,
    redact: bool = True,
    redact_emails: bool = False,
) -> ScanResult:
    """Audit every transcript under ``paths``; bad input goes to ``rejects``, never raises.

    Secrets in the excerpts the table keeps (evidence, reply sentences, reject excerpts) are
    redacted unless ``redact`` is False; ``redact_emails`` redacts email addresses too.
    """
    rules = rules or load_rules(rules_dir)
    redactor = Redactor(enabled=redact, emails=redact_emails)
    rows: list[dict[str, Any]] = []
    rejects: list[Reject] = []
    skipped: list[tuple[str, str]] = []
    passed_over: dict[str, int] = {}
    files = conversations = 0
    for given, source in expand(paths):
        files += 1
        path = _stdin_copy() if source == STDIN else given
        if not path.exists():
            rejects.append(Reject(source=source, line=0, reason="no such file"))
            continue
        try:
            read = read_file(path, source, input_format)
        finally:
            if source == STDIN:
                path.unlink(missing_ok=True)
        rejects.extend(
            r.model_copy(update={"excerpt": redactor.apply(r.excerpt)}) for r in read.rejects
        )
        if read.skipped:
            skipped.append((source, read.skipped))
        for reason, count in read.passed_over.items():
            passed_over[reason] = passed_over.get(reason, 0) + count
        for conversation in read.conversations:
            conversations += 1
            audited = audit_conversation(conversation, rules, redactor)
            rows.extend(audited.rows)
            for orphan in audited.orphan_results:
                rejects.append(
                    Reject(
                        source=source,
                        line=orphan.line,
                        reason=f"tool result for unknown call id {orphan.call_id!r}",
                    )
                )
    rows, repeated = _first_reading(rows)
    if repeated:
        passed_over[REPEATED] = passed_over.get(REPEATED, 0) + repeated
    return ScanResult(
        calls=calls_frame(rows),
        rejects=rejects_frame(rejects),
        files=files,
        conversations=conversations,
        skipped=skipped,
        passed_over=passed_over,
    )
