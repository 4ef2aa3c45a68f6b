"""The tables of a scan, as lazy frames over the parts the workers wrote, and its summary."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from auditor.output.summary import summarize
from auditor.output.tables import findings


@dataclass
class ScanResult:
    """The calls table of a scan and what could not be read.

    The tables are polars LazyFrames over the parts the workers wrote, so that writing them out
    streams and memory does not grow with the input; ``calls``, ``rejects`` and ``findings``
    collect them into DataFrames for a notebook or a test.
    """

    lazy_calls: pl.LazyFrame
    lazy_rejects: pl.LazyFrame
    files: int
    conversations: int
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (source, why)
    passed_over: dict[str, int] = field(default_factory=dict)  # reason -> lines or records
    parts: Any = None  # the temporary folder of parts, removed when the result is dropped
    # The scan's own tables as their parquet part files, in order: "calls" and "rejects" (an
    # incremental run carries and saves them part by part).
    part_files: dict[str, list[Path]] = field(default_factory=dict)
    # What each source gave besides rows, (conversations, passed_over), when the scan was asked
    # for it (for the state file).
    by_source: dict[str, tuple[int, dict[str, int]]] = field(default_factory=dict)
    # More summary sections: reading (incremental), suppressions, baseline, signatures.
    sections: dict[str, Any] = field(default_factory=dict)
    resolved: pl.DataFrame | None = None  # baseline findings gone in this scan
    folder: Path | None = None  # the run folder the tables were written to, if any
    exit_status: int | None = None  # the documented exit status, once the pipeline decided it
    run_summary: dict[str, Any] | None = None  # the summary the pipeline wrote and judged

    @functools.cached_property
    def calls(self) -> pl.DataFrame:
        return self.lazy_calls.collect()

    @functools.cached_property
    def rejects(self) -> pl.DataFrame:
        return self.lazy_rejects.collect()

    @property
    def findings(self) -> pl.DataFrame:
        if "calls" in self.__dict__:
            return findings(self.calls)
        return findings(self.lazy_calls).collect()

    def summary(self) -> dict[str, Any]:
        summary = summarize(
            self.lazy_calls,
            self.lazy_rejects,
            files=self.files,
            conversations=self.conversations,
            skipped=self.skipped,
            passed_over=self.passed_over,
        )
        return {**summary, **self.sections}
