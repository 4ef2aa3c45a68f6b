"""The library entry point: scan files and folders, get the calls table back.

from auditor import scan
result = scan(["logs/"])
result.calls.filter(pl.col("finding") == "false_success")
"""

from __future__ import annotations

import multiprocessing
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
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
PARALLEL_MIN_BYTES = 8 << 20  # below this, starting processes costs more than it saves


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


@dataclass
class FileAudit:
    """What one input file gave: rows, rejects, and what was passed over."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    skipped: str | None = None
    passed_over: dict[str, int] = field(default_factory=dict)
    conversations: int = 0


def audit_file(
    path: Path,
    source: str,
    rules: RuleSet,
    redactor: Redactor,
    input_format: str | None = None,
) -> FileAudit:
    """Read and audit one file; never raises on its content."""
    if not path.exists():
        return FileAudit(rejects=[Reject(source=source, line=0, reason="no such file")])
    read = read_file(path, source, input_format)
    audit = FileAudit(
        rejects=[r.model_copy(update={"excerpt": redactor.apply(r.excerpt)}) for r in read.rejects],
        skipped=read.skipped,
        passed_over=dict(read.passed_over),
        conversations=len(read.conversations),
    )
    for conversation in read.conversations:
        audited = audit_conversation(conversation, rules, redactor)
        audit.rows.extend(audited.rows)
        for orphan in audited.orphan_results:
            audit.rejects.append(
                Reject(
                    source=source,
                    line=orphan.line,
                    reason=f"tool result for unknown call id {orphan.call_id!r}",
                )
            )
    return audit


# Each worker process keeps the rules and settings it was started with.
_WORKER: dict[str, Any] = {}


def _start_worker(rules: RuleSet, redactor: Redactor, input_format: str | None) -> None:
    _WORKER.update(rules=rules, redactor=redactor, input_format=input_format)


def _audit_in_worker(job: tuple[Path, str]) -> FileAudit:
    path, source = job
    return audit_file(path, source, _WORKER["rules"], _WORKER["redactor"], _WORKER["input_format"])


def scan(
    paths: Iterable[str | Path],
    *,
    rules: RuleSet | None = None,
    rules_dir: str | Path | None = None,
    input_format: str | None = None,
    redact: bool = True,
    redact_emails: bool = False,
    jobs: int = 1,
) -> ScanResult:
    """Audit every transcript under ``paths``; bad input goes to ``rejects``, never raises.

    Secrets in the excerpts the table keeps (evidence, reply sentences, reject excerpts) are
    redacted unless ``redact`` is False; ``redact_emails`` redacts email addresses too.
    ``jobs`` > 1 audits files in that many processes (when there are several files and at least
    PARALLEL_MIN_BYTES of them); the result is the same as with one.
    """
    rules = rules or load_rules(rules_dir)
    redactor = Redactor(enabled=redact, emails=redact_emails)
    inputs = list(expand(paths))
    stdin_copy = _stdin_copy() if any(source == STDIN for _, source in inputs) else None
    work = [(stdin_copy if source == STDIN else path, source) for path, source in inputs]
    try:
        size = sum(p.stat().st_size for p, _ in work if p.exists())
        if jobs > 1 and len(work) > 1 and size >= PARALLEL_MIN_BYTES:
            # Spawned, not forked: the parent has polars' thread pool running, and a forked
            # child of a threaded process can deadlock.
            with ProcessPoolExecutor(
                max_workers=jobs,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(rules, redactor, input_format),
            ) as pool:
                audits = list(pool.map(_audit_in_worker, work, chunksize=1))
        else:
            audits = [audit_file(p, s, rules, redactor, input_format) for p, s in work]
    finally:
        if stdin_copy is not None:
            stdin_copy.unlink(missing_ok=True)
    rows: list[dict[str, Any]] = []
    rejects: list[Reject] = []
    skipped: list[tuple[str, str]] = []
    passed_over: dict[str, int] = {}
    for (_, source), audit in zip(work, audits, strict=True):
        rows.extend(audit.rows)
        rejects.extend(audit.rejects)
        if audit.skipped:
            skipped.append((source, audit.skipped))
        for reason, count in audit.passed_over.items():
            passed_over[reason] = passed_over.get(reason, 0) + count
    rows, repeated = _first_reading(rows)
    if repeated:
        passed_over[REPEATED] = passed_over.get(REPEATED, 0) + repeated
    return ScanResult(
        calls=calls_frame(rows),
        rejects=rejects_frame(rejects),
        files=len(work),
        conversations=sum(a.conversations for a in audits),
        skipped=skipped,
        passed_over=passed_over,
    )
