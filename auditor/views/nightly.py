"""A nightly run put together: where its tables go, what fails it, what it prints.

The pieces are library functions a notebook can call too: ``incremental.scan_incremental``,
``suppress.apply_suppressions``, ``baseline.compare``; this module writes the result (as a
dated partition when asked), decides the exit status, and renders the nightly parts of the
report (new, resolved, signatures, expired suppressions) and ``auditor diff``.
"""

from __future__ import annotations

import time
from datetime import date
from pathlib import Path
from types import TracebackType
from typing import Any

import polars as pl
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from auditor.output.baseline import PARTITION_PREFIX
from auditor.output.result import ScanResult
from auditor.output.tables import write_frame, write_outputs
from auditor.views.terminal import safe

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_PARTLY_UNREADABLE, EXIT_INTERNAL = 0, 1, 2, 3, 4
LEVELS = {"critical": ("critical",), "warning": ("critical", "warning"), "never": ()}


class ProgressBar:
    """A progress bar for long scans: shown on a terminal only (never in cron or a pipe), and
    only once a scan has run for ``after`` seconds, so short scans print nothing extra."""

    def __init__(self, console: Console, enabled: bool = True, after: float = 2.0) -> None:
        self.console, self.after = console, after
        self.enabled = enabled and console.is_terminal
        self.started = time.monotonic()
        self.bar: Progress | None = None
        self.task: Any = None

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self.bar is None and time.monotonic() - self.started >= self.after:
            self.bar = Progress(
                TextColumn("auditing"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=self.console,
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task("files", total=total)
        if self.bar is not None:
            self.bar.update(self.task, completed=done, total=total)

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self.bar is not None:
            self.bar.stop()


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


def exit_status(summary: dict[str, Any], fail_on: str, only_new: bool = False) -> int:
    """The documented exit status of a scan (see the README's table).

    Suppressed findings never count. With ``only_new``, only new findings and new signatures
    at or above ``fail_on`` do (without a baseline every finding is new)."""
    levels = LEVELS[fail_on]
    if only_new and "baseline" in summary:
        known = summary["baseline"]
        failing = any(
            known["new_by_severity"][s] or known["new_signatures_by_severity"][s] for s in levels
        )
    else:
        failing = any(summary["severity"][s] for s in levels)
    if failing:
        return EXIT_FINDINGS
    if summary["rejects"]:
        return EXIT_PARTLY_UNREADABLE
    return EXIT_OK


def print_nightly(console: Console, summary: dict[str, Any]) -> None:
    """The nightly lines of the report: what was read, what is new, what was resolved."""
    reading = summary.get("reading")
    if reading and reading.get("state"):
        why = ", ".join(f"{reason} ×{n}" for reason, n in reading["read_whole_because"].items())
        console.print(
            f"Read {reading['lines_read']:,} line(s), {reading['bytes_read']:,} byte(s): "
            f"{reading['files_read_whole']} file(s) whole" + (f" ({why})" if why else "") + ", "
            f"{reading['files_appended']} appended to (new lines only), "
            f"{reading['files_unchanged']} unchanged (not read).",
            highlight=False,
        )
    known = summary.get("baseline")
    if known:
        found, signatures = known["findings"], known["signatures"]
        if known["generated_at"] is None:
            console.print(
                f"No previous run in {known['folder']}: every finding is new.", highlight=False
            )
        console.print(
            f"Against the baseline {known['folder']}: {found['new']} new finding(s), "
            f"{found['persisting']} persisting, {found['resolved']} resolved; "
            f"{signatures['new']} new signature(s), {signatures['known']} known.",
            highlight=False,
        )
        new_signatures = [s for s in summary.get("signatures", []) if s.get("status") == "new"]
        for entry in new_signatures[:20]:
            console.print(
                "  new signature ", safe(entry["signature"]), f"  ×{entry['count']}", sep=""
            )
    suppressions = summary.get("suppressions")
    if suppressions:
        console.print(
            f"{suppressions['suppressed_findings']} finding(s) suppressed by "
            f"{suppressions['file']}.",
            highlight=False,
        )
        for entry in suppressions["expired"]:
            console.print(
                f"[yellow]expired suppression[/yellow] #{entry['entry']} "
                f"(expired {entry['expires']}, matches {entry['findings']} finding(s)): ",
                safe(entry["reason"]),
                sep="",
            )


def print_diff(console: Console, diff: dict[str, Any]) -> None:
    """``auditor diff``: the new findings, the resolved ones, the new signatures."""
    section = diff["baseline"]
    found = section["findings"]
    console.print(
        f"{diff['old']} → {diff['new']}: {found['new']} new finding(s), "
        f"{found['persisting']} persisting, {found['resolved']} resolved; "
        f"{section['signatures']['new']} new signature(s), "
        f"{section['signatures']['known']} known.",
        highlight=False,
    )
    for title, frame in (
        ("New findings", diff["findings"].filter(pl.col("baseline") == "new")),
        ("Resolved findings", diff["resolved"]),
    ):
        if not frame.height:
            continue
        table = Table(title=title)
        table.add_column("fingerprint", no_wrap=True)
        for column in ("finding", "conversation_id", "tool_name", "where"):
            table.add_column(column, overflow="fold")
        if "resolution" in frame.columns:
            table.add_column("resolution", no_wrap=True)
        for row in frame.iter_rows(named=True):
            cells = [
                safe(row["fingerprint"]),
                safe(row["finding"]),
                safe(row["conversation_id"]),
                safe(row["tool_name"]),
                safe(f"{row['source']}:{row['line']}"),
            ]
            if "resolution" in frame.columns:
                cells.append(safe(row["resolution"]))
            table.add_row(*cells)
        console.print(table)
    new_signatures = [s for s in diff["signatures"] if s.get("status") == "new"]
    for entry in new_signatures:
        console.print("new signature ", safe(entry["signature"]), f"  ×{entry['count']}", sep="")
