"""Suppressions: known findings a nightly run keeps in the table but does not alert on.

A suppressions file (``auditor-ignore.toml``) lists entries, each with a required ``reason``
and an optional ``expires`` date, matching findings by ``fingerprint`` or by pattern (``tool``,
``finding``, ``outcome``, ``message``: a regular expression searched in the evidence)::

    [[suppress]]
    fingerprint = "fb955445ab99c2a6"
    reason = "SUP-4471 fixed by hand on 2026-11-28"

    [[suppress]]
    tool = "send_message"
    outcome = "error_payload"
    message = "channel_not_found"
    reason = "bot not in #dock-managers yet, INFRA-12"
    expires = 2026-12-31

Suppressed findings get ``suppressed = true`` and count for no exit status. An entry past its
``expires`` date suppresses nothing and is reported, so a suppression cannot outlive its reason
unnoticed. The file is validated like a rule file: an error names the file, the key and the
problem.
"""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import polars as pl
from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from auditor.model import Finding, Outcome
from auditor.output.result import ScanResult
from auditor.output.tables import findings
from auditor.rules_loader import RuleFileError, read_toml, validate_file

DEFAULT_FILE = "auditor-ignore.toml"
MATCHERS = ("fingerprint", "tool", "finding", "outcome", "message")
# The columns of the calls table that ``Suppression.matches`` reads.
MATCHED_COLUMNS = ("fingerprint", "tool_name", "finding", "outcome", "evidence")


class SuppressionFileError(RuleFileError):
    """A suppressions file that cannot be used: names the file, the key and the problem."""


class Suppression(BaseModel):
    """One entry: what it matches, why, and until when."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fingerprint: str | None = None
    tool: str | None = None  # the tool name as called
    finding: Finding | None = None
    outcome: Outcome | None = None
    message: str | None = None  # regular expression searched in the evidence
    reason: str
    expires: date | None = None

    @field_validator("reason")
    @classmethod
    def _reason_says_something(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("a suppression needs a reason")
        return value

    @field_validator("message")
    @classmethod
    def _message_is_a_pattern(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"not a valid regular expression ({exc})") from exc
        return value

    @model_validator(mode="after")
    def _matches_something(self) -> Suppression:
        if all(getattr(self, name) is None for name in MATCHERS):
            raise ValueError(f"a suppression needs at least one of {', '.join(MATCHERS)}")
        return self

    def expired(self, today: date) -> bool:
        return self.expires is not None and self.expires < today

    def matches(self, finding: dict[str, Any]) -> bool:
        """Does this entry match a finding row (a dict of the calls table)?"""
        checks = (
            (self.fingerprint, finding.get("fingerprint")),
            (self.tool, finding.get("tool_name")),
            (self.finding and self.finding.value, finding.get("finding")),
            (self.outcome and self.outcome.value, finding.get("outcome")),
        )
        if any(wanted is not None and wanted != value for wanted, value in checks):
            return False
        evidence = finding.get("evidence") or ""
        return self.message is None or re.search(self.message, evidence) is not None


class SuppressionsFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    suppress: list[Suppression] = []


@dataclasses.dataclass
class Suppressions:
    """The entries of one suppressions file, and where they came from."""

    file: str
    entries: list[Suppression]


def load_suppressions(path: str | Path) -> Suppressions:
    """Read and validate a suppressions file; a wrong one raises ``SuppressionFileError``."""
    path = Path(path)
    if not path.is_file():
        raise SuppressionFileError(str(path), "(file)", "suppressions file does not exist")
    try:
        checked = validate_file(SuppressionsFile, read_toml(path, str(path)), str(path))
    except RuleFileError as exc:
        raise SuppressionFileError(exc.file, exc.key, exc.problem) from exc
    assert isinstance(checked, SuppressionsFile)
    return Suppressions(file=str(path), entries=list(checked.suppress))


def default_suppressions() -> Path | None:
    """The suppressions file a scan reads when none is named: ./auditor-ignore.toml, if any."""
    return Path(DEFAULT_FILE) if Path(DEFAULT_FILE).is_file() else None


def today_utc() -> date:
    return datetime.now(UTC).date()


def apply_suppressions(
    result: ScanResult, suppressions: Suppressions, today: date | None = None
) -> ScanResult:
    """The scan with ``suppressed`` set on the findings an unexpired entry matches, and a
    ``suppressions`` summary section: how many each entry matched, which entries expired."""
    today = today or today_utc()
    # Findings are matched in Python, with re, a row at a time and on the columns matched only.
    found = findings(result.lazy_calls).select(MATCHED_COLUMNS).collect()
    active = [s for s in suppressions.entries if not s.expired(today)]
    matched: dict[int, int] = {}
    suppressed: set[str] = set()
    for row in found.iter_rows(named=True):
        for index, entry in enumerate(suppressions.entries):
            if entry.matches(row):
                matched[index] = matched.get(index, 0) + 1
                if entry in active and row["fingerprint"]:
                    suppressed.add(row["fingerprint"])

    def described(index: int, entry: Suppression) -> dict[str, Any]:
        where = {name: getattr(entry, name) for name in MATCHERS if getattr(entry, name)}
        return {
            "entry": index + 1,  # as counted in the file: the first [[suppress]] is 1
            **{k: str(v) for k, v in where.items()},
            "reason": entry.reason,
            "expires": entry.expires.isoformat() if entry.expires else None,
            "findings": matched.get(index, 0),
        }

    entries = list(enumerate(suppressions.entries))
    section = {
        "file": suppressions.file,
        "entries": len(suppressions.entries),
        "suppressed_findings": len(suppressed),
        # Expired entries suppress nothing: the findings they match count again.
        "expired": [described(i, e) for i, e in entries if e.expired(today)],
        "unused": [
            described(i, e) for i, e in entries if not e.expired(today) and i not in matched
        ],
    }
    flag = pl.col("finding").is_not_null() & pl.col("fingerprint").is_in(sorted(suppressed))
    return dataclasses.replace(
        result,
        lazy_calls=result.lazy_calls.with_columns(suppressed=flag.fill_null(False)),
        sections={**result.sections, "suppressions": section},
    )
