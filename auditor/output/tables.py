"""The calls table as frames, and its writers: each table written whole or not at all."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import orjson
import polars as pl

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


def _atomic(path: Path, write) -> None:
    """Write to a temporary name beside ``path`` and move it into place."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_frame(frame: Table, path: Path, fmt: str) -> None:
    """Write a table atomically; a LazyFrame is streamed to the file, never held whole."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    lazy = frame.lazy()
    sinks = {
        # Row groups of ROW_GROUP rows: what the writer (and any reader) holds at once.
        "parquet": lambda tmp: lazy.sink_parquet(tmp, row_group_size=ROW_GROUP),
        "jsonl": lazy.sink_ndjson,
        "csv": lazy.sink_csv,
    }
    _atomic(path, sinks[fmt])


def write_outputs(
    out: Path,
    calls: Table,
    rejects: Table,
    summary: dict[str, Any],
    fmt: str,
    findings_format: str | None = None,
) -> list[Path]:
    """calls.<fmt>, findings.<findings_format or fmt>, rejects.jsonl and summary.json in
    ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, frame, kind in (
        ("calls", calls, fmt),
        ("findings", findings(calls), findings_format or fmt),
    ):
        path = out / f"{name}.{kind}"
        write_frame(frame, path, kind)
        written.append(path)
    rejects_path = out / "rejects.jsonl"
    write_frame(rejects, rejects_path, "jsonl")
    summary_path = out / "summary.json"
    _atomic(
        summary_path,
        lambda tmp: Path(tmp).write_bytes(
            orjson.dumps(summary, option=orjson.OPT_INDENT_2) + b"\n"
        ),
    )
    return [*written, rejects_path, summary_path]


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
