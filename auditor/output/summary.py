"""The run summary: counts by outcome, claim, finding and severity, what could not be read, and
the failure signatures, as written to summary.json and printed."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import polars as pl

from auditor.model import Claim, Finding, Outcome
from auditor.output.fingerprint import signature_summary
from auditor.output.tables import Table, findings


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

    totals = (
        calls.select(
            pl.len(),
            pl.col("recovered").sum(),
            pl.col("probe").sum(),
            pl.col("claim").is_not_null().sum(),
        )
        .collect()
        .row(0)
    )
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
        # Failed reads the assistant moved past with further calls: no unreported_failure.
        "probes": int(totals[2] or 0),
        # Claims are read only where a finding can follow (or everywhere with --claims all);
        # "claims.unread" counts replies in a language without a cue pack: a gap, not a pass.
        "claims_read": int(totals[3] or 0),
        "skipped_files": len(skipped),
        "skipped_by_reason": skipped_by_reason,
        "passed_over_by_reason": dict(passed_over or {}),
        "rejects": sum(by_reason.values()),
        "rejects_by_reason": dict(sorted(by_reason.items(), key=lambda item: -item[1])),
        "signatures": signature_summary(calls, generated_at),
    }
