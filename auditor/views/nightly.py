"""The nightly parts of what a scan prints (what was read, new, resolved, signatures, expired
suppressions), ``auditor diff``, and the progress bar of long scans."""

from __future__ import annotations

import time
from types import TracebackType
from typing import Any

import polars as pl
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from auditor.output.result import ScanResult
from auditor.views.terminal import print_summary, safe


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


def print_scan(console: Console, result: ScanResult, output_format: str) -> None:
    """What ``auditor scan`` prints: the summary, the findings, the nightly lines and what was
    written."""
    summary = result.run_summary or result.summary()
    print_summary(console, summary, result.lazy_calls)
    print_nightly(console, summary)
    if result.folder is not None:
        console.print(
            f"Wrote {result.folder}/calls.{output_format}, findings, rejects.jsonl, "
            "summary.json" + (", resolved" if result.resolved is not None else "")
        )
