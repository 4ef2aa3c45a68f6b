"""Incremental scans: a state folder lets a rerun read only what is new.

For each file the state keeps its size, modification time, a SHA-256 of its content, its line
count, and the rows and rejects it gave (``tables-*/calls-*.ipc``, ``tables-*/rejects-*.ipc``:
Arrow IPC, so that a state folder inside a partitioned dataset adds no ``*.parquet`` file; in
small parts, so that carrying them over holds one part at a time). On the next run:

- a file with the same size, modification time and change time (or the same content) is
  *unchanged*: not read, its rows are carried over;
- a file that grew and whose old content is its start (the same hash) was *appended to*: when
  its format holds one conversation per line (``openai_chat``, ``anthropic_messages``: the
  readers that read spans), only the lines after the last complete old line are read, and the
  old rows are carried over; a conversation cannot span the old and the new part there;
- in a format where a conversation spans many lines (Claude Code sessions, log lines, wire
  logs, Responses chains), or in a compressed file or JSON document, a file that grew is read
  again *whole* and its old rows are replaced: every conversation is audited whole, once;
- a file that changed otherwise, a new file, and every file after the rules, the auditor's code
  or the settings that shape rows changed, are read whole.

The result is the whole table, as a full scan would give it; the summary's ``reading`` section
says what was read: files unchanged, appended to and read whole (and why), bytes and lines. The
rows carried over and the rows read now are interleaved in input order as they stream; only
when the files come in another order than last time (arguments given in another order) is the
whole table sorted.

The state keeps each file's own rows, calls that a later file repeats among them; the tables
leave the repeats out each night, over all rows, so that when the file that held a conversation
first is deleted or rewritten the later copy's rows come back. A new state is written beside
the one in effect and named in ``state.json`` by one rename (``StateUpdate``): a run killed
before leaves the last state whole.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson
import polars as pl
from pydantic import BaseModel

from auditor.faults import fault
from auditor.output.columns import CALLS_SCHEMA, REJECTS_SCHEMA
from auditor.output.result import ScanResult
from auditor.output.tables import Table, writing
from auditor.readers import Span, span_reader
from auditor.redact import patterns_digest
from auditor.rules_loader import SHIPPED, RuleSet, load_rules
from auditor.run.inputs import STDIN, expand
from auditor.run.jobs import Job
from auditor.run.local import scan
from auditor.run.parts import REPEATED, leave_out_repeated
from auditor.run.share import Workers
from auditor.run.worker import part_path

STATE_FILE = "state.json"
SCHEMAS = {"calls": CALLS_SCHEMA, "rejects": REJECTS_SCHEMA}
STATE_VERSION = 2  # version 1 kept each table as one file: such a state is read whole again
VERSION_1_TABLES = ("calls.arrow", "rejects.arrow")  # removed when the state is next saved
ROWS_PER_PART = 5_000  # rows per part of the state's tables and of a merged table
ORDER = "__input_order"  # 2 × the file's place among the inputs, + 1 for rows read now
NO_STATE = "-"  # the digest of the empty state of a scan without a state folder
CHUNK = 8 << 20
PACKAGE = Path(__file__).resolve().parent.parent  # the whole auditor package, every stage


class FileState(BaseModel):
    """What the state remembers of one input file."""

    size: int
    mtime_ns: int
    sha256: str
    complete: int  # bytes up to the end of the last complete line
    complete_lines: int  # lines in those bytes
    ctime_ns: int = 0  # with size and mtime: "not changed" without reading it (``same_stat``)
    conversations: int = 0
    passed_over: dict[str, int] = {}
    skipped: str | None = None


class State(BaseModel):
    version: int = STATE_VERSION
    digest: str = ""  # rules, code and settings the rows were made with
    files: dict[str, FileState] = {}
    tables: str = ""  # the folder, in the state folder, of the tables' parts


@dataclasses.dataclass
class Measure:
    """A file's content as of now: hash, size, complete lines, and whether ``old`` is its start."""

    size: int
    mtime_ns: int
    ctime_ns: int
    sha256: str
    complete: int
    complete_lines: int
    lines: int  # all lines, a last one without a newline included
    starts_with_old: bool = False
    new_lines: int = 0  # lines after ``old.complete``


def digest(rules: RuleSet, settings: dict[str, Any]) -> str:
    """What the rows depend on besides the input: the auditor's code and shipped rules, the
    user's rule files, the schema and the settings that shape rows."""
    sha = hashlib.sha256()
    shipped = Path(str(SHIPPED))  # the checkout's rules/, or auditor/rules in a wheel
    for folder in (PACKAGE, shipped):
        for path in sorted(folder.rglob("*")):
            if path.suffix in (".py", ".toml") and "__pycache__" not in path.parts:
                sha.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    for label in rules.files:
        if not label.startswith("<shipped>"):
            sha.update(label.encode() + b"\0" + Path(label).read_bytes())
    shape = {"schema": list(CALLS_SCHEMA), "claims_all": rules.claims_all, **settings}
    sha.update(orjson.dumps(shape, default=str))
    return sha.hexdigest()


def measure(path: Path, old: FileState | None = None) -> Measure:
    """Hash and count a file's bytes as they are now (up to its current size), checking on the
    way whether its first ``old.size`` bytes are still what they were."""
    stat = path.stat()
    size = stat.st_size
    sha = hashlib.sha256()
    position = lines = complete = new_lines = 0
    starts_with_old = False
    with open(path, "rb") as handle:
        while position < size:
            limit = size - position
            if old is not None and position < old.size <= size:
                limit = old.size - position  # stop at the old end to compare the hash there
            chunk = handle.read(min(CHUNK, limit))
            if not chunk:
                break
            newlines = chunk.count(b"\n")
            lines += newlines
            if old is not None and position >= old.complete:
                new_lines += newlines
            elif old is not None and position + len(chunk) > old.complete:
                new_lines += chunk.count(b"\n", old.complete - position)
            last = chunk.rfind(b"\n")
            if last >= 0:
                complete = position + last + 1
            sha.update(chunk)
            position += len(chunk)
            if old is not None and position == old.size:
                starts_with_old = sha.hexdigest() == old.sha256
    partial = 1 if position > complete else 0
    return Measure(
        size=position,
        mtime_ns=stat.st_mtime_ns,
        ctime_ns=stat.st_ctime_ns,
        sha256=sha.hexdigest(),
        complete=complete,
        complete_lines=lines,
        lines=lines + partial,
        starts_with_old=starts_with_old,
        new_lines=new_lines + partial,
    )


@dataclasses.dataclass
class Plan:
    """What to do with one input file."""

    path: Path | None  # None for a URL input, read through fsspec
    source: str
    action: str  # "unchanged", "appended" or "whole"
    why: str = ""
    now: Measure | None = None
    old: FileState | None = None
    job: Job | None = None  # the span to read, for "appended"
    # (conversations, passed_over, skipped) of the whole file after this run, for the state
    counts: tuple[int, dict[str, int], str | None] = (0, {}, None)


def plan_reading(
    inputs: Iterable[tuple[Path | None, str]],
    state: State,
    current: str,
    input_format: str | None,
) -> list[Plan]:
    """Decide for each input whether it is unchanged, appended to, or to be read whole."""
    return [plan_file(path, source, state, current, input_format) for path, source in inputs]


def plan_file(
    path: Path | None, source: str, state: State, current: str, input_format: str | None
) -> Plan:
    """Decide whether one input is unchanged, appended to, or to be read whole."""
    old = state.files.get(source) if state.digest == current else None
    if source == STDIN or path is None or not path.is_file():
        return Plan(path, source, "whole", "standard input, a URL or no file")
    if old is None:
        if state.digest == NO_STATE:
            why = "no state folder"
        elif state.digest in ("", current):
            why = "new file"
        else:
            why = "rules, code or settings changed"
        return Plan(path, source, "whole", why, measure(path))
    if same_stat(path.stat(), old):
        return Plan(path, source, "unchanged", old=old)
    now = measure(path, old)
    if now.size == old.size and now.sha256 == old.sha256:
        return Plan(path, source, "unchanged", now=now, old=old)
    if now.size > old.size and now.starts_with_old:
        reader = span_reader(path, input_format)
        if reader is None:
            why = "grew, and its format spans conversations over lines"
            return Plan(path, source, "whole", why, now, old)
        span = Span(old.complete, now.size, old.complete_lines + 1)
        return Plan(path, source, "appended", "", now, old, Job(path, source, reader, span))
    return Plan(path, source, "whole", "changed", now, old)


def same_stat(stat: os.stat_result, old: FileState) -> bool:
    """Whether a file is the one measured last time, unchanged, by its ``stat`` alone.

    Size and modification time are not enough: a log rewritten or replaced by another of the
    same size whose writer (or ``cp -p``, ``touch -r``, ``rsync -t``) set the old time back
    would pass. The change time (``ctime``) is set by the kernel on every write, rename and
    change of times, and no call sets it back, so it tells both. When it differs the file is
    hashed, and the same content is still unchanged: a ``chmod`` or a restore from a backup
    costs one read of the file, never a wrong table. Hashing its first and last blocks instead
    would miss an edit in between."""
    return (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns) == (
        old.size,
        old.mtime_ns,
        old.ctime_ns,
    )


def load_state(folder: Path) -> State:
    path = folder / STATE_FILE
    if not path.exists():
        return State()
    try:
        state = State.model_validate_json(path.read_bytes())
    except ValueError:
        return State()  # an unreadable state costs one full scan, never a failed run
    return state if state.version == STATE_VERSION else State()


def _in_schema(frame: Table, schema: dict[str, pl.DataType]) -> Table:
    """Rows of the state in the current schema."""
    names = frame.collect_schema().names()
    return frame.select(
        [pl.col(c).cast(t) if c in names else pl.lit(None, t).alias(c) for c, t in schema.items()]
    )


def state_parts(folder: Path | None, state: State, table: str) -> list[Path]:
    """The part files of one of the state's tables (``calls`` or ``rejects``), in order."""
    if folder is None or not state.tables:
        return []
    return sorted((folder / state.tables).glob(f"{table}-*.ipc"))


def scan_and_stage(
    paths: Iterable[str | Path],
    state_dir: str | Path | None,
    *,
    rules: RuleSet | None = None,
    rules_dir: str | Path | None = None,
    input_format: str | None = None,
    redact: bool = True,
    redact_emails: bool = False,
    redact_entropy: bool = False,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    engine: str = "local",
    scheduler: str | None = None,
    workers: Workers | None = None,
) -> tuple[ScanResult, StateUpdate | None]:
    """``scan`` that reads only what changed since the run that wrote ``state_dir``; without a
    state folder, a full scan. Either way the summary gets a ``reading`` section: what was
    read, in files, bytes and lines. The new state is written but not yet in effect: the caller
    commits it once the run's outputs are written (or discards it), so that a run that cannot
    write its outputs leaves the state as it was. ``workers``: started early (``scan``)."""
    rules = rules or load_rules(rules_dir)
    audit = functools.partial(
        scan,
        rules=rules,
        input_format=input_format,
        redact=redact,
        redact_emails=redact_emails,
        redact_entropy=redact_entropy,
        jobs=jobs,
        progress=progress,
        engine=engine,
        scheduler=scheduler,
        workers=workers,
    )
    if state_dir is None:
        return _read_whole(paths, audit, input_format), None
    settings = {
        "input_format": input_format,
        "redact": redact,
        "redact_emails": redact_emails,
        "redact_entropy": redact_entropy,
        "redaction": patterns_digest(),  # a newer detect-secrets masks more
    }
    folder = Path(state_dir)
    state = load_state(folder)
    current = digest(rules, settings)
    plans = plan_reading(expand(paths), state, current, input_format)
    result = audit(
        [p.source for p in plans if p.action != "unchanged"],
        preset={p.source: p.job for p in plans if p.job is not None},
        # The state keeps each file's own rows, calls read again from another file among
        # them: when the file read first is deleted or rewritten, the next night carries them.
        keep_repeated=True,
        by_source=True,
    )
    # The merged tables are written here, so that saving the new state cannot change them.
    merged_parts = tempfile.TemporaryDirectory(prefix="auditor-merged-")
    merged = _merge(plans, result, folder, state, Path(merged_parts.name))
    merged.sections["reading"]["state"] = str(folder)
    merged.parts = (result.parts, merged_parts)
    update = stage_state(folder, current, plans, merged)
    try:
        repeated = leave_out_repeated(merged.part_files["calls"])
    except BaseException:
        update.discard()
        raise
    if repeated:
        merged.passed_over[REPEATED] = repeated
    return merged, update


def _read_whole(
    paths: Iterable[str | Path], audit: Callable[..., ScanResult], input_format: str | None
) -> ScanResult:
    """A scan without a state folder: every file read whole, and the ``reading`` section
    counted as each is planned, so that nothing is held per file (a log folder can hold
    100,000 sessions)."""
    state = State(digest=NO_STATE)
    reading = _reading()

    def count(path: Path | None, source: str) -> None:
        _count(reading, plan_file(path, source, state, NO_STATE, input_format))

    result = audit(paths, each_input=count)
    reading["state"] = None
    return dataclasses.replace(result, sections={**result.sections, "reading": reading})


def _reading() -> dict[str, Any]:
    """The summary's ``reading`` section of a scan that has read nothing yet."""
    return {
        "files_unchanged": 0,
        "files_appended": 0,
        "files_read_whole": 0,
        "read_whole_because": {},
        "bytes_read": 0,
        "lines_read": 0,
    }


def _count(reading: dict[str, Any], p: Plan) -> None:
    """One file's plan counted in the ``reading`` section: how it was read, bytes and lines."""
    reading[f"files_{p.action if p.action != 'whole' else 'read_whole'}"] += 1
    if p.action == "whole":
        why = reading["read_whole_because"]
        why[p.why] = why.get(p.why, 0) + 1
    if p.now is not None and p.action != "unchanged":
        start = p.old.complete if p.action == "appended" and p.old else 0
        reading["bytes_read"] += p.now.size - start
        reading["lines_read"] += p.now.new_lines if p.action == "appended" else p.now.lines


def _keep_old(plans: list[Plan]) -> pl.Expr:
    """Rows and rejects of the old run to carry: of unchanged files all, of appended files
    those before the first line read again."""
    unchanged = [p.source for p in plans if p.action == "unchanged"]
    appended = {p.source: p.job.span.first_line for p in plans if p.job and p.job.span}
    keep = pl.col("source").is_in(unchanged)
    for source, first_line in appended.items():
        keep = keep | ((pl.col("source") == source) & (pl.col("line") < first_line))
    return keep


def _in_old_order(plans: list[Plan], state: State) -> bool:
    """Whether the files whose rows are carried come, each once, in the order the state has
    them (the order its tables are in)."""
    before = {source: index for index, source in enumerate(state.files)}
    carried = [before[p.source] for p in plans if p.action in ("unchanged", "appended")]
    return carried == sorted(carried) and len({p.source for p in plans}) == len(plans)


class _OutOfOrder(Exception):
    """Rows of the state that are not in the order of its files."""


def _ascending(frames: Iterable[pl.DataFrame]) -> Iterator[pl.DataFrame]:
    """The frames that hold rows, checked to be in input order."""
    last = -1
    for frame in frames:
        if frame.height == 0:
            continue
        order = frame[ORDER]
        if order[0] < last or not order.is_sorted():
            raise _OutOfOrder
        last = order[-1]
        yield frame


def _interleaved(
    old: Iterable[pl.DataFrame], new: Iterable[pl.DataFrame]
) -> Iterator[pl.DataFrame]:
    """Two streams of rows, each in input order, as one stream in input order (the old rows of
    a file before its new ones). One frame of each is held at a time."""
    streams = [_ascending(old), _ascending(new)]
    heads = [next(stream, None) for stream in streams]
    while heads[0] is not None and heads[1] is not None:
        first = 0 if heads[0][ORDER][0] < heads[1][ORDER][0] else 1
        frame, other = heads[first], heads[1 - first]
        # Old and new rows never share an ORDER value: at least one row goes out.
        until = frame[ORDER].search_sorted(other[ORDER][0], side="left")
        yield frame.slice(0, until)
        heads[first] = frame.slice(until) if until < frame.height else next(streams[first], None)
    for head, stream in zip(heads, streams, strict=True):
        if head is not None:
            yield head
            yield from stream


def _write_parts(frames: Iterable[pl.DataFrame], folder: Path, table: str) -> list[Path]:
    """``frames`` as parquet parts of ``table`` in ``folder`` of about ROWS_PER_PART rows each."""
    parts: list[Path] = []
    held: list[pl.DataFrame] = []
    rows = 0
    for frame in itertools.chain(frames, [None]):
        if frame is not None:
            held.append(frame.drop(ORDER))
            rows += frame.height
        if rows >= ROWS_PER_PART or (frame is None and rows):
            parts.append(part_path(folder, table, len(parts)))
            pl.concat(held).write_parquet(parts[-1])
            fault("carry:part-written")
            held, rows = [], 0
    return parts


def _carry(
    table: str, plans: list[Plan], old: list[Path], new: list[Path], interleave: bool, to: Path
) -> list[Path]:
    """One table of this run as parts in ``to``: the rows carried from the state's ``old``
    parts and the rows read now (the scan's ``new`` parts), in input order. They are
    interleaved a part at a time when the state's rows are in the current order
    (``interleave``); otherwise they are sorted, which holds the whole table."""
    schema = SCHEMAS[table]
    order = {p.source: index for index, p in enumerate(plans)}
    keep = _keep_old(plans)

    def numbered(frame: Table, read_now: int) -> Table:
        place = pl.col("source").replace_strict(order, default=len(order), return_dtype=pl.Int64)
        return frame.with_columns((2 * place + read_now).alias(ORDER))

    if interleave:
        # Eager, a part at a time: a lazy query per part holds more.
        carried = (numbered(_in_schema(pl.read_ipc(p), schema).filter(keep), 0) for p in old)
        read_now = (numbered(pl.read_parquet(p), 1) for p in new)
        try:
            return _write_parts(_interleaved(carried, read_now), to, table)
        except _OutOfOrder:
            for written in to.glob(f"{table}-*"):
                written.unlink()
    state_rows = _in_schema(pl.scan_ipc(old), schema) if old else pl.LazyFrame(schema=schema)
    every = pl.concat(
        [numbered(state_rows.filter(keep), 0), numbered(pl.scan_parquet(new, schema=schema), 1)],
        how="vertical_relaxed",
    )
    in_order = every.sort(ORDER, maintain_order=True).collect()
    return _write_parts(in_order.iter_slices(ROWS_PER_PART), to, table)


def _merge(
    plans: list[Plan], result: ScanResult, folder: Path, state: State, to: Path
) -> ScanResult:
    if any(p.action in ("unchanged", "appended") for p in plans):
        interleave = _in_old_order(plans, state)
        part_files = {
            table: _carry(
                table,
                plans,
                state_parts(folder, state, table),
                result.part_files[table],
                interleave,
                to,
            )
            for table in SCHEMAS
        }
        calls = pl.scan_parquet(part_files["calls"], schema=CALLS_SCHEMA)
        rejects = pl.scan_parquet(part_files["rejects"], schema=REJECTS_SCHEMA)
    else:
        # Nothing carried from an earlier run: the scan's own tables, streamed as they are.
        calls, rejects = result.lazy_calls, result.lazy_rejects
        part_files = result.part_files
    conversations = 0
    skipped: list[tuple[str, str]] = []
    passed_over: dict[str, int] = {}
    reading = _reading()
    read_skipped = dict(result.skipped)
    for p in plans:
        got = result.by_source.get(p.source, (0, {}))
        if p.action == "unchanged":
            assert p.old is not None
            mine = (p.old.conversations, p.old.passed_over, p.old.skipped)
        elif p.action == "appended":
            assert p.old is not None
            counts = dict(p.old.passed_over)
            for reason, n in got[1].items():
                counts[reason] = counts.get(reason, 0) + n
            mine = (p.old.conversations + got[0], counts, p.old.skipped)
        else:
            mine = (*got, read_skipped.get(p.source))
        conversations += mine[0]
        for reason, n in mine[1].items():
            passed_over[reason] = passed_over.get(reason, 0) + n
        if mine[2]:
            skipped.append((p.source, mine[2]))
        p.counts = mine
        _count(reading, p)
    return dataclasses.replace(
        result,
        lazy_calls=calls,
        lazy_rejects=rejects,
        part_files=part_files,
        files=len(plans),
        conversations=conversations,
        skipped=skipped,
        passed_over=passed_over,
        sections={**result.sections, "reading": reading},
    )


@dataclasses.dataclass
class StateUpdate:
    """A new state written beside the one in effect, in effect once committed: a run stopped
    before (killed, or unable to write its outputs) leaves the last state whole."""

    folder: Path
    state: State
    committed: bool = False

    def __enter__(self) -> StateUpdate:
        return self

    def __exit__(self, *exc: object) -> None:
        self.discard()

    def commit(self) -> None:
        """Name the new tables in ``state.json`` (replaced at once), then remove the old ones
        and what killed runs left (tables never named, a half-written ``state.json``)."""
        path = self.folder / STATE_FILE
        with writing(path):
            fd, tmp = tempfile.mkstemp(prefix=f".{STATE_FILE}.", dir=self.folder)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(self.state.model_dump_json(indent=1).encode())
                fault("state:tmp-written")
                os.replace(tmp, path)
                self.committed = True
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        fault("state:replaced")
        for earlier in self.folder.glob("tables-*"):
            if earlier.name != self.state.tables:
                shutil.rmtree(earlier)
        for left in self.folder.glob(f".{STATE_FILE}.*"):
            left.unlink(missing_ok=True)
        for name in VERSION_1_TABLES:
            (self.folder / name).unlink(missing_ok=True)

    def discard(self) -> None:
        """Remove the new tables, unless committed (they are the state's now)."""
        if not self.committed:
            shutil.rmtree(self.folder / self.state.tables, ignore_errors=True)


def stage_state(folder: Path, current: str, plans: list[Plan], result: ScanResult) -> StateUpdate:
    """Write a new state into the state folder, not yet in effect: each file's measure and
    counts, and the rows and rejects (the result's parts, as Arrow IPC, in a new ``tables-*``
    folder)."""
    files: dict[str, FileState] = {}
    for p in plans:
        if p.source == STDIN or p.path is None or not p.path.is_file():
            continue
        if p.action == "unchanged" and p.now is None and p.old is not None:
            files[p.source] = p.old  # unchanged by its stat: measured last time
            continue
        now = p.now or measure(p.path)
        conversations, passed_over, skipped = p.counts
        files[p.source] = FileState(
            size=now.size,
            mtime_ns=now.mtime_ns,
            ctime_ns=now.ctime_ns,
            sha256=now.sha256,
            complete=now.complete,
            complete_lines=now.complete_lines,
            conversations=conversations,
            passed_over=passed_over,
            skipped=skipped,
        )
    with writing(folder):
        folder.mkdir(parents=True, exist_ok=True)
        tables = Path(tempfile.mkdtemp(prefix="tables-", dir=folder))
    update = StateUpdate(folder, State(digest=current, files=files, tables=tables.name))
    try:
        for table, parts in result.part_files.items():
            for index, part in enumerate(parts):  # a part at a time: a sink reads far ahead
                path = part_path(tables, table, index).with_suffix(".ipc")
                with writing(path):
                    pl.read_parquet(part).write_ipc(path)
                    fault("state:part-written")
    except BaseException:
        update.discard()
        raise
    return update
