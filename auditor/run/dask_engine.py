"""The same per-file audit on a Dask cluster.

``auditor scan s3://logs/2026-11-29/ --engine dask --scheduler tcp://scheduler:8786`` sends one
task per file (or span of a large local file) to the cluster; each task reads and audits its
file exactly as a local worker does and sends back its rows and rejects as polars tables,
which this process writes as the same parquet parts the local engine writes. So both engines
give the same calls table. Dask and fsspec are an optional extra: ``pip install
'transcript-auditor[dask]'``; URL inputs are in ``run/inputs.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import polars as pl

from auditor.output.tables import calls_frame, rejects_frame
from auditor.redact import Redactor
from auditor.rules_loader import RuleSet
from auditor.run.inputs import MISSING
from auditor.run.jobs import Job
from auditor.run.worker import PartAudit, audit_rows, freeze_heap, write_part


def _audit_task(
    job: Job, rules: RuleSet, redactor: Redactor
) -> tuple[pl.DataFrame, pl.DataFrame, PartAudit]:
    """Run on a Dask worker: one job's rows and rejects as tables."""
    freeze_heap()
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
