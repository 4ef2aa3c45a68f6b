"""Several cores on one scan: this process and spawned workers take batches from one queue.

With ``--jobs N`` a scan starts N - 1 worker processes and audits in this one too. A worker's
start-up (Python, polars, the rules: most of a second) is then spent while this process is
already auditing, and a scan on two cores pays it once, not twice. Whoever is free takes the
next batch of jobs, as the jobs are planned, so that the cores finish together: no core waits
while another works through a queue of its own. A worker writes its own parts; only what each
batch gave besides rows (a few counts) comes back, and the audits are yielded in job order.

``auditor scan`` starts the workers before it loads the rules (``start_early``), when its
inputs are large enough to be shared: their start-up then passes while this process loads the
rules and plans.
"""

from __future__ import annotations

import multiprocessing
import pickle
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path

from auditor.redact import Redactor
from auditor.rules_loader import RuleSet
from auditor.run.inputs import STDIN, expand, is_url
from auditor.run.jobs import PARALLEL_MIN_BYTES, Job
from auditor.run.worker import PartAudit, audit_jobs, batches, freeze_heap, serve

Numbered = tuple[int, Job]
Audited = Iterator[tuple[Numbered, PartAudit]]  # each numbered job with its audit

# Spawned, not forked: this process has polars' threads running, and a forked child of a
# threaded process can deadlock.
SPAWN = multiprocessing.get_context("spawn")

AHEAD = 256  # batches this process may audit past the oldest one a worker still holds


@dataclass
class _Queue:
    """The batches in job order, taken under one lock by this process's auditing thread and by
    the thread that feeds the workers; what each batch gave, held until it is its turn."""

    batches: Iterator[list[Numbered]]
    lock: threading.Condition = field(default_factory=threading.Condition)
    taken: int = 0  # batches handed out, numbered from 0 in job order
    exhausted: bool = False
    stopped: bool = False
    failed: BaseException | None = None
    done: dict[int, list[tuple[Numbered, PartAudit]]] = field(default_factory=dict)

    def take(self) -> tuple[int, list[Numbered]] | None:
        """The next batch and its number; None when there is none left (or the scan stops)."""
        with self.lock:
            if self.exhausted or self.stopped or self.failed is not None:
                return None
            batch = next(self.batches, None)  # planned here, as the batches are wanted
            if batch is None:
                self.exhausted = True
                self.lock.notify_all()
                return None
            self.taken += 1
            return self.taken - 1, batch

    def finish(self, number: int, batch: list[Numbered], audits: list[PartAudit]) -> None:
        with self.lock:
            self.done[number] = list(zip(batch, audits, strict=True))
            self.lock.notify_all()

    def fail(self, error: BaseException) -> None:
        with self.lock:
            if self.failed is None and not self.stopped:
                self.failed = error
            self.lock.notify_all()


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    connection: Connection
    batch: tuple[int, list[Numbered]] | None = None  # the batch it is auditing


class Workers:
    """Worker processes started before they are given work (``start_early``)."""

    def __init__(self, count: int) -> None:
        self.waiting = [_start() for _ in range(count)]

    def take(self) -> list[_Worker]:
        taken, self.waiting = self.waiting, []
        return taken

    def close(self) -> None:
        """End the workers not taken: each reads the end of its pipe and returns."""
        left = self.take()
        for worker in left:
            worker.connection.close()
        for worker in left:
            _end(worker)


def start_early(paths: list[str | Path], jobs: int) -> Workers | None:
    """``jobs`` - 1 workers for a scan of ``paths``, started now, when the files hold at least
    PARALLEL_MIN_BYTES (walked only until they do) and so will be shared; else None. A scan
    that finds less to read (an incremental one, say) closes them unused."""
    if jobs < 2:
        return None
    size = 0
    local = [given for given in paths if not is_url(given) and str(given) != STDIN]
    for path, _ in expand(local):
        try:
            size += path.stat().st_size if path is not None else 0
        except OSError:
            continue
        if size >= PARALLEL_MIN_BYTES:
            return Workers(jobs - 1)
    return None


def shared(
    work: Iterable[Numbered],
    jobs: int,
    rules: RuleSet,
    redactor: Redactor,
    parts: Path,
    early: Workers | None = None,
) -> Audited:
    """The jobs audited by this process and ``jobs`` - 1 workers (those started ``early``,
    else spawned now), yielded in order. A worker that fails, or dies, fails the scan;
    stopping early (an error here) stops the workers."""
    queue = _Queue(batches(work))
    # Pickled here, before this process audits anything: auditing fills caches in the rules.
    setup = pickle.dumps((rules, redactor, parts), protocol=pickle.HIGHEST_PROTOCOL)
    workers = early.take() if early is not None else []
    workers += [_start() for _ in range(jobs - 1 - len(workers))]
    for worker in workers:
        # Each worker's first batch is its own: it is sent with the rules, and so waits for
        # the worker's start-up, not for this process to finish a batch.
        worker.batch = queue.take()
    feeder = threading.Thread(
        target=_feed, args=(queue, workers, setup), name="auditor-feeder", daemon=True
    )
    feeder.start()
    freeze_heap()
    following = 0  # the number of the next batch to yield
    completed = False
    try:
        while True:
            with queue.lock:
                if queue.failed is not None:
                    raise queue.failed
                ready = []
                while following in queue.done:
                    ready.append(queue.done.pop(following))
                    following += 1
                finished = queue.exhausted and following == queue.taken
                blocked = queue.exhausted or queue.taken - following >= AHEAD
                if not ready and blocked and not finished:
                    queue.lock.wait()  # for a worker's batch to come back (or fail)
                    continue
            for audited in ready:
                yield from audited
            if finished:
                completed = True
                break
            if not blocked and (taken := queue.take()) is not None:
                number, batch = taken
                audits = list(audit_jobs(batch, rules, redactor, parts, "scan:part-written"))
                queue.finish(number, batch, audits)
    finally:
        with queue.lock:
            queue.stopped = True
        _stop(workers, feeder, completed)


def _start() -> _Worker:
    """A worker process, started; it waits for the rules (sent by the feeder, as sending them
    waits for the worker's imports)."""
    mine, theirs = SPAWN.Pipe()
    process = SPAWN.Process(target=serve, args=(theirs,), name="auditor-worker", daemon=True)
    process.start()
    theirs.close()
    return _Worker(process, mine)


def _feed(queue: _Queue, workers: list[_Worker], setup: bytes) -> None:
    """In a thread: the rules (``setup``) to each worker, then a batch at a time to whichever
    is free, and what each gave back into the queue; a worker that fails or dies fails the
    queue."""
    try:
        for worker in workers:
            worker.connection.send_bytes(setup)
            worker.connection.send(None if worker.batch is None else worker.batch[1])
        busy = [worker for worker in workers if worker.batch is not None]
        while busy:
            by_handle = {}
            for worker in busy:
                by_handle[worker.connection] = by_handle[worker.process.sentinel] = worker
            for handle in wait(list(by_handle), timeout=1.0):
                worker = by_handle[handle]
                if worker.batch is None:
                    continue  # its answer and its end came together
                if handle is worker.process.sentinel and not worker.connection.poll():
                    code = worker.process.exitcode
                    raise RuntimeError(f"a worker process ended while auditing (exit code {code})")
                status, answer = worker.connection.recv()
                if status != "done":
                    queue.fail(answer)  # the worker's own error, raised by the scan
                    return
                number, batch = worker.batch
                queue.finish(number, batch, answer)
                _give(queue, worker)
            busy = [worker for worker in busy if worker.batch is not None]
            with queue.lock:
                if queue.stopped:
                    return
    except (EOFError, ConnectionError) as exc:  # the pipe to a worker broke: it died
        queue.fail(RuntimeError(f"a worker process ended while auditing ({exc!r})"))
    except BaseException as exc:
        queue.fail(exc)


def _give(queue: _Queue, worker: _Worker) -> None:
    """The next batch to a worker, or None (its end) when there is none left."""
    worker.batch = queue.take()
    worker.connection.send(None if worker.batch is None else worker.batch[1])


def _stop(workers: list[_Worker], feeder: threading.Thread, completed: bool) -> None:
    """Every worker ended (told to stop by the feeder once the batches are done, terminated
    when the scan stopped early or failed), the feeder ended and the pipes closed."""
    if not completed:
        for worker in workers:
            worker.process.terminate()
    feeder.join()
    for worker in workers:
        _end(worker)
        worker.connection.close()


def _end(worker: _Worker) -> None:
    """Wait a little for a worker told to end, then kill it if it has not."""
    worker.process.join(timeout=5)
    if worker.process.exitcode is None:
        worker.process.kill()
        worker.process.join()
