"""What ``auditor bench`` prints: throughput against bare parsing, where the time goes, the
readers one by one, and many small files against a few."""

from __future__ import annotations

import os

from rich.console import Console
from rich.table import Table

from auditor.bench import OPEN_FILES, ManyFiles, Report


def _figures(title: str, *columns: str) -> Table:
    """A table of figures: the first column names a row, the others are right-aligned."""
    table = Table(title=title)
    for column in columns:
        table.add_column(column, justify="left" if column == columns[0] else "right")
    return table


def print_bench(console: Console, report: Report) -> None:
    """The measures of a corpus, its one-core scan by stage, and its readers."""
    table = _figures(
        f"{report.megabytes:.1f} MB, {report.conversations:,} conversations, "
        f"{report.calls:,} calls, {os.cpu_count()} core(s)",
        *("reading", "MB/s", "conversations/s", "× bare parsing", "peak RSS MB"),
    )
    for name, mb_s, conv_s, ratio, peak in report.rows():
        table.add_row(name, f"{mb_s:.1f}", f"{conv_s:,.0f}", f"{ratio:.3f}", f"{peak:.0f}")
    console.print(table)
    stages = _figures("Where the one-core scan's time goes", "stage", "seconds", "share")
    for name, seconds, share in report.stages():
        stages.add_row(name, f"{seconds:.2f}", f"{share:.0%}")
    console.print(stages)
    title = "Readers only, per reader (format detection left out)"
    formats = _figures(title, "reader", "MB", "MB/s")
    for name, megabytes, mb_s in report.formats():
        formats.add_row(name, f"{megabytes:.1f}", f"{mb_s:.1f}")
    console.print(formats)
    if report.generated_calls is not None:
        line = f"calls in the table: {report.calls:,} of {report.generated_calls:,} generated"
        console.print(line, markup=False)


def print_many_files(console: Console, found: ManyFiles) -> None:
    """Many tiny files against the same conversations in a few: time, calls, memory."""
    table = _figures(
        f"{found.files:,} conversations, {found.megabytes:.1f} MB, one core, "
        f"at most {OPEN_FILES} open files",
        *("layout", "seconds", "conversations/s", "calls", "peak RSS MB"),
    )
    for name, measured in ((f"{found.files:,} files", found.many), ("8 files", found.few)):
        table.add_row(
            name,
            f"{measured.seconds:.1f}",
            f"{found.files / measured.seconds:,.0f}",
            f"{measured.calls or 0:,} of {found.calls:,}",
            f"{measured.peak_mb:.0f}",
        )
    console.print(table)
    console.print(f"peak memory, many files / few: {found.memory_ratio:.2f}", markup=False)
