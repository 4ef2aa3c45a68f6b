"""One run per state folder: an OS lock on ``STATE/lock`` that names the run holding it.

Two nightly runs on one ``--state`` (yesterday's, slow, and tonight's) would each save a state
and remove the other's tables. The lock is ``flock(2)`` on a file in the state folder: the
kernel releases it when its holder ends, however it ends, so a run killed by ``kill -9``
leaves nothing that blocks the next night. The holder writes who it is (pid, host, start time)
into the file, so that a run turned away can name it, and clears it when it is done; a run that
finds a holder's name in the file it has just locked knows that holder was killed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from time import monotonic, sleep

import orjson

from auditor.output.tables import writing

try:
    import fcntl
except ImportError:  # Windows: no flock; runs there are not guarded (the README says so)
    fcntl = None  # type: ignore[assignment]

LOCK_FILE = "lock"
POLL_SECONDS = 0.2  # how often a waiting run tries the lock again


@dataclasses.dataclass(frozen=True)
class Holder:
    """The run that holds (or held) a state folder's lock."""

    pid: int
    host: str
    started: str  # ISO 8601, UTC

    def __str__(self) -> str:
        return f"pid {self.pid} on {self.host}, started {self.started}"


class StateBusy(Exception):
    """Another run holds the state folder (and did not let go within ``--wait``)."""

    def __init__(self, folder: Path, holder: Holder | None, waited: float) -> None:
        who = str(holder) if holder else "a run that has not written its name yet"
        after = f" after waiting {waited:g}s" if waited else ""
        super().__init__(
            f"state folder {folder} is in use by another run ({who}){after}; "
            "wait for it with --wait SECONDS, or give another --state"
        )
        self.folder = folder
        self.holder = holder


def _read(fd: int) -> Holder | None:
    """The holder named in the lock file, or None (empty, or not ours to read)."""
    try:
        return Holder(**orjson.loads(os.pread(fd, 4096, 0)))
    except (ValueError, TypeError):
        return None


def _take(fd: int, folder: Path, wait: float) -> None:
    deadline = monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            left = deadline - monotonic()
            if left <= 0:
                raise StateBusy(folder, _read(fd), wait) from None
            sleep(min(POLL_SECONDS, left))


@contextlib.contextmanager
def holding(folder: Path, wait: float = 0) -> Iterator[Holder | None]:
    """Hold ``folder``'s lock for the block, waiting up to ``wait`` seconds for another run to
    end (``StateBusy`` when it does not). Yields the holder a killed run left named in the
    lock file (the lock was taken over from it), or None. Where the OS has no ``flock``
    (Windows), nothing is held."""
    if fcntl is None:
        yield None
        return
    with writing(folder / LOCK_FILE):
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        _take(fd, folder, wait)
        left_behind = _read(fd)
        me = Holder(
            os.getpid(), socket.gethostname(), datetime.now(UTC).isoformat(timespec="seconds")
        )
        os.ftruncate(fd, 0)
        os.pwrite(fd, orjson.dumps(dataclasses.asdict(me)), 0)
        try:
            yield left_behind
        finally:
            os.ftruncate(fd, 0)  # done: the next run finds no name, so nobody was killed
    finally:
        os.close(fd)  # releases the lock
