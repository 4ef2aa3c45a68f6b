"""The local engine: audit every job of a scan in this process or in spawned worker processes."""

from __future__ import annotations

import tempfile
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from auditor.output.columns import CALLS_SCHEMA, REJECTS_SCHEMA
from auditor.output.result import ScanResult
from auditor.redact import Redactor
from auditor.rules_loader import RuleSet, load_rules
from auditor.run import dask_engine
from auditor.run.inputs import STDIN, copy_of_stdin, expand
from auditor.run.jobs import PARALLEL_MIN_BYTES, SPAN_BYTES, Job, plan, shared_span
from auditor.run.parts import REPEATED, leave_out_repeated, settle
from auditor.run.share import Workers, shared
from auditor.run.worker import PartAudit, audit_jobs, freeze_heap, job_bytes

Audited = Iterator[tuple[tuple[int, Job], PartAudit]]  # each numbered job with its audit


def _in_order(
    work: Iterable[tuple[int, Job]], rules: RuleSet, redactor: Redactor, parts: Path
) -> Audited:
    """``audit_jobs`` in this process, each audit with its job (held until then: a batch)."""
    held: deque[tuple[int, Job]] = deque()

    def remembered() -> Iterator[tuple[int, Job]]:
        for numbered in work:
            held.append(numbered)
            yield numbered

    for audit in audit_jobs(remembered(), rules, redactor, parts):
        yield held.popleft(), audit


def _count(
    inputs: Iterable[tuple[Path | None, str]],
    input_format: str | None,
    span_bytes: int,
    preset: Mapping[str, Job] | None,
) -> tuple[int, int]:
    """The jobs the inputs give, and their bytes, without counting the lines of large files."""
    total = size = 0
    for job in plan(inputs, input_format, span_bytes, preset, lines=False):
        total += 1
        size += job_bytes(job)
    return total, size


@dataclass
class _Gave:
    """What the jobs gave besides rows, as they are audited: the totals of the summary, each
    skipped file, and per source (for the state file, when asked) its conversations and lines
    passed over. The parts are kept only when they hold rows: with consecutive small jobs
    written together, one in a batch of files."""

    by_source: dict[str, tuple[int, dict[str, int]]] | None
    conversations: int = 0
    passed_over: Counter[str] = field(default_factory=Counter)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    parts: dict[str, tuple[list[int], list[int]]] = field(
        default_factory=lambda: {"calls": ([], []), "rejects": ([], [])}
    )

    def add(self, index: int, job: Job, audit: PartAudit) -> None:
        self.conversations += audit.conversations
        self.passed_over.update(audit.passed_over)
        if self.by_source is not None:
            conversations, passed_over = self.by_source.get(job.source, (0, {}))
            for reason, n in audit.passed_over.items():
                passed_over[reason] = passed_over.get(reason, 0) + n
            self.by_source[job.source] = (conversations + audit.conversations, passed_over)
        if audit.skipped and job.span is None:
            self.skipped.append((job.source, audit.skipped))
        for table, rows in (("calls", audit.calls), ("rejects", audit.rejects)):
            if rows:
                numbers, held = self.parts[table]
                numbers.append(index)
                held.append(rows)


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
    by_source: bool = False,
    each_input: Callable[[Path | None, str], None] | None = None,
    workers: Workers | None = None,
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
    them out after merging in the rows it carries). ``by_source`` keeps what each source gave
    besides rows, for an incremental scan's state file. ``each_input(file, source)`` is told of
    each input as it is planned (the file is None for a URL). ``workers``, started early, are
    used when the scan is shared, else closed.
    """
    rules = rules or load_rules(rules_dir)
    redactor = Redactor(enabled=redact, emails=redact_emails, entropy=redact_entropy)
    paths = list(paths)
    # Standard input is saved before anything is read, as it can be read once.
    stdin_copy = copy_of_stdin() if any(str(given) == STDIN for given in paths) else None
    files = 0

    def inputs(reading: bool = False) -> Iterator[tuple[Path | None, str]]:
        """The inputs, walked afresh each time; on the pass that reads them (``reading``),
        counted as the scan's files and told to ``each_input``."""
        nonlocal files
        for path, source in expand(paths):
            if reading:
                files += 1
                if each_input is not None:
                    each_input(path, source)
            yield (stdin_copy if source == STDIN else path), source

    parts_dir = tempfile.TemporaryDirectory(prefix="auditor-parts-", dir=work_dir)
    parts = Path(parts_dir.name)
    # Nothing is held per file: the folders are walked again as the jobs are audited, and
    # what each job gave is added up as it comes (a log folder can hold 100,000 sessions).
    gave = _Gave(by_source={} if by_source else None)
    try:
        work: Iterable[tuple[int, Job]] = enumerate(
            plan(inputs(reading=True), input_format, span_bytes, preset)
        )
        total = size = 0
        if engine == "dask":
            work = list(work)
            total = len(work)
            audited: Audited = zip(
                work, dask_engine.run(work, rules, redactor, parts, scheduler), strict=True
            )
        else:
            if progress is not None or jobs > 1:
                # The jobs counted and sized first, for the progress bar and for whether to
                # start processes; a large file's spans are found without counting its lines.
                total, size = _count(inputs(), input_format, span_bytes, preset)
            spread = shared_span(size, jobs, span_bytes)
            if jobs > 1 and size >= PARALLEL_MIN_BYTES and spread < span_bytes:
                # Cut finer, so that the cores end together: counted again, as cut.
                total = _count(inputs(), input_format, spread, preset)[0]
                work = enumerate(plan(inputs(reading=True), input_format, spread, preset))
            if jobs > 1 and total > 1 and size >= PARALLEL_MIN_BYTES:
                audited = shared(work, jobs, rules, redactor, parts, workers)
            else:
                if workers is not None:
                    workers.close()  # less to read than their start-up would pay for
                freeze_heap()
                audited = _in_order(work, rules, redactor, parts)
        for done, ((index, job), audit) in enumerate(audited, 1):
            gave.add(index, job, audit)
            if progress is not None:
                progress(done, total)
    finally:
        if stdin_copy is not None:
            stdin_copy.unlink(missing_ok=True)
    # The tables are read from the parts themselves, as often as a summary or a writer needs:
    # each part is small (a file or a span, small ones merged), where one large file would be
    # read ahead of its writer by more as it grows.
    calls_parts = settle(parts, "calls", *gave.parts["calls"])
    passed_over = gave.passed_over
    repeated = 0 if keep_repeated else leave_out_repeated(calls_parts)
    if repeated:
        passed_over[REPEATED] += repeated
    rejects_parts = settle(parts, "rejects", *gave.parts["rejects"])
    return ScanResult(
        lazy_calls=pl.scan_parquet(calls_parts, schema=CALLS_SCHEMA),
        lazy_rejects=pl.scan_parquet(rejects_parts, schema=REJECTS_SCHEMA),
        files=files,
        conversations=gave.conversations,
        skipped=gave.skipped,
        passed_over=dict(passed_over),
        parts=parts_dir,
        by_source=gave.by_source or {},
        part_files={"calls": calls_parts, "rejects": rejects_parts},
    )
