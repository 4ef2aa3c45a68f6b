"""Incremental scans: a state folder lets a rerun read only what is new.

For each file the state keeps its size, modification time, a SHA-256 of its content, its line
count, and the rows and rejects it gave (``calls.arrow``, ``rejects.arrow``: Arrow IPC, so that a
state folder inside a partitioned dataset adds no ``*.parquet`` file). On the next run:

- a file with the same size and modification time (or the same content) is *unchanged*: not
  read, its rows are carried over;
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
says what was read: files unchanged, appended to and read whole (and why), bytes and lines.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson
import polars as pl
from pydantic import BaseModel

from auditor.readers import span_reader
from auditor.readers.base import Span
from auditor.rules_loader import RuleSet, load_rules
from auditor.scan import REPEATED, STDIN, Job, ScanResult, expand, first_reading, scan
from auditor.table import CALLS_SCHEMA, REJECTS_SCHEMA

STATE_FILE = "state.json"
CALLS_FILE = "calls.arrow"
REJECTS_FILE = "rejects.arrow"
STATE_VERSION = 1
NO_STATE = "-"  # the digest of the empty state of a scan without a state folder
CHUNK = 8 << 20
PACKAGE = Path(__file__).resolve().parent


class FileState(BaseModel):
    """What the state remembers of one input file."""

    size: int
    mtime_ns: int
    sha256: str
    complete: int  # bytes up to the end of the last complete line
    complete_lines: int  # lines in those bytes
    conversations: int = 0
    passed_over: dict[str, int] = {}
    skipped: str | None = None


class State(BaseModel):
    version: int = STATE_VERSION
    digest: str = ""  # rules, code and settings the rows were made with
    files: dict[str, FileState] = {}


@dataclasses.dataclass
class Measure:
    """A file's content as of now: hash, size, complete lines, and whether ``old`` is its start."""

    size: int
    mtime_ns: int
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
    for path in sorted(PACKAGE.rglob("*")):
        if path.suffix in (".py", ".toml") and "__pycache__" not in path.parts:
            sha.update(str(path.relative_to(PACKAGE)).encode() + b"\0" + path.read_bytes())
    for label in rules.files:
        if not label.startswith("<shipped>"):
            sha.update(label.encode() + b"\0" + Path(label).read_bytes())
    sha.update(orjson.dumps({"schema": list(CALLS_SCHEMA), **settings}, default=str))
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

    path: Path
    source: str
    action: str  # "unchanged", "appended" or "whole"
    why: str = ""
    now: Measure | None = None
    old: FileState | None = None
    job: Job | None = None  # the span to read, for "appended"
    # (conversations, passed_over, skipped) of the whole file after this run, for the state
    counts: tuple[int, dict[str, int], str | None] = (0, {}, None)


def plan_reading(
    inputs: Iterable[tuple[Path, str]], state: State, current: str, input_format: str | None
) -> list[Plan]:
    """Decide for each input whether it is unchanged, appended to, or to be read whole."""
    plans = []
    for path, source in inputs:
        old = state.files.get(source) if state.digest == current else None
        if source == STDIN or not path.is_file():
            plans.append(Plan(path, source, "whole", "standard input or no file"))
            continue
        if old is None:
            if state.digest == NO_STATE:
                why = "no state folder"
            elif state.digest in ("", current):
                why = "new file"
            else:
                why = "rules, code or settings changed"
            plans.append(Plan(path, source, "whole", why, measure(path)))
            continue
        stat = path.stat()
        if stat.st_size == old.size and stat.st_mtime_ns == old.mtime_ns:
            plans.append(Plan(path, source, "unchanged", old=old))
            continue
        now = measure(path, old)
        if now.size == old.size and now.sha256 == old.sha256:
            plans.append(Plan(path, source, "unchanged", now=now, old=old))
        elif now.size > old.size and now.starts_with_old:
            reader = span_reader(path, input_format)
            if reader is None:
                why = "grew, and its format spans conversations over lines"
                plans.append(Plan(path, source, "whole", why, now, old))
            else:
                span = Span(old.complete, now.size, old.complete_lines + 1)
                job = Job(path, source, reader, span)
                plans.append(Plan(path, source, "appended", "", now, old, job))
        else:
            plans.append(Plan(path, source, "whole", "changed", now, old))
    return plans


def load_state(folder: Path) -> State:
    path = folder / STATE_FILE
    if not path.exists():
        return State()
    try:
        state = State.model_validate_json(path.read_bytes())
    except ValueError:
        return State()  # an unreadable state costs one full scan, never a failed run
    return state if state.version == STATE_VERSION else State()


def _carried(
    folder: Path, name: str, schema: dict[str, pl.DataType], copy_to: Path
) -> pl.LazyFrame:
    """The state's table (copied aside, so that saving the new state cannot change it)."""
    path = folder / name
    if not path.exists():
        return pl.LazyFrame(schema=schema)
    shutil.copyfile(path, copy_to / name)
    frame = pl.scan_ipc(copy_to / name)
    return frame.select(
        [
            pl.col(c).cast(t) if c in frame.collect_schema() else pl.lit(None, t).alias(c)
            for c, t in schema.items()
        ]
    )


def scan_incremental(
    paths: Iterable[str | Path],
    state_dir: str | Path | None,
    *,
    rules: RuleSet | None = None,
    rules_dir: str | Path | None = None,
    input_format: str | None = None,
    redact: bool = True,
    redact_emails: bool = False,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    engine: str = "local",
    scheduler: str | None = None,
) -> ScanResult:
    """``scan`` that reads only what changed since the run that wrote ``state_dir`` (and
    updates it); without a state folder, a full scan. Either way the summary gets a ``reading``
    section: what was read, in files, bytes and lines."""
    rules = rules or load_rules(rules_dir)
    settings = {"input_format": input_format, "redact": redact, "redact_emails": redact_emails}
    inputs = list(expand(paths))
    folder = Path(state_dir) if state_dir is not None else None
    state = load_state(folder) if folder is not None else State(digest=NO_STATE)
    current = digest(rules, settings)
    plans = plan_reading(inputs, state, current, input_format)
    to_read = [p.source for p in plans if p.action != "unchanged"]
    preset = {p.source: p.job for p in plans if p.job is not None}
    result = scan(
        to_read,
        rules=rules,
        input_format=input_format,
        redact=redact,
        redact_emails=redact_emails,
        jobs=jobs,
        preset=preset,
        progress=progress,
        engine=engine,
        scheduler=scheduler,
    )
    copies = tempfile.TemporaryDirectory(prefix="auditor-state-")
    calls_before = (
        _carried(folder, CALLS_FILE, CALLS_SCHEMA, Path(copies.name))
        if folder
        else pl.LazyFrame(schema=CALLS_SCHEMA)
    )
    rejects_before = (
        _carried(folder, REJECTS_FILE, REJECTS_SCHEMA, Path(copies.name))
        if folder
        else pl.LazyFrame(schema=REJECTS_SCHEMA)
    )
    merged = _merge(plans, result, calls_before, rejects_before)
    merged.sections["reading"]["state"] = str(folder) if folder is not None else None
    merged.parts = (result.parts, copies)
    if folder is not None:
        save_state(folder, current, plans, merged)
    return merged


def _keep_old(plans: list[Plan]) -> pl.Expr:
    """Rows and rejects of the old run to carry: of unchanged files all, of appended files
    those before the first line read again."""
    unchanged = [p.source for p in plans if p.action == "unchanged"]
    appended = {p.source: p.job.span.first_line for p in plans if p.job and p.job.span}
    keep = pl.col("source").is_in(unchanged)
    for source, first_line in appended.items():
        keep = keep | ((pl.col("source") == source) & (pl.col("line") < first_line))
    return keep


def _in_input_order(frames: list[pl.LazyFrame], plans: list[Plan]) -> pl.LazyFrame:
    order = {p.source: index for index, p in enumerate(plans)}
    numbered = [
        frame.with_row_index("_row").with_columns(_part=pl.lit(part))
        for part, frame in enumerate(frames)
    ]
    return (
        pl.concat(numbered, how="vertical_relaxed")
        .with_columns(_order=pl.col("source").replace_strict(order, default=len(order)))
        .sort("_order", "_part", "_row")
        .drop("_order", "_part", "_row")
    )


def _merge(
    plans: list[Plan], result: ScanResult, calls_before: pl.LazyFrame, rejects_before: pl.LazyFrame
) -> ScanResult:
    if any(p.action in ("unchanged", "appended") for p in plans):
        keep = _keep_old(plans)
        every = _in_input_order([calls_before.filter(keep), result.lazy_calls], plans)
        calls = first_reading(every)
        rejects = _in_input_order([rejects_before.filter(keep), result.lazy_rejects], plans)
        total = every.select(pl.len()).collect().item()
        repeated = total - calls.select(pl.len()).collect().item()
    else:
        # Nothing carried from an earlier run: the scan's own tables, streamed as they are
        # (sorting them again would hold the whole table).
        calls, rejects, repeated = result.lazy_calls, result.lazy_rejects, 0
    repeated += result.passed_over.get(REPEATED, 0)

    conversations = 0
    skipped: list[tuple[str, str]] = []
    passed_over: dict[str, int] = {}
    reading: dict[str, Any] = {
        "files_unchanged": 0,
        "files_appended": 0,
        "files_read_whole": 0,
        "read_whole_because": {},
        "bytes_read": 0,
        "lines_read": 0,
    }
    for p in plans:
        got = result.by_source.get(p.source, {"conversations": 0, "passed_over": {}})
        read_skipped = dict(result.skipped).get(p.source)
        if p.action == "unchanged":
            assert p.old is not None
            mine = (p.old.conversations, p.old.passed_over, p.old.skipped)
        elif p.action == "appended":
            assert p.old is not None
            counts = dict(p.old.passed_over)
            for reason, n in got["passed_over"].items():
                counts[reason] = counts.get(reason, 0) + n
            mine = (p.old.conversations + got["conversations"], counts, p.old.skipped)
        else:
            mine = (got["conversations"], got["passed_over"], read_skipped)
        conversations += mine[0]
        for reason, n in mine[1].items():
            passed_over[reason] = passed_over.get(reason, 0) + n
        if mine[2]:
            skipped.append((p.source, mine[2]))
        p.counts = mine
        reading[f"files_{p.action if p.action != 'whole' else 'read_whole'}"] += 1
        if p.action == "whole":
            why = reading["read_whole_because"]
            why[p.why] = why.get(p.why, 0) + 1
        if p.now is not None and p.action != "unchanged":
            start = p.old.complete if p.action == "appended" and p.old else 0
            reading["bytes_read"] += p.now.size - start
            reading["lines_read"] += p.now.new_lines if p.action == "appended" else p.now.lines
    if repeated:
        passed_over[REPEATED] = repeated
    return dataclasses.replace(
        result,
        lazy_calls=calls,
        lazy_rejects=rejects,
        files=len(plans),
        conversations=conversations,
        skipped=skipped,
        passed_over=passed_over,
        sections={**result.sections, "reading": reading},
    )


def _atomic_sink(frame: pl.LazyFrame, path: Path) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    try:
        frame.sink_ipc(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_state(folder: Path, current: str, plans: list[Plan], result: ScanResult) -> None:
    """Write the state folder: each file's measure and counts, and the rows and rejects."""
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, FileState] = {}
    for p in plans:
        if p.source == STDIN or not p.path.is_file():
            continue
        now = p.now or measure(p.path)  # unchanged by size and time: measured last time
        if p.action == "unchanged" and p.now is None and p.old is not None:
            files[p.source] = p.old
            continue
        conversations, passed_over, skipped = p.counts
        files[p.source] = FileState(
            size=now.size,
            mtime_ns=now.mtime_ns,
            sha256=now.sha256,
            complete=now.complete,
            complete_lines=now.complete_lines,
            conversations=conversations,
            passed_over=passed_over,
            skipped=skipped,
        )
    _atomic_sink(result.lazy_calls, folder / CALLS_FILE)
    _atomic_sink(result.lazy_rejects, folder / REJECTS_FILE)
    state = State(digest=current, files=files)
    fd, tmp = tempfile.mkstemp(prefix=f".{STATE_FILE}.", dir=folder)
    with os.fdopen(fd, "wb") as handle:
        handle.write(state.model_dump_json(indent=1).encode())
    os.replace(tmp, folder / STATE_FILE)
