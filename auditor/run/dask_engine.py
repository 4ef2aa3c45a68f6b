"""The same per-file audit on a Dask cluster, and inputs named by fsspec URLs.

``auditor scan s3://logs/2026-11-29/ --engine dask --scheduler tcp://scheduler:8786`` sends one
task per file (or span of a large local file) to the cluster; each task reads and audits its
file exactly as a local worker does and sends back its rows and rejects as polars tables,
which this process writes as the same parquet parts the local engine writes. So both engines
give the same calls table. Dask and fsspec are an optional extra: ``pip install
'transcript-auditor[dask]'``.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

    from auditor.redact import Redactor
    from auditor.rules_loader import RuleSet
    from auditor.run.local import Job, PartAudit

MISSING = (
    "the dask engine and URL inputs need the optional extra: pip install 'transcript-auditor[dask]'"
)


def available() -> bool:
    """Are Dask and fsspec installed (the ``dask`` extra)?"""
    import importlib.util

    return all(importlib.util.find_spec(name) for name in ("distributed", "fsspec"))


def is_url(name: str | Path) -> bool:
    """An input named by a URL (``s3://…``, ``gs://…``, ``file://…``) rather than a path."""
    return "://" in str(name)


def _fsspec() -> Any:
    try:
        import fsspec
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise RuntimeError(MISSING) from exc
    return fsspec


def expand_url(url: str) -> Iterator[str]:
    """The files under a URL (a folder is walked in sorted order, hidden entries left out),
    each as a full URL."""
    fs, root = _fsspec().core.url_to_fs(url)
    if not fs.isdir(root):
        yield url
        return
    for found in sorted(fs.find(root)):
        relative = found[len(root.rstrip("/")) + 1 :]
        if not any(part.startswith(".") for part in relative.split("/")):
            yield fs.unstrip_protocol(found)


@contextlib.contextmanager
def fetched(url: str) -> Iterator[Path]:
    """A local copy of the file at ``url`` for the readers (which detect formats and
    compression from the bytes), removed afterwards; the name keeps the file's suffixes."""
    name = url.rstrip("/").rsplit("/", 1)[-1]
    with tempfile.TemporaryDirectory(prefix="auditor-fetch-") as folder:
        local = Path(folder) / (name or "input")
        with _fsspec().open(url, "rb") as remote, open(local, "wb") as copy:
            shutil.copyfileobj(remote, copy, 1 << 20)
        yield local


def _audit_task(
    job: Job, rules: RuleSet, redactor: Redactor
) -> tuple[pl.DataFrame, pl.DataFrame, PartAudit]:
    """Run on a Dask worker: one job's rows and rejects as tables."""
    from auditor.output.tables import calls_frame, rejects_frame
    from auditor.run.local import audit_rows

    rows, rejects, audit = audit_rows(job, rules, redactor)
    return calls_frame(rows), rejects_frame(rejects), audit


def run(
    work: list[tuple[int, Job]],
    rules: RuleSet,
    redactor: Redactor,
    parts: Path,
    scheduler: str | None,
) -> Iterator[PartAudit]:
    """Audit every job on the cluster at ``scheduler`` (a new local cluster when None) and
    write each result as the parts the local engine writes; yields the audits in job order."""
    from auditor.run.local import write_part

    try:
        from distributed import Client, as_completed
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise RuntimeError(MISSING) from exc
    client = Client(scheduler) if scheduler else Client(processes=True, threads_per_worker=1)
    with client:
        shared_rules, shared_redactor = client.scatter([rules, redactor], broadcast=True)
        futures = {
            client.submit(_audit_task, job, shared_rules, shared_redactor, pure=False): index
            for index, job in work
        }
        finished: dict[int, PartAudit] = {}
        following = 0
        for future in as_completed(futures):
            index = futures[future]
            calls, rejects, audit = future.result()
            write_part(parts, index, calls, rejects)
            finished[index] = audit
            future.release()
            while following < len(work) and work[following][0] in finished:
                yield finished.pop(work[following][0])
                following += 1
