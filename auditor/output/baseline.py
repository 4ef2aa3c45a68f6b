"""A baseline: the previous run's output, to tell what is new tonight from what is known.

Each finding of the new scan is ``new`` or ``persisting`` (its fingerprint was among the
baseline's findings); each failure signature is ``new`` or ``known``; findings of the baseline
that are gone are *resolved*, with why: the call is still in the table with another verdict
(``verdict_changed``: a fix or a rule change), with the same finding now decided by another
outcome rule (``rule_changed``: the fingerprint holds the rule id, so this finding is also
listed as new), or it is not in the table at all (``not_seen``: its file or conversation is
gone, or was not scanned).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import orjson
import polars as pl

from auditor.output.fingerprint import fingerprint, signature, signature_summary
from auditor.output.folder import latest_run, scan_calls
from auditor.output.result import ScanResult
from auditor.output.tables import findings, read_calls

Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)
SEVERITIES = ("critical", "warning")


class BaselineError(ValueError):
    """A baseline folder that holds no scan output."""


@dataclass
class Baseline:
    """The findings and signatures of a previous run."""

    folder: Path  # the output folder the tables were read from
    findings: pl.LazyFrame  # read from ``folder`` when compared, not held
    signatures: dict[str, dict[str, Any]]  # signature -> its summary entry (first_seen, …)
    generated_at: str | None = None


def no_previous_run(folder: str | Path) -> Baseline:
    """The baseline of a first night: no findings, no signatures, so everything is new."""
    empty = pl.LazyFrame(schema={"fingerprint": pl.String(), "signature": pl.String()})
    return Baseline(Path(folder), empty, {}, None)


def load_baseline_or_none(folder: str | Path) -> Baseline:
    """``load_baseline``, or ``no_previous_run`` when ``folder`` is missing or holds no run
    yet (the first night of a dataset): a scheduled job needs no special first run."""
    folder = Path(folder)
    if not folder.exists() or not any(folder.iterdir()):
        return no_previous_run(folder)
    return load_baseline(folder)


def _with_identities(calls: Frame) -> Frame:
    """Fingerprints and signatures for tables written before they existed."""
    names = calls.collect_schema().names()
    if (
        "fingerprint" not in names
        or not calls.lazy().select(pl.col("fingerprint").is_not_null().any()).collect().item()
    ):
        calls = calls.with_columns(
            fingerprint=pl.struct(
                "conversation_id", "tool_call_id", "finding", "outcome_rule"
            ).map_elements(
                lambda r: fingerprint(
                    r["conversation_id"], r["tool_call_id"], r["finding"], r["outcome_rule"]
                ),
                return_dtype=pl.String,
            )
        )
    if "signature" not in names:
        calls = calls.with_columns(
            signature=pl.struct("tool_name", "outcome", "finding", "evidence").map_elements(
                lambda r: signature(r["tool_name"], r["outcome"], r["finding"], r["evidence"]),
                return_dtype=pl.String,
            )
        )
    return calls


def load_baseline(folder: str | Path) -> Baseline:
    """The previous run written to ``folder`` (an output folder, or a dataset of dated
    partitions, whose latest partition is taken)."""
    try:
        where = latest_run(folder)
    except FileNotFoundError as exc:
        raise BaselineError(str(exc)) from exc
    calls = scan_calls(where)
    found = _with_identities(findings(calls))
    summary_path = where / "summary.json"
    summary = orjson.loads(summary_path.read_bytes()) if summary_path.exists() else {}
    generated_at = summary.get("generated_at")
    signatures = {entry["signature"]: entry for entry in summary.get("signatures") or []}
    if "signature" in calls.collect_schema().names():
        names = calls.select(pl.col("signature").drop_nulls().unique()).collect()["signature"]
        for name in names:
            signatures.setdefault(name, {"signature": name, "first_seen": generated_at})
    return Baseline(where, found, signatures, generated_at)


def compare(result: ScanResult, baseline: Baseline) -> ScanResult:
    """The scan with the ``baseline`` column set, signatures marked new or known, the resolved
    findings, and a ``baseline`` summary section with the counts an alert needs."""
    seen_at = datetime.now(UTC).isoformat(timespec="seconds")
    calls, resolved, section, signatures = _comparison(result.lazy_calls, baseline, seen_at)
    return dataclasses.replace(
        result,
        lazy_calls=calls,
        resolved=resolved,
        sections={**result.sections, "baseline": section, "signatures": signatures},
    )


def _comparison(
    calls: pl.LazyFrame, baseline: Baseline, seen_at: str
) -> tuple[pl.LazyFrame, pl.DataFrame, dict[str, Any], list[dict[str, Any]]]:
    known = (
        baseline.findings.select(pl.col("fingerprint").drop_nulls().unique())
        .collect()["fingerprint"]
        .implode()
    )
    status = (
        pl.when(pl.col("finding").is_null())
        .then(None)
        .when(pl.col("fingerprint").is_in(known))
        .then(pl.lit("persisting"))
        .otherwise(pl.lit("new"))
    )
    calls = calls.with_columns(baseline=status)
    current = findings(calls).select("fingerprint", "severity", "suppressed", "baseline").collect()
    resolved = _resolved(calls, baseline.findings, current["fingerprint"])
    signatures = signature_summary(calls, seen_at, baseline.signatures)
    alerting = current.filter(~pl.col("suppressed").fill_null(False))
    new = alerting.filter(pl.col("baseline") == "new")
    new_signatures = [s for s in signatures if s["status"] == "new"]
    section = {
        "folder": str(baseline.folder),
        "generated_at": baseline.generated_at,  # of the previous run; None: there was none
        "findings": {
            "new": int((current["baseline"] == "new").sum()),
            "persisting": int((current["baseline"] == "persisting").sum()),
            "resolved": resolved.height,
        },
        # New, unsuppressed findings and signatures by severity: what --fail-on-new looks at.
        "new_by_severity": {s: int((new["severity"] == s).sum()) for s in SEVERITIES},
        "signatures": {"new": len(new_signatures), "known": len(signatures) - len(new_signatures)},
        "new_signatures_by_severity": {
            s: sum(1 for e in new_signatures if e["severity"] == s and e["unsuppressed_findings"])
            for s in SEVERITIES
        },
    }
    return calls, resolved, section, signatures


def _resolved(calls: pl.LazyFrame, before: pl.LazyFrame, still: pl.Series) -> pl.DataFrame:
    """Baseline findings whose fingerprint is gone, with what the call is now."""
    gone = before.filter(~pl.col("fingerprint").is_in(still.implode())).collect()
    if not gone.height:
        return gone.with_columns(
            resolution=pl.lit(None, pl.String), finding_now=pl.lit(None, pl.String)
        )
    key = ["conversation_id", "tool_call_id"]
    # Only the calls of the gone findings are looked up (not every call's key held).
    now = (
        calls.join(
            gone.select(key).unique().lazy(),
            on=key,
            how="semi",
            nulls_equal=True,
            maintain_order="left",
        )
        .select(*key, pl.col("finding").alias("finding_now"), pl.lit(True).alias("_seen"))
        .unique(subset=key, keep="first")
        .collect()
    )
    return (
        gone.join(now, on=key, how="left", nulls_equal=True)
        .with_columns(
            resolution=pl.when(~pl.col("_seen").fill_null(False))
            .then(pl.lit("not_seen"))
            .when(pl.col("finding_now").eq_missing(pl.col("finding")))
            .then(pl.lit("rule_changed"))
            .otherwise(pl.lit("verdict_changed"))
        )
        .drop("_seen")
    )


def diff(old: str | Path, new: str | Path) -> dict[str, Any]:
    """Compare two output folders as a scan of ``new`` with ``--baseline old`` would: the
    findings of ``new`` marked new or persisting, the resolved ones, and the signatures."""
    baseline = load_baseline(old)
    try:
        where = latest_run(new)
    except FileNotFoundError as exc:
        raise BaselineError(str(exc)) from exc
    calls = _with_identities(read_calls(where))
    if "suppressed" not in calls.columns:
        calls = calls.with_columns(suppressed=pl.lit(False))
    summary_path = where / "summary.json"
    summary = orjson.loads(summary_path.read_bytes()) if summary_path.exists() else {}
    seen_at = summary.get("generated_at") or datetime.now(UTC).isoformat(timespec="seconds")
    marked, resolved, section, signatures = _comparison(calls.lazy(), baseline, seen_at)
    return {
        "old": str(baseline.folder),
        "new": str(where),
        "findings": findings(marked).collect(),
        "resolved": resolved,
        "baseline": section,
        "signatures": signatures,
    }
