"""The run folder: the one layout of a scan's output (calls, findings, rejects, summary,
resolved; a dated partition of a dataset of runs), to write it, find the latest run and load
it."""

from __future__ import annotations

import contextlib
import glob
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import polars as pl

from auditor.output.columns import CALLS_SCHEMA
from auditor.output.result import ScanResult
from auditor.output.tables import FORMATS, read_calls, staged, write_frame, write_outputs


def run_folder(out: Path, partition_by_date: bool, run_date: date) -> Path:
    """Where this run's tables go: ``out``, or its partition ``run_date=YYYY-MM-DD``."""
    return out / f"{PARTITION_PREFIX}{run_date.isoformat()}" if partition_by_date else out


@contextlib.contextmanager
def staged_run(
    folder: Path,
    result: ScanResult,
    summary: dict[str, Any],
    fmt: str,
    partition_by_date: bool = False,
) -> Iterator[list[Path]]:
    """The run's tables written under temporary names in ``folder``, and ``resolved.<fmt>``
    when a baseline was compared; moved into place (the calls table last) when the block ends,
    removed when it raises, so that a run that fails leaves the folder as it was.

    In a partitioned dataset the calls table is the only parquet file of a partition, so that
    ``pl.scan_parquet("DIR/**/*.parquet")`` reads calls and nothing else: findings and
    resolved are written as JSON lines beside it.
    """
    side = "jsonl" if partition_by_date and fmt == "parquet" else fmt
    with staged() as staging:
        written = []
        if result.resolved is not None:
            path = folder / f"resolved.{side}"
            resolved = result.resolved
            if side == "csv":  # csv holds no nested values
                resolved = resolved.select(pl.exclude(pl.List, pl.Struct))
            write_frame(resolved, path, side, staging)
            written.append(path)
        calls, rejects = result.lazy_calls, result.lazy_rejects
        tables = write_outputs(staging, folder, calls, rejects, summary, fmt, side)
        yield tables + written


TABLE_NAMES = ("findings", "rejects")  # files beside a calls table that are not calls


def _typed(frame: pl.LazyFrame) -> pl.LazyFrame:
    """The calls table's declared types on the columns a file has, and the declared columns it
    lacks (an older run without ``timestamp``, say) as typed nulls."""
    present = frame.collect_schema()
    return frame.with_columns(
        [
            pl.col(name).cast(dtype) if name in present else pl.lit(None, dtype).alias(name)
            for name, dtype in CALLS_SCHEMA.items()
        ]
    )


def _scan_file(path: Path) -> pl.LazyFrame:
    if path.suffix == ".parquet":
        return pl.scan_parquet(path, hive_partitioning=False)
    if path.suffix == ".jsonl":
        return pl.scan_ndjson(path, schema=CALLS_SCHEMA)
    return pl.scan_csv(path, schema=CALLS_SCHEMA)


def calls_files(where: str | Path) -> list[Path]:
    """The calls tables under ``where``: an output folder, a folder of runs, or a glob."""
    text = str(where)
    if any(ch in text for ch in "*?["):
        found = [Path(p) for p in sorted(glob.glob(text, recursive=True))]
    else:
        folder = Path(where)
        if folder.is_file():
            return [folder]
        direct = [folder / f"calls.{fmt}" for fmt in FORMATS if (folder / f"calls.{fmt}").exists()]
        if direct:
            return direct[:1]
        found = sorted(p for fmt in FORMATS for p in folder.glob(f"**/calls.{fmt}"))
    # A glob such as DIR/**/*.parquet also matches the findings table beside each calls table,
    # whose rows are calls already counted.
    return [p for p in found if p.is_file() and p.stem not in TABLE_NAMES]


def _partitions(path: Path) -> dict[str, str]:
    """Hive partition values in a path: ``run_date=2026-03-02/calls.parquet``."""
    return dict(part.split("=", 1) for part in path.parent.parts if "=" in part)


def load(where: str | Path) -> pl.LazyFrame:
    """The calls table of a scan output folder, or of many runs (a folder of run folders,
    ``run_date=…`` partitions, or a glob), as one LazyFrame with the declared column types;
    partition values (``run_date``) become columns."""
    files = calls_files(where)
    if not files:
        raise FileNotFoundError(f"no calls table under {where}")
    frames = []
    for path in files:
        frame = _typed(_scan_file(path))
        for key, value in _partitions(path).items():
            frame = frame.with_columns(pl.lit(value).alias(key))
        frames.append(frame)
    calls = pl.concat(frames, how="diagonal_relaxed") if len(frames) > 1 else frames[0]
    if "run_date" in calls.collect_schema().names():
        calls = calls.with_columns(pl.col("run_date").str.to_date(strict=False))
    return calls


PARTITION_PREFIX = "run_date="


def latest_run(folder: str | Path) -> Path:
    """The folder of a run's tables: ``folder`` itself, or its latest ``run_date=`` partition;
    ``FileNotFoundError`` when it holds no calls table."""
    folder = Path(folder)
    if any((folder / f"calls.{fmt}").exists() for fmt in FORMATS):
        return folder
    partitions = sorted(
        p
        for p in folder.glob(f"{PARTITION_PREFIX}*")
        if any((p / f"calls.{fmt}").exists() for fmt in FORMATS)
    )
    if not partitions:
        raise FileNotFoundError(f"{folder}: no calls table (calls.parquet, .jsonl or .csv) found")
    return partitions[-1]


def scan_calls(where: Path) -> pl.LazyFrame:
    """A run's calls table, lazily when it is parquet (only its findings are kept)."""
    if (where / "calls.parquet").exists():
        return pl.scan_parquet(where / "calls.parquet")
    return read_calls(where).lazy()
