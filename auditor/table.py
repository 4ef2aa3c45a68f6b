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
}
SPEC_COLUMNS = list(CALLS_SCHEMA)[:10]
REJECTS_SCHEMA: dict[str, pl.DataType] = {
    "source": pl.String(),
    "line": pl.Int64(),
    "reason": pl.String(),
    "excerpt": pl.String(),
}
FORMATS = ("parquet", "jsonl", "csv")


def calls_frame(rows: Iterable[dict[str, Any]]) -> pl.DataFrame:
    return pl.DataFrame(list(rows), schema=CALLS_SCHEMA, orient="row")


def rejects_frame(rejects: Iterable[Reject]) -> pl.DataFrame:
    return pl.DataFrame([r.model_dump() for r in rejects], schema=REJECTS_SCHEMA, orient="row")


def findings(calls: pl.DataFrame) -> pl.DataFrame:
    return calls.filter(pl.col("finding").is_not_null())


def summarize(
    calls: pl.DataFrame,
    rejects: pl.DataFrame,
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

    def counts(column: str, vocabulary: Iterable[str]) -> dict[str, int]:
        found = dict(calls.group_by(column).len().iter_rows()) if calls.height else {}
        return {name: int(found.get(name, 0)) for name in vocabulary}

    found = findings(calls)
    return {
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "files": files,
        "conversations": conversations,
        "tool_calls": calls.height,
        "outcomes": counts("outcome", [o.value for o in Outcome]),
        "claims": counts("claim", [c.value for c in Claim]),
        "findings": counts("finding", [f.value for f in Finding]),
        "severity": {
            "critical": int(found.filter(pl.col("severity") == "critical").height),
            "warning": int(found.filter(pl.col("severity") == "warning").height),
        },
        "recovered": int(calls["recovered"].sum()) if calls.height else 0,
        "skipped_files": len(skipped),
        "skipped_by_reason": skipped_by_reason,
        "passed_over_by_reason": dict(passed_over or {}),
        "rejects": rejects.height,
        "rejects_by_reason": dict(
            rejects.group_by("reason").len().sort("len", descending=True).iter_rows()
        )
        if rejects.height
        else {},
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


def write_frame(frame: pl.DataFrame, path: Path, fmt: str) -> None:
    if fmt == "parquet":
        _atomic(path, frame.write_parquet)
    elif fmt == "jsonl":
        _atomic(path, frame.write_ndjson)
    elif fmt == "csv":
        _atomic(path, frame.write_csv)
    else:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")


def write_outputs(
    out: Path, calls: pl.DataFrame, rejects: pl.DataFrame, summary: dict[str, Any], fmt: str
) -> list[Path]:
    """calls.<fmt>, findings.<fmt>, rejects.jsonl and summary.json in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, frame in (("calls", calls), ("findings", findings(calls))):
        path = out / f"{name}.{fmt}"
        write_frame(frame, path, fmt)
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
