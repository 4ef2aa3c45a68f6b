"""Stable identities across nightly runs: a fingerprint per finding, a signature per failure.

A *fingerprint* names one finding: the same call in the same conversation with the same verdict
gets the same fingerprint tonight and tomorrow, after the file moved, and after a rule pack
change that did not change the verdict. It is built from the conversation id, the tool call id,
the finding kind and the id of the outcome rule, never from paths or line numbers.

A *signature* names a failure pattern: the tool, the outcome, the finding kind and the error
message with its particulars (ids, numbers, timestamps, hex, uuids, quoted values) taken out,
so that "update_ticket: 403 Forbidden, claimed success" is one pattern however many
conversations it hits.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import polars as pl

from auditor.model import Outcome

FINGERPRINT_CHARS = 16
MESSAGE_CHARS = 120
NO_FINDING = "no finding"

# Order matters: a quoted value or a uuid is taken out whole before its digits are.
_QUOTED = re.compile(
    # a JSON key ("viewer": …) is the shape of the answer, not a particular: kept
    r"""(?<!\w)'[^'\n]{1,200}'(?![\w:])|(?<!\w)"[^"\n]{1,200}"(?!\s*:)|“[^”\n]{1,200}”|‘[^’\n]{1,200}’"""
    r"|`[^`\n]{1,200}`"
)
_UUID = re.compile(r"\b[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b")
_TIMESTAMP = re.compile(
    r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
    r"|\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"
)
_HEX = re.compile(r"\b0x[0-9a-fA-F]+\b|\b(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{8,}\b")
# A token with both letters and digits is an id: SUP-4471, call_abc123, HAT229, toolu_01OA….
_ID = re.compile(r"(?<![\w<])(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[A-Za-z0-9][\w-]*(?![\w>])")
_QUANTITY = re.compile(r"(?<![\w.<])\d+(?:[.,]\d+)*(?:ms|us|s|sec|min|h|[kKMG]i?B)(?![\w>])")
_NUMBER = re.compile(r"(?<![\w.<])\d+(?:[.,]\d+)*(?![\w>])")
# An HTTP status is part of the failure kind ("403 Forbidden" and "404 Not Found" differ).
_STATUS_AFTER = re.compile(r" [A-Z][a-z]")
_STATUS_BEFORE = re.compile(r"(?:HTTP|status|Status|code)[ :/]*$")
_SPACE = re.compile(r"\s+")


def fingerprint(conversation_id: str, tool_call_id: str, finding: str, rule: str | None) -> str:
    """The fingerprint of one finding (hex, FINGERPRINT_CHARS long)."""
    key = "\x1f".join((conversation_id, tool_call_id, finding, rule or ""))
    return hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()[:FINGERPRINT_CHARS]


def _number(match: re.Match[str]) -> str:
    text, start, end = match.string, match.start(), match.end()
    status = len(match.group()) == 3 and "100" <= match.group() <= "599"
    if status and (
        _STATUS_AFTER.match(text, end) or _STATUS_BEFORE.search(text, 0, start) or start == 0
    ):
        return match.group()
    return "<n>"


def normalise_message(message: str | None) -> str:
    """An error message with its particulars replaced by placeholders (``<q>``, ``<uuid>``,
    ``<time>``, ``<hex>``, ``<id>``, ``<n>``), one line, at most MESSAGE_CHARS characters."""
    text = _SPACE.sub(" ", message or "").strip()
    text = _QUOTED.sub("<q>", text)
    text = _UUID.sub("<uuid>", text)
    text = _TIMESTAMP.sub("<time>", text)
    text = _HEX.sub("<hex>", text)
    text = _QUANTITY.sub("<n>", text)
    text = _ID.sub("<id>", text)
    text = _NUMBER.sub(_number, text)
    return text[:MESSAGE_CHARS].rstrip()


def signature(tool_name: str, outcome: str, finding: str | None, evidence: str | None) -> str:
    """The failure pattern of a failing call: ``tool | outcome | finding | message``."""
    return " | ".join((tool_name, outcome, finding or NO_FINDING, normalise_message(evidence)))


def identities(row: dict[str, Any]) -> dict[str, str | None]:
    """The ``fingerprint`` (findings only) and ``signature`` (failing calls only) of a row."""
    finding = row.get("finding")
    failing = row.get("outcome") != Outcome.OK.value
    return {
        "fingerprint": fingerprint(
            row["conversation_id"], row["tool_call_id"], finding, row.get("outcome_rule")
        )
        if finding
        else None,
        "signature": signature(row["tool_name"], row["outcome"], finding, row.get("evidence"))
        if failing
        else None,
    }


def signature_summary(
    calls: pl.DataFrame | pl.LazyFrame,
    seen_at: str,
    previous: dict[str, dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """One entry per signature in ``calls``: counts, severity, first and last seen.

    ``previous`` (the baseline's entries by signature) carries ``first_seen`` over and marks
    each signature ``new`` or ``known``; without it there is no ``status``.
    """
    unsuppressed = ~pl.col("suppressed").fill_null(False)
    grouped = (
        calls.lazy()
        .filter(pl.col("signature").is_not_null())
        .group_by("signature")
        .agg(
            pl.col("tool_name").first(),
            pl.col("outcome").first(),
            pl.col("finding").first(),
            pl.col("severity").first(),
            pl.len().alias("count"),
            pl.col("conversation_id").n_unique().alias("conversations"),
            (pl.col("finding").is_not_null() & unsuppressed).sum().alias("unsuppressed_findings"),
        )
        .with_columns(
            pl.col("severity").replace_strict({"critical": 0, "warning": 1}, default=2).alias("_r")
        )
        .sort("_r", pl.col("count"), "signature", descending=[False, True, False])
        .drop("_r")
        .collect()
    )
    entries = []
    for row in grouped.iter_rows(named=True):
        before = (previous or {}).get(row["signature"])
        entry = {
            **row,
            "first_seen": before["first_seen"] if before else seen_at,
            "last_seen": seen_at,
        }
        if previous is not None:
            entry["status"] = "known" if before else "new"
        entries.append(entry)
    return entries


def identified(row: dict[str, Any]) -> dict[str, Any]:
    """An audited row with the columns that follow it across nights: its fingerprint and
    signature, and ``suppressed`` (false until a suppressions file says otherwise)."""
    return {**row, **identities(row), "suppressed": False}
