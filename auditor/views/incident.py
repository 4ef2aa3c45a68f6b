"""Blast radius: what the assistant told people while a tool was failing, since when, to how many.

Works on the calls table alone (a LazyFrame, so a dataset of many runs is never held whole).
A *false claim* is a finding whose reply told the person something that was not so:
``false_success``, ``identity_assumed`` (critical) and ``unlabelled_partial`` (partial data
presented as complete).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import polars as pl

from auditor.audit.impact import ranked
from auditor.audit.tools import SERVER_SEPARATORS
from auditor.model import FAILED_OUTCOMES, Finding, Outcome
from auditor.redact import Redactor
from auditor.views.terminal import safe

FALSE_CLAIMS = (Finding.FALSE_SUCCESS, Finding.IDENTITY_ASSUMED, Finding.UNLABELLED_PARTIAL)
FAILED = sorted(o.value for o in (*FAILED_OUTCOMES, Outcome.IDENTITY_NULL))
TOP_ERRORS = 10


@dataclass
class Filters:
    """Which calls an incident is about; None means any."""

    tool: str | None = None
    server: str | None = None
    outcome: str | None = None
    finding: str | None = None
    since: datetime | None = None
    until: datetime | None = None

    def describe(self) -> str:
        said = [
            f"{name} {value}"
            for name, value in (
                ("tool", self.tool),
                ("server", self.server),
                ("outcome", self.outcome),
                ("finding", self.finding),
            )
            if value
        ]
        if self.since:
            said.append(f"from {when(self.since)}")
        if self.until:
            said.append(f"before {when(self.until)}")
        return ", ".join(said) or "all calls"


@dataclass
class Incident:
    """The blast-radius numbers of one incident."""

    filters: Filters
    calls: int
    failed: int
    findings: int
    false_claims: int
    conversations: int  # conversations that got a false claim
    users: int | None  # distinct people who got one; None when no format records a user id
    formats_without_users: list[str]
    first_seen: datetime | None  # first and last failed call
    last_seen: datetime | None
    undated: int  # matching calls with no timestamp (left out of a time window and the series)
    every: str
    over_time: pl.DataFrame  # bucket, calls, failed, failure_rate, false_claims
    top_errors: pl.DataFrame  # error, calls, conversations, first_seen, last_seen, example
    affected: pl.DataFrame  # the calls with a false claim, ranked
    by_finding: dict[str, int] = field(default_factory=dict)

    @property
    def failure_rate(self) -> float:
        return self.failed / self.calls if self.calls else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "filters": self.filters.describe(),
            "calls": self.calls,
            "failed": self.failed,
            "failure_rate": round(self.failure_rate, 4),
            "findings": self.findings,
            "by_finding": self.by_finding,
            "false_claims": self.false_claims,
            "conversations_with_false_claim": self.conversations,
            "users_with_false_claim": self.users,
            "formats_without_user_id": self.formats_without_users,
            "first_seen": _iso(self.first_seen),
            "last_seen": _iso(self.last_seen),
            "undated_calls": self.undated,
            "every": self.every,
            "over_time": [
                {**row, "bucket": _iso(row["bucket"])} for row in self.over_time.to_dicts()
            ],
            "top_errors": [
                {**row, "first_seen": _iso(row["first_seen"]), "last_seen": _iso(row["last_seen"])}
                for row in self.top_errors.to_dicts()
            ],
        }


def when(moment: datetime | None) -> str:
    """A time for people: ``2026-03-02 09:14 UTC``."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC") if moment else ""


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat(timespec="seconds") if moment else None


def parse_moment(text: str, *, end: bool = False) -> datetime:
    """An ISO date or time as UTC; a bare date is the start of that day, or with ``end`` the
    start of the next (so ``--until 2026-03-05`` takes in all of March 5)."""
    text = text.strip()
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            moment = datetime.combine(day, time(), UTC)
            return moment + timedelta(days=1) if end else moment
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ValueError(
            f"not a date or time: {text!r} (use 2026-03-05 or 2026-03-05T14:00)"
        ) from exc
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _bare(name: pl.Expr) -> pl.Expr:
    """``bare_tool_name`` over a column: a tool name without its MCP prefix."""
    return name.str.replace(rf"^.*(?:{SERVER_SEPARATORS})", "")


def select(calls: pl.DataFrame | pl.LazyFrame, filters: Filters) -> pl.LazyFrame:
    """The calls an incident is about (the time window applies to dated calls only)."""
    lazy = calls.lazy()
    if filters.tool:
        lazy = lazy.filter(
            (pl.col("tool_name") == filters.tool) | (_bare(pl.col("tool_name")) == filters.tool)
        )
    for column in ("server", "outcome", "finding"):
        value = getattr(filters, column)
        if value:
            lazy = lazy.filter(pl.col(column) == value)
    if filters.since:
        lazy = lazy.filter(pl.col("timestamp") >= filters.since)
    if filters.until:
        lazy = lazy.filter(pl.col("timestamp") < filters.until)
    return lazy


def choose_every(first: datetime | None, last: datetime | None) -> str:
    """Bucket width for the series: hours over two days or less, days up to 90, else weeks."""
    if first is None or last is None:
        return "1d"
    span = last - first
    if span <= timedelta(days=2):
        return "1h"
    return "1d" if span <= timedelta(days=90) else "1w"


_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`")
_NUMBER = re.compile(r"\b(?:[A-Z]+-)?\d[\w.:-]*")


def error_group(evidence: pl.Expr) -> pl.Expr:
    """Evidence with the parts that differ per call (quoted names, ids, numbers) replaced, so
    that the same error groups together: ``403 Forbidden: key 'a'`` and ``… key 'b'``."""
    return (
        evidence.str.replace_all(_QUOTED.pattern, "…")
        .str.replace_all(_NUMBER.pattern, "#")
        .str.slice(0, 160)
    )


def blast_radius(
    calls: pl.DataFrame | pl.LazyFrame,
    filters: Filters | None = None,
    every: str | None = None,
    *,
    redactor: Redactor | None = None,
) -> Incident:
    """The incident numbers for the calls ``filters`` picks; the transcript text it quotes
    (errors, evidence, reply sentences) passes through ``redactor`` (by default the scan's), so
    that a table written by an older auditor or with ``--no-redact`` shows no secret."""
    filters = filters or Filters()
    redactor = redactor or Redactor()
    picked = select(calls, filters).with_columns(
        pl.col("outcome").is_in(FAILED).alias("_failed"),
        pl.col("finding").is_in([f.value for f in FALSE_CLAIMS]).fill_null(False).alias("_false"),
    )
    frame = picked.collect()
    failed = frame.filter(pl.col("_failed"))
    dated_failed = failed.filter(pl.col("timestamp").is_not_null())
    first = dated_failed["timestamp"].min() if dated_failed.height else None
    last = dated_failed["timestamp"].max() if dated_failed.height else None
    dated = frame.filter(pl.col("timestamp").is_not_null())
    every = every or choose_every(dated["timestamp"].min(), dated["timestamp"].max())
    over_time = (
        dated.sort("timestamp")
        .group_by_dynamic("timestamp", every=every)
        .agg(
            pl.len().alias("calls"),
            pl.col("_failed").sum().alias("failed"),
            pl.col("_false").sum().alias("false_claims"),
        )
        .rename({"timestamp": "bucket"})
        .with_columns((pl.col("failed") / pl.col("calls")).round(3).alias("failure_rate"))
        .select("bucket", "calls", "failed", "failure_rate", "false_claims")
        if dated.height
        else pl.DataFrame(
            schema={
                "bucket": pl.Datetime("us", "UTC"),
                "calls": pl.UInt32,
                "failed": pl.UInt32,
                "failure_rate": pl.Float64,
                "false_claims": pl.UInt32,
            }
        )
    )
    top_errors = (
        failed.with_columns(error_group(pl.col("evidence").fill_null("")).alias("error"))
        .group_by("error")
        .agg(
            pl.len().alias("calls"),
            pl.col("conversation_id").n_unique().alias("conversations"),
            pl.col("timestamp").min().alias("first_seen"),
            pl.col("timestamp").max().alias("last_seen"),
            pl.col("evidence").first().alias("example"),
        )
        .sort(["calls", "error"], descending=[True, False])
        .head(TOP_ERRORS)
        .pipe(_redacted, ("error", "example"), redactor)
    )
    false = frame.filter(pl.col("_false"))
    with_user = false.filter(pl.col("user_id").is_not_null())
    without = sorted(set(false.filter(pl.col("user_id").is_null())["format"].drop_nulls()))
    users = with_user["user_id"].n_unique() if with_user.height else None
    findings = frame.filter(pl.col("finding").is_not_null())
    return Incident(
        filters=filters,
        calls=frame.height,
        failed=failed.height,
        findings=findings.height,
        false_claims=false.height,
        conversations=false.select(pl.struct("source", "conversation_id").n_unique()).item()
        if false.height
        else 0,
        users=users,
        formats_without_users=without,
        first_seen=first,
        last_seen=last,
        undated=frame.height - dated.height,
        every=every,
        over_time=over_time,
        top_errors=top_errors,
        affected=_redacted(
            ranked(findings.drop("_failed", "_false")), ("evidence", "claim_sentence"), redactor
        ),
        by_finding=dict(sorted(findings.group_by("finding").len().iter_rows())),
    )


def _redacted(frame: pl.DataFrame, columns: tuple[str, ...], redactor: Redactor) -> pl.DataFrame:
    return frame.with_columns(
        pl.Series(name, [redactor.apply(text) for text in frame[name]], dtype=pl.String)
        for name in columns
    )


def users_line(incident: Incident) -> str:
    """How many people got a false claim, and what the formats could not say."""
    if incident.users is None and not incident.false_claims:
        return "no false claims"
    counted = f"{incident.users} distinct user(s)" if incident.users is not None else ""
    missing = ""
    if incident.formats_without_users:
        missing = "user id not recorded by " + ", ".join(incident.formats_without_users)
    return "; ".join(p for p in (counted, missing) if p)


# ----------------------------------------------------------------------------- terminal
BAR = "█"


def print_incident(console: Any, incident: Incident, *, affected: int = 20) -> None:
    """The blast radius for the terminal; transcript text (evidence) shown as plain text."""
    from rich.table import Table
    from rich.text import Text

    console.print(Text.assemble(("Incident: ", "bold"), safe(incident.filters.describe())))
    seen = (
        f"first seen {when(incident.first_seen)}, last seen {when(incident.last_seen)}"
        if incident.first_seen
        else "no dated failure"
    )
    console.print(
        Text(
            f"{incident.calls} call(s), {incident.failed} failed "
            f"({incident.failure_rate:.0%}); {seen}"
        )
    )
    console.print(
        Text(
            f"{incident.false_claims} false claim(s) in {incident.conversations} conversation(s), "
            f"{users_line(incident)}"
        )
    )
    if incident.by_finding:
        console.print(
            Text("findings: " + ", ".join(f"{k} {v}" for k, v in incident.by_finding.items()))
        )
    if incident.undated:
        console.print(Text(f"{incident.undated} call(s) carry no timestamp", style="yellow"))
    if incident.over_time.height:
        table = Table(title=f"Failure rate over time (every {incident.every})")
        for column in ("from", "calls", "failed", "rate", "", "false claims"):
            table.add_column(column, justify="left" if column in ("from", "") else "right")
        for row in incident.over_time.iter_rows(named=True):
            table.add_row(
                row["bucket"].strftime("%Y-%m-%d %H:%M"),
                str(row["calls"]),
                str(row["failed"]),
                f"{row['failure_rate']:.0%}",
                Text(BAR * round(row["failure_rate"] * 10), style="red"),
                str(row["false_claims"]),
            )
        console.print(table)
    if incident.top_errors.height:
        table = Table(title="Top errors")
        for column in ("calls", "conversations", "error (example)"):
            table.add_column(column, justify="right" if column != "error (example)" else "left")
        for row in incident.top_errors.iter_rows(named=True):
            table.add_row(str(row["calls"]), str(row["conversations"]), safe(row["example"]))
        console.print(table)
    if incident.affected.height:
        table = Table(title=f"Affected conversations (findings, writes first; {affected} shown)")
        for column in ("when", "conversation", "tool", "impact", "finding", "user"):
            table.add_column(column, overflow="fold", no_wrap=column == "when")
        for row in incident.affected.head(affected).iter_rows(named=True):
            dated = row["timestamp"].strftime("%Y-%m-%d %H:%M") if row["timestamp"] else ""
            table.add_row(
                dated,
                safe(row["conversation_id"]),
                safe(row["tool_name"]),
                safe(row["impact"]),
                Text(row["finding"], style="red" if row["severity"] == "critical" else "yellow"),
                safe(row["user_id"] or ""),
            )
        console.print(table)
