"""The calls table as frames, and its writers: each table written whole or not at all."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import orjson
import polars as pl

from auditor.faults import fault
from auditor.model import Reject
from auditor.output.columns import CALLS_SCHEMA, REJECTS_SCHEMA

FORMATS = ("parquet", "jsonl", "csv")
ROW_GROUP = 50_000  # rows per parquet row group


def calls_frame(rows: Iterable[dict[str, Any]]) -> pl.DataFrame:
    return pl.DataFrame(list(rows), schema=CALLS_SCHEMA, orient="row")


def rejects_frame(rejects: Iterable[Reject]) -> pl.DataFrame:
    return pl.DataFrame([asdict(r) for r in rejects], schema=REJECTS_SCHEMA, orient="row")


Table = pl.DataFrame | pl.LazyFrame


def findings(calls: Table) -> Table:
    return calls.filter(pl.col("finding").is_not_null())


class WriteFailed(OSError):
    """A file of the run that could not be written: the disk is full, or the folder is not
    writable. Whatever was in its place before is left as it was."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"cannot write {path}: {reason}")
        self.path = path


# A full disk or quota, a folder without write permission, a read-only file system.
WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EPERM, errno.EROFS})
OS_ERROR = re.compile(r"os error (\d+)")  # how polars' writers report the errno
NEARLY_FULL = 1 << 20  # free bytes under which a write error without an errno is a full disk


def _errno(exc: Exception, path: Path) -> int | None:
    """The errno of a failed write. polars' parquet writer can lose it ("Invalid thrift:
    transport error" on a full disk): then a disk with next to no room left is taken as full."""
    if isinstance(exc, OSError) and exc.errno:
        return exc.errno
    found = OS_ERROR.search(str(exc))
    if found:
        return int(found[1])
    return errno.ENOSPC if free_bytes(path) < NEARLY_FULL else None


def free_bytes(path: Path) -> int:
    """Room left for a writer that is not root on the file system that holds ``path``."""
    folder = next(p for p in path.parents if p.is_dir())
    room = os.statvfs(folder)
    return room.f_bavail * room.f_frsize


@contextlib.contextmanager
def writing(path: Path) -> Iterator[None]:
    """Turn a full disk or a folder that cannot be written, while ``path`` is written, into
    ``WriteFailed`` naming it; other errors pass."""
    try:
        yield
    except WriteFailed:
        raise
    except (OSError, pl.exceptions.PolarsError) as exc:
        number = _errno(exc, path)
        if number not in WRITE_ERRNOS:
            raise
        raise WriteFailed(path, os.strerror(number)) from exc


TEMPORARY = re.compile(r"^\..+\.pid(\d+)-")  # a staged file: .calls.parquet.pid1234-xyz


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process
    return True


class Staging:
    """Files written under temporary names beside their places, then moved into place one
    after the other in the order they were written (``commit``), or all removed
    (``discard``): a run that fails before ``commit`` leaves what was there as it was, and a
    run killed before it leaves hidden temporary files that the next run in the folder
    removes."""

    def __init__(self) -> None:
        self.moves: list[tuple[Path, Path]] = []

    def write(self, path: Path, write: Callable[[str], object]) -> None:
        """Write ``path``'s content with ``write(temporary_name)``."""
        with writing(path):
            if not path.parent.is_dir():
                path.parent.mkdir(parents=True, exist_ok=True)
            else:
                _remove_left_behind(path.parent)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.pid{os.getpid()}-", dir=path.parent)
            os.close(fd)
            self.moves.append((Path(tmp), path))
            write(tmp)
            fault(f"output:written:{path.name}")

    def commit(self) -> None:
        for tmp, path in self.moves:
            os.replace(tmp, path)
            fault(f"output:renamed:{path.name}")
        self.moves = []

    def discard(self) -> None:
        for tmp, _ in self.moves:
            tmp.unlink(missing_ok=True)
        self.moves = []


def check_writable(folder: Path) -> None:
    """Raise ``WriteFailed`` unless a file can be made in ``folder`` (made if missing): a run
    whose output cannot be written stops before it reads anything."""
    with writing(folder):
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".probe.pid{os.getpid()}-", dir=folder)
        os.close(fd)
        os.unlink(tmp)
        fault("output:probe")


def _remove_left_behind(folder: Path) -> None:
    """The temporary files of runs killed while writing to ``folder``."""
    for path in folder.glob(".*.pid*-*"):
        match = TEMPORARY.match(path.name)
        if match and not _alive(int(match[1])):
            path.unlink(missing_ok=True)


def write_frame(frame: Table, path: Path, fmt: str, staging: Staging | None = None) -> None:
    """Write a table atomically (or, with ``staging``, under a temporary name that its commit
    moves into place); a LazyFrame is streamed to the file, never held whole."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    lazy = frame.lazy()
    sinks = {
        # Row groups of ROW_GROUP rows: what the writer (and any reader) holds at once.
        "parquet": lambda tmp: lazy.sink_parquet(tmp, row_group_size=ROW_GROUP),
        "jsonl": lazy.sink_ndjson,
        "csv": lazy.sink_csv,
    }
    if staging is not None:
        staging.write(path, sinks[fmt])
        return
    with staged() as alone:
        alone.write(path, sinks[fmt])


@contextlib.contextmanager
def staged() -> Iterator[Staging]:
    """A ``Staging`` whose files are moved into place when the block ends, or removed when it
    raises (or is interrupted)."""
    staging = Staging()
    try:
        yield staging
    except BaseException:
        staging.discard()
        raise
    staging.commit()


def write_outputs(
    staging: Staging,
    out: Path,
    calls: Table,
    rejects: Table,
    summary: dict[str, Any],
    fmt: str,
    findings_format: str | None = None,
) -> list[Path]:
    """findings.<findings_format or fmt>, rejects.jsonl, summary.json and calls.<fmt> in
    ``out``, staged in that order: the calls table is moved into place last, so that a folder
    that holds one holds a whole run (``latest_run`` goes by it)."""
    findings_path = out / f"findings.{findings_format or fmt}"
    write_frame(findings(calls), findings_path, findings_format or fmt, staging)
    rejects_path = out / "rejects.jsonl"
    write_frame(rejects, rejects_path, "jsonl", staging)
    summary_path = out / "summary.json"
    text = orjson.dumps(summary, option=orjson.OPT_INDENT_2) + b"\n"
    staging.write(summary_path, lambda tmp: Path(tmp).write_bytes(text))
    calls_path = out / f"calls.{fmt}"
    write_frame(calls, calls_path, fmt, staging)
    return [calls_path, findings_path, rejects_path, summary_path]


def read_calls(out: Path) -> pl.DataFrame:
    """The calls table of a scan output folder, whichever format it was written in."""
    for fmt in FORMATS:
        path = out / f"calls.{fmt}"
        if path.exists():
            if fmt == "parquet":
                return pl.read_parquet(path)
            if fmt == "jsonl":
                return pl.read_ndjson(path, schema=CALLS_SCHEMA)
            return pl.read_csv(path, schema=CALLS_SCHEMA)
    raise FileNotFoundError(f"no calls table in {out}")
