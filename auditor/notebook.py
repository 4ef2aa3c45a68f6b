"""Helpers that let a notebook read like analysis, not plumbing.

from auditor.output.folder import load

from auditor.notebook import sample_output, timeline
calls = load("out")                      # one scan's output folder, as a LazyFrame
calls = load("nightly/**/*.parquet")     # a dataset of runs (run_date=YYYY-MM-DD/ partitions)
timeline(calls, "chat-01-forbidden")     # a conversation's timeline, drawn inline as HTML

The timeline is the one the HTML report draws (``auditor.views.timeline``); the blast radius is
``auditor.views.incident.blast_radius``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import polars as pl

from auditor.output.folder import calls_files, load
from auditor.redact import Redactor
from auditor.run.pipeline import scan
from auditor.views.timeline import TIMELINE_CSS, Timeline, build, find_rows, to_html

SAMPLES = Path(__file__).resolve().parents[1] / "sample_transcripts"


def sample_output(out: str | Path | None = None) -> Path:
    """Scan the sample transcripts shipped beside the package into ``out`` (a temporary
    folder when not given) and return it: a notebook that works out of the box."""
    target = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="auditor-sample-"))
    scan([SAMPLES], out=target)
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
    redact_emails: bool = False,
    redact_entropy: bool = False,
) -> TimelineView:
    """The timeline of a conversation, a finding (by fingerprint) or a call, drawn inline; the
    transcript is re-read from the source file the table points at (under ``root``), its secrets
    masked as ``auditor show`` masks them."""
    rows, focus = find_rows(calls, key)
    return TimelineView(
        build(
            rows,
            focus=focus,
            root=Path(root) if root is not None else None,
            redactor=Redactor(enabled=redact, emails=redact_emails, entropy=redact_entropy),
            whole=whole,
        )
    )


__all__ = ["TimelineView", "calls_files", "load", "sample_output", "timeline"]
