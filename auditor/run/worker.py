"""The worker: read one job, audit its conversations and write its rows and rejects as parquet
parts."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from time import perf_counter
from typing import Any

import polars as pl

from auditor.audit.conversation import audit_conversation
from auditor.faults import fault
from auditor.model import Reject
from auditor.output.fingerprint import identified
from auditor.output.tables import calls_frame, rejects_frame
from auditor.readers import read_file
from auditor.redact import Redactor
from auditor.rules_loader import RuleSet
from auditor.run.inputs import fetched
from auditor.run.jobs import Job
from auditor.run.stages import lap


@dataclass
class PartAudit:
    """What one job gave, apart from the rows its worker wrote to a part file."""

    calls: int = 0  # rows of its calls part (``settle`` goes by these counts)
    rejects: int = 0  # rows of its rejects part
    skipped: str | None = None
    passed_over: dict[str, int] = field(default_factory=dict)
    conversations: int = 0


def audit_job(job: Job, rules: RuleSet, redactor: Redactor, parts: Path, index: int) -> PartAudit:
    """Read and audit one job, writing its rows and rejects as parquet parts numbered
    ``index`` under ``parts``; never raises on the file's content."""
    rows, rejects, audit = audit_rows(job, rules, redactor)
    clock = perf_counter()
    write_part(parts, index, calls_frame(rows), rejects_frame(rejects))
    lap("write", clock)
    fault("worker:part-written")
    return audit


def write_part(parts: Path, index: int, calls: pl.DataFrame, rejects: pl.DataFrame) -> None:
    """One job's rows and rejects as the parquet parts the scan's tables are read from."""
    calls.write_parquet(part_path(parts, "calls", index))
    rejects.write_parquet(part_path(parts, "rejects", index))


def part_path(parts: Path, table: str, index: int) -> Path:
    """The part file of job ``index`` for one table (``calls`` or ``rejects``)."""
    return parts / f"{table}-{index:07d}.parquet"


def audit_rows(
    job: Job, rules: RuleSet, redactor: Redactor
) -> tuple[list[dict[str, Any]], list[Reject], PartAudit]:
    """The rows and rejects of one job, and what else it gave (counted in the audit)."""
    source = job.source
    if job.path is None:
        try:
            with fetched(source) as local:
                return audit_rows(Job(local, source, job.input_format), rules, redactor)
        except (OSError, RuntimeError, ValueError) as exc:
            reason = redactor.apply(f"cannot fetch: {exc}") or ""
            reject = Reject(source=source, line=0, reason=reason)
            return [], [reject], PartAudit(rejects=1)
    if not job.path.exists():
        return [], [Reject(source=source, line=0, reason="no such file")], PartAudit(rejects=1)
    clock = perf_counter()
    read = read_file(job.path, source, job.input_format, job.span)
    lap("read", clock)
    # A reason can quote the input too (a reader's exception message).
    rejects = [
        replace(r, excerpt=redactor.apply(r.excerpt), reason=redactor.apply(r.reason))
        for r in read.rejects
    ]
    audit = PartAudit(
        skipped=read.skipped,
        passed_over=dict(read.passed_over),
        conversations=len(read.conversations),
    )
    rows: list[dict[str, Any]] = []
    for conversation in read.conversations:
        audited = audit_conversation(conversation, rules, redactor)
        # The columns that follow a finding across nights are the output stage's.
        rows.extend(identified(row) for row in audited.rows)
        for orphan in audited.orphan_results:
            rejects.append(
                Reject(
                    source=source,
                    line=orphan.line,
                    reason=f"tool result for unknown call id {orphan.call_id!r}",
                )
            )
    audit.calls, audit.rejects = len(rows), len(rejects)
    return rows, rejects, audit


# Each worker process keeps the rules and settings it was started with.
WORKER: dict[str, Any] = {}


def start_worker(rules: RuleSet, redactor: Redactor, parts: Path) -> None:
    WORKER.update(rules=rules, redactor=redactor, parts=parts)


def audit_in_worker(numbered: tuple[int, Job]) -> PartAudit:
    index, job = numbered
    return audit_job(job, WORKER["rules"], WORKER["redactor"], WORKER["parts"], index)
