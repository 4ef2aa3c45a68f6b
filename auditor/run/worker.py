"""The worker: read one job, audit its conversations and write its rows and rejects as parquet
parts."""

from __future__ import annotations

import gc
import os
import pickle
import traceback
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection
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


BATCH_ROWS = 2_000  # rows of consecutive small jobs written as one part


def audit_jobs(
    work: Iterable[tuple[int, Job]],
    rules: RuleSet,
    redactor: Redactor,
    parts: Path,
    point: str = "worker:part-written",
) -> Iterator[PartAudit]:
    """Read and audit each numbered job in order, writing the rows and rejects as parquet parts
    under ``parts``; never raises on the files' content. The rows of consecutive small jobs
    are written as one part, numbered by the last of them (a folder of one file per session
    is thousands of jobs of a few rows each, and a parquet file apiece cost more than auditing
    them). At most about BATCH_ROWS rows are held. ``point`` is the fault point reached after
    each part is written (``auditor.faults``)."""
    calls: list[dict[str, Any]] = []
    rejects: list[Reject] = []
    waiting: list[PartAudit] = []

    def write(index: int) -> None:
        waiting[-1].calls, waiting[-1].rejects = len(calls), len(rejects)
        clock = perf_counter()
        write_part(parts, index, calls_frame(calls), rejects_frame(rejects))
        lap("write", clock)
        fault(point)

    index = 0
    for index, job in work:
        rows, job_rejects, audit = audit_rows(job, rules, redactor)
        calls.extend(rows)
        rejects.extend(job_rejects)
        audit.calls = audit.rejects = 0  # in the part of the last job of the batch
        waiting.append(audit)
        if len(calls) + len(rejects) >= BATCH_ROWS:
            write(index)
            yield from waiting
            calls, rejects, waiting = [], [], []
    if waiting:
        write(index)
        yield from waiting


def write_part(parts: Path, index: int, calls: pl.DataFrame, rejects: pl.DataFrame) -> None:
    """One job's rows and rejects as the parquet parts the scan's tables are read from."""
    # An empty part is not written: most jobs have no rejects, and a folder of one file per
    # session gives a job per file (``settle`` passes over parts of no rows).
    for table, frame in (("calls", calls), ("rejects", rejects)):
        if frame.height:
            frame.write_parquet(part_path(parts, table, index))


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


def freeze_heap() -> None:
    """Once per process, before its first job: leave what is alive then (modules, compiled
    rules) out of the garbage collector's full passes. A scan makes millions of short-lived
    objects, and each full pass walked those long-lived ones again (5 to 14% of a one-core
    scan's CPU time on the bench corpus, measured on a busy machine)."""
    if gc.get_freeze_count() == 0:
        gc.collect()  # what is garbage already is not kept for good
        gc.freeze()


def serve(connection: Connection) -> None:
    """A worker process of a scan on several cores (``auditor.run.share``): the rules, the
    redactor and the parts folder come first (pickled), then a batch of consecutive numbered
    jobs at a time, each answered with what its jobs gave (``audit_jobs``; the rows are in the
    parts it wrote), until None or the other end is closed. An error is sent back to be raised
    in the scan's process, and ends the worker."""
    try:
        rules, redactor, parts = pickle.loads(connection.recv_bytes())
        freeze_heap()
        while (batch := connection.recv()) is not None:
            try:
                audits = list(audit_jobs(batch, rules, redactor, parts))
            except Exception as exc:
                exc.add_note(f"in worker process {os.getpid()}:\n{traceback.format_exc()}")
                try:
                    connection.send(("failed", exc))
                except Exception:  # an exception that cannot be pickled: its text then
                    connection.send(("failed", RuntimeError(f"{type(exc).__name__}: {exc}")))
                return
            connection.send(("done", audits))
    except (EOFError, BrokenPipeError):  # the scan's process is gone: nothing to answer
        return


BATCH_BYTES = 1 << 20  # small files sent to a worker together, up to this many bytes


def batches(work: list[tuple[int, Job]]) -> Iterator[list[tuple[int, Job]]]:
    """Consecutive jobs grouped for the workers: small files together, up to BATCH_BYTES (a
    folder of one file per session is thousands of jobs, and each costs a round trip and a
    part), a large file or a span of one alone."""
    batch: list[tuple[int, Job]] = []
    held = 0
    for numbered in work:
        size = job_bytes(numbered[1])
        if batch and held + size > BATCH_BYTES:
            yield batch
            batch, held = [], 0
        batch.append(numbered)
        held += size
    if batch:
        yield batch


def job_bytes(job: Job) -> int:
    """The bytes a job reads (0 when unknown: a URL, a file gone)."""
    if job.span is not None:
        return job.span.end - job.span.start
    try:
        return job.path.stat().st_size if job.path is not None else 0
    except OSError:
        return 0
