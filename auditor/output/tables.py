"""The calls table: its schema declared once, the writers, and the run summary."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import polars as pl

from auditor.model import Claim, Finding, Outcome, Reject
from auditor.output.fingerprint import signature_summary

# The spec's public columns first, then the explanations this tool adds.
CALLS_SCHEMA: dict[str, pl.DataType] = {
    "conversation_id": pl.String(),
    "tool_call_id": pl.String(),
    "tool_name": pl.String(),
    "outcome": pl.String(),
    "claim": pl.String(),
    "recovered": pl.Boolean(),
    "finding": pl.String(),
    "severity": pl.String(),
    "source": pl.String(),
    "line": pl.Int64(),
    "format": pl.String(),
    "server": pl.String(),
    "turn": pl.Int64(),
    "call_line": pl.Int64(),
    "outcome_rule": pl.String(),
    "evidence": pl.String(),
    "evidence_pointer": pl.String(),
    "claim_cue": pl.String(),
    "claim_sentence": pl.String(),
    "language": pl.String(),
    "recovered_by": pl.String(),
    "note": pl.String(),
    "timestamp": pl.Datetime("us", "UTC"),
    "user_id": pl.String(),
    "impact": pl.String(),
    # Nightly runs (issue 7, auditor/fingerprint.py, suppress.py, baseline.py):
    "fingerprint": pl.String(),  # a finding's identity across runs
    "signature": pl.String(),  # a failing call's failure pattern
    "suppressed": pl.Boolean(),  # the finding matches an entry of the suppressions file
    "baseline": pl.String(),  # "new" or "persisting" against --baseline
}
SPEC_COLUMNS = list(CALLS_SCHEMA)[:10]
REJECTS_SCHEMA: dict[str, pl.DataType] = {
    "source": pl.String(),
    "line": pl.Int64(),
    "offset": pl.Int64(),
    "reason": pl.String(),
    "excerpt": pl.String(),
}
FORMATS = ("parquet", "jsonl", "csv")
ROW_GROUP = 50_000  # rows per parquet row group


def calls_frame(rows: Iterable[dict[str, Any]]) -> pl.DataFrame:
    return pl.DataFrame(list(rows), schema=CALLS_SCHEMA, orient="row")


def rejects_frame(rejects: Iterable[Reject]) -> pl.DataFrame:
    return pl.DataFrame([r.model_dump() for r in rejects], schema=REJECTS_SCHEMA, orient="row")


Table = pl.DataFrame | pl.LazyFrame


def findings(calls: Table) -> Table:
    return calls.filter(pl.col("finding").is_not_null())


def summarize(
    calls: Table,
    rejects: Table,
    *,
    files: int,
    conversations: int,
    skipped: list[tuple[str, str]] | None = None,
    passed_over: dict[str, int] | None = None,
) -> dict[str, Any]:
    """Counts by outcome, claim, finding and severity, and what could not be read."""
    skipped = skipped or []
    skipped_by_reason: dict[str, int] = {}
    for _, reason in skipped:
        skipped_by_reason[reason] = skipped_by_reason.get(reason, 0) + 1

    calls, rejects = calls.lazy(), rejects.lazy()

    def counted(frame: pl.LazyFrame, column: str) -> dict[str, int]:
        """Rows per value of a column (the tables are read once per count, never held)."""
        return {
            str(name): int(n)
            for name, n in frame.group_by(column).len().collect().iter_rows()
            if name is not None
        }

    def counts(column: str, vocabulary: Iterable[str]) -> dict[str, int]:
        found = counted(calls, column)
        return {name: found.get(name, 0) for name in vocabulary}

    totals = calls.select(pl.len(), pl.col("recovered").sum()).collect().row(0)
    # Suppressed findings stay in the table but count for no alert.
    suppressed = pl.col("suppressed").fill_null(False)
    severity = counted(findings(calls).filter(~suppressed), "severity")
    n_suppressed = findings(calls).filter(suppressed).select(pl.len()).collect().item()
    generated_at = datetime.now(UTC).isoformat(timespec="seconds")
    by_reason = counted(rejects, "reason")
    return {
        "generated_at": generated_at,
        "files": files,
        "conversations": conversations,
        "tool_calls": int(totals[0]),
        "outcomes": counts("outcome", [o.value for o in Outcome]),
        "claims": counts("claim", [c.value for c in Claim]),
        "findings": counts("finding", [f.value for f in Finding]),
        "severity": {name: severity.get(name, 0) for name in ("critical", "warning")},
        "suppressed": int(n_suppressed),
        "recovered": int(totals[1] or 0),
        "skipped_files": len(skipped),
        "skipped_by_reason": skipped_by_reason,
        "passed_over_by_reason": dict(passed_over or {}),
        "rejects": sum(by_reason.values()),
        "rejects_by_reason": dict(sorted(by_reason.items(), key=lambda item: -item[1])),
        "signatures": signature_summary(calls, generated_at),
    }


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
