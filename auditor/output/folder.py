"""The run folder: the one layout of a scan's output (calls, findings, rejects, summary,
resolved; a dated partition of a dataset of runs), to write it, find the latest run and load
it."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import polars as pl

from auditor.output.baseline import PARTITION_PREFIX
from auditor.output.result import ScanResult
from auditor.output.tables import write_frame, write_outputs


def run_folder(out: Path, partition_by_date: bool, run_date: date) -> Path:
    """Where this run's tables go: ``out``, or its partition ``run_date=YYYY-MM-DD``."""
    return out / f"{PARTITION_PREFIX}{run_date.isoformat()}" if partition_by_date else out


def write_run(
    folder: Path,
    result: ScanResult,
    summary: dict[str, Any],
    fmt: str,
    partition_by_date: bool = False,
) -> list[Path]:
    """The run's tables in ``folder``; ``resolved.<fmt>`` when a baseline was compared.

    In a partitioned dataset the calls table is the only parquet file of a partition, so that
    ``pl.scan_parquet("DIR/**/*.parquet")`` reads calls and nothing else: findings and
    resolved are written as JSON lines beside it.
    """
    side = "jsonl" if partition_by_date and fmt == "parquet" else fmt
    written = write_outputs(
        folder, result.lazy_calls, result.lazy_rejects, summary, fmt, findings_format=side
    )
    if result.resolved is not None:
        path = folder / f"resolved.{side}"
        resolved = result.resolved
        if side == "csv":  # csv holds no nested values
            resolved = resolved.select(pl.exclude(pl.List, pl.Struct))
        write_frame(resolved, path, side)
        written.append(path)
    return written
