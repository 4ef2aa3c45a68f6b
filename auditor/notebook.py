"""Helpers that let a notebook read like analysis, not plumbing.

from auditor.notebook import load, sample_output, timeline
calls = load("out")                      # one scan's output folder, as a LazyFrame
calls = load("nightly/**/*.parquet")     # a dataset of runs (run_date=YYYY-MM-DD/ partitions)
timeline(calls, "chat-01-forbidden")     # a conversation's timeline, drawn inline as HTML

The timeline is the one the HTML report draws (``auditor.views.timeline``); the blast radius is
``auditor.views.incident.blast_radius``.
"""

from __future__ import annotations

import glob
import tempfile
from pathlib import Path

import polars as pl

from auditor.output.tables import CALLS_SCHEMA, FORMATS
from auditor.redact import Redactor
from auditor.views.timeline import TIMELINE_CSS, Timeline, build, find_rows, to_html

SAMPLES = Path(__file__).resolve().parents[1] / "sample_transcripts"
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


def sample_output(out: str | Path | None = None) -> Path:
    """Scan the sample transcripts shipped beside the package into ``out`` (a temporary
    folder when not given) and return it: a notebook that works out of the box."""
    from auditor.output.tables import write_outputs
    from auditor.run.local import scan

    target = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="auditor-sample-"))
    result = scan([SAMPLES])
    write_outputs(target, result.calls, result.rejects, result.summary(), "parquet")
    return target


class TimelineView:
    """A timeline that Jupyter draws as HTML (and prints as its title elsewhere)."""

    def __init__(self, timeline: Timeline) -> None:
        self.timeline = timeline

    def _repr_html_(self) -> str:
        return f"<style>{TIMELINE_CSS}</style>{to_html(self.timeline)}"

    def __repr__(self) -> str:
        return f"<timeline of {self.timeline.title}: {len(self.timeline.steps)} steps>"


def timeline(
    calls: pl.DataFrame | pl.LazyFrame,
    key: str,
    *,
    root: str | Path | None = None,
    whole: bool = False,
    redact: bool = True,
) -> TimelineView:
    """The timeline of a conversation, a finding (by fingerprint) or a call, drawn inline; the
    transcript is re-read from the source file the table points at (under ``root``)."""
    rows, focus = find_rows(calls, key)
    return TimelineView(
        build(
            rows,
            focus=focus,
            root=Path(root) if root is not None else None,
            redactor=Redactor(enabled=redact),
            whole=whole,
        )
    )


__all__ = ["TimelineView", "calls_files", "load", "sample_output", "timeline"]
