"""The library entry point: scan files and folders, get the calls table back.

from auditor import scan
result = scan(["logs/"])
result.calls.filter(pl.col("finding") == "false_success")
"""

from __future__ import annotations

import functools
import multiprocessing
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from auditor.audit.conversation import audit_conversation
from auditor.model import Reject
from auditor.output.tables import (
    CALLS_SCHEMA,
    REJECTS_SCHEMA,
    calls_frame,
    findings,
    rejects_frame,
    summarize,
)
from auditor.readers import read_file, span_reader
from auditor.readers.base import Span
from auditor.redact import Redactor
from auditor.rules_loader import RuleSet, load_rules
from auditor.run import dask_engine

STDIN = "-"
PARALLEL_MIN_BYTES = 8 << 20  # below this, starting processes costs more than it saves
SPAN_BYTES = 8 << 20  # large JSONL files are read in parts of about this size


@dataclass
class ScanResult:
    """The calls table of a scan and what could not be read.

    The tables are polars LazyFrames over the parts the workers wrote, so that writing them out
    streams and memory does not grow with the input; ``calls``, ``rejects`` and ``findings``
    collect them into DataFrames for a notebook or a test.
    """

    lazy_calls: pl.LazyFrame
    lazy_rejects: pl.LazyFrame
    files: int
    conversations: int
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (source, why)
    passed_over: dict[str, int] = field(default_factory=dict)  # reason -> lines or records
    parts: Any = None  # the temporary folder of parts, removed when the result is dropped
    # The scan's own tables as their parquet part files, in order: "calls" and "rejects" (an
    # incremental run carries and saves them part by part).
    part_files: dict[str, list[Path]] = field(default_factory=dict)
    # What each source gave besides rows: conversations and passed_over (for the state file).
    by_source: dict[str, dict[str, Any]] = field(default_factory=dict)
    # More summary sections: reading (incremental), suppressions, baseline, signatures.
    sections: dict[str, Any] = field(default_factory=dict)
    resolved: pl.DataFrame | None = None  # baseline findings gone in this scan

    @functools.cached_property
    def calls(self) -> pl.DataFrame:
        return self.lazy_calls.collect()

    @functools.cached_property
    def rejects(self) -> pl.DataFrame:
        return self.lazy_rejects.collect()

    @property
    def findings(self) -> pl.DataFrame:
        if "calls" in self.__dict__:
            return findings(self.calls)
        return findings(self.lazy_calls).collect()

    def summary(self) -> dict[str, Any]:
        summary = summarize(
            self.lazy_calls,
            self.lazy_rejects,
            files=self.files,
            conversations=self.conversations,
            skipped=self.skipped,
            passed_over=self.passed_over,
        )
        return {**summary, **self.sections}


def _visible(path: Path, root: Path) -> bool:
    return not any(part.startswith(".") for part in path.relative_to(root).parts)


def expand(paths: Iterable[str | Path]) -> Iterator[tuple[Path | None, str]]:
    """(file, source name) for each input: files as given, folders walked in sorted order
    (hidden files and folders, such as ``.git``, are left out). A URL input (``s3://…``) gives
    (None, URL) for each file under it, read through fsspec."""
    for given in paths:
        path = Path(given)
        if dask_engine.is_url(given):
            yield from ((None, url) for url in dask_engine.expand_url(str(given)))
        elif str(given) == STDIN:
            yield path, STDIN
        elif path.is_dir():
            for child in sorted(path.rglob("*")):
                if child.is_file() and _visible(child, path):
                    yield child, str(child)
        else:
            yield path, str(given)


REPEATED = "tool call already audited from another file (same conversation and call id)"
FIRST_SOURCE = "__first_source"
KEY_HASH = "__key_hash"
CONVERSATION_HASH = "__conversation_hash"


def _key_hash() -> pl.Expr:
    """A call's key (conversation and call id), compared by hash."""
    return pl.struct("conversation_id", "tool_call_id").hash()


def _source_hash() -> pl.Expr:
    """A call's file, compared by hash."""
    return pl.col("source").hash()


def first_sources(calls: pl.LazyFrame) -> pl.DataFrame | None:
    """The file each call of a conversation found in more than one file was first read from
    (by hash of its key and of the file's name); None when no conversation is, the usual case.

    Only conversations found in more than one file can hold calls read again; they are found
    first (one small row per conversation and file), so that the usual case costs one pass and
    memory that does not grow with the number of calls."""
    conversation = pl.col("conversation_id").hash()
    shared = (
        calls.select(conversation.alias(CONVERSATION_HASH), _source_hash().alias(FIRST_SOURCE))
        .unique()
        .group_by(CONVERSATION_HASH)
        .len()
        .filter(pl.col("len") > 1)
        .select(CONVERSATION_HASH)
        .collect()
    )
    if shared.height == 0:
        return None
    return (
        calls.filter(conversation.is_in(shared[CONVERSATION_HASH].implode()))
        .select(_key_hash().alias(KEY_HASH), _source_hash().alias(FIRST_SOURCE))
        .unique(subset=KEY_HASH, keep="first", maintain_order=True)
        .collect()
    )


def without_repeated(calls: pl.LazyFrame, first: pl.DataFrame) -> pl.LazyFrame:
    """``calls`` less those read from another file than the one ``first`` says held them
    first; a row at a time, so that any slice of the calls can be filtered on its own."""
    return (
        calls.with_columns(_key_hash().alias(KEY_HASH))
        .join(first.lazy(), on=KEY_HASH, how="left", maintain_order="left")
        .filter(pl.col(FIRST_SOURCE).is_null() | (_source_hash() == pl.col(FIRST_SOURCE)))
        .drop(KEY_HASH, FIRST_SOURCE)
    )


PART_ROWS = 2_000  # smaller parts are merged, in order, into parts of at least this many rows


def settle(parts: Path, table: str, numbers: list[int], rows: list[int]) -> list[Path]:
    """The part files of one table (``calls`` or ``rejects``), in order, with ``rows`` rows
    each: runs of small parts merged into parts of at least PART_ROWS rows and empty ones
    dropped, since a reader or writer holds something for every file and every small batch (a
    folder of one-conversation files gives thousands). One merged part is held at a time."""
    settled: list[Path] = []
    run: list[Path] = []
    held = 0
    for number, n in zip(numbers, rows, strict=True):
        path = part_path(parts, table, number)
        if n == 0:
            path.unlink()
            continue
        run.append(path)
        held += n
        if held >= PART_ROWS:
            settled.append(_merged(run))
            run, held = [], 0
    if run:
        settled.append(_merged(run))
    return settled


def _merged(run: list[Path]) -> Path:
    """One part for a run of parts, in the first one's file."""
    if len(run) > 1:
        pl.concat([pl.read_parquet(path) for path in run]).write_parquet(run[0])
        for path in run[1:]:
            path.unlink()
    return run[0]


def leave_out_repeated(calls_parts: list[Path], among: pl.Series | None = None) -> int:
    """Rewrite the parts without the calls an earlier file already held (a log copied into a
    longer one, the same benchmark run exported twice; ids repeated inside one file are kept),
    one part at a time; how many calls were left out. ``among``: the only conversation ids
    that can hold such calls, when the others' calls are known to be each in one file (an
    incremental run's carried rows), so that the search holds those conversations only."""
    calls = pl.scan_parquet(calls_parts, schema=CALLS_SCHEMA)
    if among is not None:
        calls = calls.filter(pl.col("conversation_id").is_in(among.implode()))
    first = first_sources(calls)
    if first is None:
        return 0
    left_out = 0
    for path in calls_parts:
        part = pl.read_parquet(path)
        kept = without_repeated(part.lazy(), first).collect()
        if kept.height < part.height:
            kept.write_parquet(path)
            left_out += part.height - kept.height
    return left_out


def _stdin_copy() -> Path:
    """Standard input saved to a temporary file, so that detection can look at its start."""
    with tempfile.NamedTemporaryFile(prefix="auditor-stdin-", delete=False) as handle:
        shutil.copyfileobj(sys.stdin.buffer, handle)
    return Path(handle.name)


@dataclass(frozen=True)
class Job:
    """One piece of work for a worker: a file, or one span of a large one. ``path`` is None
    for a file named by a URL (the ``source``), which the worker fetches."""

    path: Path | None
    source: str
    input_format: str | None = None
    span: Span | None = None


def plan(
    inputs: Iterable[tuple[Path | None, str]],
    input_format: str | None,
    span_bytes: int,
    preset: Mapping[str, Job] | None = None,
) -> list[Job]:
    """Jobs for the inputs: large plain files of a one-conversation-per-line format are cut at
    line boundaries into spans of about ``span_bytes``; other files are one job each. A source
    in ``preset`` gets that job (an incremental scan reads only the appended part of a file)."""
    jobs: list[Job] = []
    for path, source in inputs:
        if preset and source in preset:
            jobs.append(preset[source])
            continue
        if path is None:
            jobs.append(Job(path, source, input_format))
            continue
        try:
            reader = span_reader(path, input_format) if path.stat().st_size > span_bytes else None
        except Exception:  # the worker reports what is wrong with this file
            reader = None
        if reader is None:
            jobs.append(Job(path, source, input_format))
        else:
            jobs.extend(Job(path, source, reader, span) for span in cut_spans(path, span_bytes))
    return jobs


def cut_spans(path: Path, span_bytes: int) -> Iterator[Span]:
    """Spans of about ``span_bytes`` that start and end at line boundaries, with the number of
    the line each starts at (counted, so that rows and rejects keep their real line numbers)."""
    size = path.stat().st_size
    start, line = 0, 1
    with open(path, "rb") as handle:
        while start < size:
            handle.seek(min(start + span_bytes, size))
            if handle.tell() < size:
                handle.readline()  # on to the end of the line the cut fell in
            end = handle.tell()
            yield Span(start, end, line)
            handle.seek(start)
            remaining = end - start
            while remaining:
                block = handle.read(min(remaining, 8 << 20))
                line += block.count(b"\n")
                remaining -= len(block)
            start = end


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
    write_part(parts, index, calls_frame(rows), rejects_frame(rejects))
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
            with dask_engine.fetched(source) as local:
                return audit_rows(Job(local, source, job.input_format), rules, redactor)
        except (OSError, RuntimeError, ValueError) as exc:
            reject = Reject(source=source, line=0, reason=f"cannot fetch: {exc}")
            return [], [reject], PartAudit(rejects=1)
    if not job.path.exists():
        return [], [Reject(source=source, line=0, reason="no such file")], PartAudit(rejects=1)
    read = read_file(job.path, source, job.input_format, job.span)
    rejects = [r.model_copy(update={"excerpt": redactor.apply(r.excerpt)}) for r in read.rejects]
    audit = PartAudit(
        skipped=read.skipped,
        passed_over=dict(read.passed_over),
        conversations=len(read.conversations),
    )
    rows: list[dict[str, Any]] = []
    for conversation in read.conversations:
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
    audit.calls, audit.rejects = len(rows), len(rejects)
    return rows, rejects, audit


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


# Each worker process keeps the rules and settings it was started with.
_WORKER: dict[str, Any] = {}


def _start_worker(rules: RuleSet, redactor: Redactor, parts: Path) -> None:
    _WORKER.update(rules=rules, redactor=redactor, parts=parts)


def _audit_in_worker(numbered: tuple[int, Job]) -> PartAudit:
    index, job = numbered
    return audit_job(job, _WORKER["rules"], _WORKER["redactor"], _WORKER["parts"], index)


def scan(
    paths: Iterable[str | Path],
    *,
    rules: RuleSet | None = None,
    rules_dir: str | Path | None = None,
    input_format: str | None = None,
    redact: bool = True,
    redact_emails: bool = False,
    jobs: int = 1,
    span_bytes: int = SPAN_BYTES,
    work_dir: str | Path | None = None,
    preset: Mapping[str, Job] | None = None,
    progress: Callable[[int, int], None] | None = None,
    engine: str = "local",
    scheduler: str | None = None,
) -> ScanResult:
    """Audit every transcript under ``paths``; bad input goes to ``rejects``, never raises.

    Secrets in the excerpts the table keeps (evidence, reply sentences, reject excerpts) are
    redacted unless ``redact`` is False; ``redact_emails`` redacts email addresses too.
    ``jobs`` > 1 audits files, and spans of large files, in that many processes (when there is
    at least PARALLEL_MIN_BYTES of input); the result is the same as with one. Rows are written
    to parquet parts in a temporary folder (under ``work_dir`` when given) as they are made.
    ``progress(done, total)`` is told after each file or span is audited. ``engine="dask"``
    runs the same audit on the Dask cluster at ``scheduler`` (a local one when None).
    """
    rules = rules or load_rules(rules_dir)
    redactor = Redactor(enabled=redact, emails=redact_emails)
    inputs = list(expand(paths))
    stdin_copy = _stdin_copy() if any(source == STDIN for _, source in inputs) else None
    inputs = [(stdin_copy if source == STDIN else path, source) for path, source in inputs]
    parts_dir = tempfile.TemporaryDirectory(prefix="auditor-parts-", dir=work_dir)
    parts = Path(parts_dir.name)
    try:
        work = list(enumerate(plan(inputs, input_format, span_bytes, preset)))
        size = sum(job.path.stat().st_size for _, job in work if job.path and job.path.exists())
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
                initializer=_start_worker,
                initargs=(rules, redactor, parts),
            ) as pool:
                audits = _counted(pool.map(_audit_in_worker, work, chunksize=1), progress, work)
        else:
            audits = _counted(
                (audit_job(job, rules, redactor, parts, index) for index, job in work),
                progress,
                work,
            )
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
    repeated = leave_out_repeated(calls_parts)
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
