"""The local engine: audit every job of a scan in this process or in spawned worker processes."""

from __future__ import annotations

import itertools
import multiprocessing
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import polars as pl

from auditor.output.columns import CALLS_SCHEMA, REJECTS_SCHEMA
from auditor.output.result import ScanResult
from auditor.redact import Redactor
from auditor.rules_loader import RuleSet, load_rules
from auditor.run import dask_engine
from auditor.run.inputs import STDIN, copy_of_stdin, expand
from auditor.run.jobs import PARALLEL_MIN_BYTES, SPAN_BYTES, Job, plan
from auditor.run.parts import REPEATED, leave_out_repeated, settle
from auditor.run.worker import (
    PartAudit,
    audit_in_worker,
    audit_jobs,
    batches,
    job_bytes,
    start_worker,
)


def _counted(
    audits: Iterable[PartAudit], progress: Callable[[int, int], None] | None, work: list
) -> list[PartAudit]:
    """The audits as they finish, telling ``progress(done, total)`` after each."""
    done: list[PartAudit] = []
    for audit in audits:
        done.append(audit)
        if progress is not None:
            progress(len(done), len(work))
    return done


def scan(
    paths: Iterable[str | Path],
    *,
    rules: RuleSet | None = None,
    rules_dir: str | Path | None = None,
    input_format: str | None = None,
    redact: bool = True,
    redact_emails: bool = False,
    redact_entropy: bool = False,
    jobs: int = 1,
    span_bytes: int = SPAN_BYTES,
    work_dir: str | Path | None = None,
    preset: Mapping[str, Job] | None = None,
    progress: Callable[[int, int], None] | None = None,
    engine: str = "local",
    scheduler: str | None = None,
    keep_repeated: bool = False,
) -> ScanResult:
    """Audit every transcript under ``paths``; bad input goes to ``rejects``, never raises.

    Secrets in the excerpts the table keeps (evidence, reply sentences, reject excerpts) are
    redacted unless ``redact`` is False; ``redact_emails`` redacts email addresses too, and
    ``redact_entropy`` random-looking words.
    ``jobs`` > 1 audits files, and spans of large files, in that many processes (when there is
    at least PARALLEL_MIN_BYTES of input); the result is the same as with one. Rows are written
    to parquet parts in a temporary folder (under ``work_dir`` when given) as they are made.
    ``progress(done, total)`` is told after each file or span is audited. ``engine="dask"``
    runs the same audit on the Dask cluster at ``scheduler`` (a local one when None).
    ``keep_repeated`` keeps the calls read again from another file (an incremental scan leaves
    them out after merging in the rows it carries).
    """
    rules = rules or load_rules(rules_dir)
    redactor = Redactor(enabled=redact, emails=redact_emails, entropy=redact_entropy)
    inputs = list(expand(paths))
    stdin_copy = copy_of_stdin() if any(source == STDIN for _, source in inputs) else None
    inputs = [(stdin_copy if source == STDIN else path, source) for path, source in inputs]
    parts_dir = tempfile.TemporaryDirectory(prefix="auditor-parts-", dir=work_dir)
    parts = Path(parts_dir.name)
    try:
        work = list(enumerate(plan(inputs, input_format, span_bytes, preset)))
        size = sum(job_bytes(job) for _, job in work)
        if engine == "dask":
            audits = _counted(
                dask_engine.run(work, rules, redactor, parts, scheduler), progress, work
            )
        elif jobs > 1 and len(work) > 1 and size >= PARALLEL_MIN_BYTES:
            # Spawned, not forked: the parent has polars' thread pool running, and a forked
            # child of a threaded process can deadlock.
            with ProcessPoolExecutor(
                max_workers=jobs,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=start_worker,
                initargs=(rules, redactor, parts),
            ) as pool:
                done = pool.map(audit_in_worker, batches(work), chunksize=1)
                audits = _counted(itertools.chain.from_iterable(done), progress, work)
        else:
            audits = _counted(audit_jobs(work, rules, redactor, parts), progress, work)
    finally:
        if stdin_copy is not None:
            stdin_copy.unlink(missing_ok=True)
    skipped: list[tuple[str, str]] = []
    passed_over: Counter[str] = Counter()
    by_source: dict[str, dict[str, Any]] = {}
    for (_, job), audit in zip(work, audits, strict=True):
        mine = by_source.setdefault(job.source, {"conversations": 0, "passed_over": Counter()})
        mine["conversations"] += audit.conversations
        mine["passed_over"].update(audit.passed_over)
        passed_over.update(audit.passed_over)
        if audit.skipped and job.span is None:
            skipped.append((job.source, audit.skipped))
    # The tables are read from the parts themselves, as often as a summary or a writer needs:
    # each part is small (a file or a span, small ones merged), where one large file would be
    # read ahead of its writer by more as it grows.
    numbers = [index for index, _ in work]
    calls_parts = settle(parts, "calls", numbers, [a.calls for a in audits])
    repeated = 0 if keep_repeated else leave_out_repeated(calls_parts)
    if repeated:
        passed_over[REPEATED] += repeated
    rejects_parts = settle(parts, "rejects", numbers, [a.rejects for a in audits])
    return ScanResult(
        lazy_calls=pl.scan_parquet(calls_parts, schema=CALLS_SCHEMA),
        lazy_rejects=pl.scan_parquet(rejects_parts, schema=REJECTS_SCHEMA),
        files=len(inputs),
        conversations=sum(a.conversations for a in audits),
        skipped=skipped,
        passed_over=dict(passed_over),
        parts=parts_dir,
        by_source=by_source,
        part_files={"calls": calls_parts, "rejects": rejects_parts},
    )
