"""The workers' parts made into the scan's tables: small parts merged in order, and calls read
again from another file (the same conversation and call id) left out."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from auditor.faults import fault
from auditor.output.columns import CALLS_SCHEMA
from auditor.run.worker import part_path

REPEATED = "tool call already audited from another file (same conversation and call id)"


FIRST_SOURCE = "__first_source"


KEY_HASH = "__key_hash"


CONVERSATION_HASH = "__conversation_hash"


def _key_hash() -> pl.Expr:
    """A call's key (conversation and call id), compared by hash."""
    return pl.struct("conversation_id", "tool_call_id").hash()


def _source_hash() -> pl.Expr:
    """A call's file, compared by hash."""
    return pl.col("source").hash()


def first_sources(calls: pl.LazyFrame) -> pl.DataFrame | None:
    """The file each call of a conversation found in more than one file was first read from
    (by hash of its key and of the file's name); None when no conversation is, the usual case.

    Only conversations found in more than one file can hold calls read again; they are found
    first (one small row per conversation and file), so that the usual case costs one pass and
    memory that does not grow with the number of calls."""
    conversation = pl.col("conversation_id").hash()
    shared = (
        calls.select(conversation.alias(CONVERSATION_HASH), _source_hash().alias(FIRST_SOURCE))
        .unique()
        .group_by(CONVERSATION_HASH)
        .len()
        .filter(pl.col("len") > 1)
        .select(CONVERSATION_HASH)
        .collect()
    )
    if shared.height == 0:
        return None
    return (
        calls.filter(conversation.is_in(shared[CONVERSATION_HASH].implode()))
        .select(_key_hash().alias(KEY_HASH), _source_hash().alias(FIRST_SOURCE))
        .unique(subset=KEY_HASH, keep="first", maintain_order=True)
        .collect()
    )


def without_repeated(calls: pl.LazyFrame, first: pl.DataFrame) -> pl.LazyFrame:
    """``calls`` less those read from another file than the one ``first`` says held them
    first; a row at a time, so that any slice of the calls can be filtered on its own."""
    return (
        calls.with_columns(_key_hash().alias(KEY_HASH))
        .join(first.lazy(), on=KEY_HASH, how="left", maintain_order="left")
        .filter(pl.col(FIRST_SOURCE).is_null() | (_source_hash() == pl.col(FIRST_SOURCE)))
        .drop(KEY_HASH, FIRST_SOURCE)
    )


PART_ROWS = 1_000  # smaller parts are merged, in order, into parts of at least this many rows


def settle(parts: Path, table: str, numbers: list[int], rows: list[int]) -> list[Path]:
    """The part files of one table (``calls`` or ``rejects``), in order, with ``rows`` rows
    each: runs of small parts merged into parts of at least PART_ROWS rows and empty ones
    dropped, since a reader or writer holds something for every file and every small batch (a
    folder of one-conversation files gives thousands). One merged part is held at a time."""
    settled: list[Path] = []
    run: list[Path] = []
    held = 0
    for number, n in zip(numbers, rows, strict=True):
        path = part_path(parts, table, number)
        if n == 0:
            path.unlink(missing_ok=True)  # an empty part is seldom written at all
            continue
        run.append(path)
        held += n
        if held >= PART_ROWS:
            settled.append(_merged(run))
            run, held = [], 0
    if run:
        settled.append(_merged(run))
    return settled


def _merged(run: list[Path]) -> Path:
    """One part for a run of parts, in the first one's file."""
    if len(run) > 1:
        pl.concat([pl.read_parquet(path) for path in run]).write_parquet(run[0])
        fault("parts:merged")
        for path in run[1:]:
            path.unlink()
    return run[0]


def leave_out_repeated(calls_parts: list[Path]) -> int:
    """Rewrite the parts without the calls an earlier file already held (a log copied into a
    longer one, the same benchmark run exported twice; ids repeated inside one file are kept),
    one part at a time; how many calls were left out."""
    first = first_sources(pl.scan_parquet(calls_parts, schema=CALLS_SCHEMA))
    if first is None:
        return 0
    left_out = 0
    for path in calls_parts:
        part = pl.read_parquet(path)
        kept = without_repeated(part.lazy(), first).collect()
        if kept.height < part.height:
            kept.write_parquet(path)
            fault("parts:repeats-left-out")
            left_out += part.height - kept.height
    return left_out
