"""The calls table's columns, declared once: name, type, the stage that fills it, and what it
means. The schema, the spec's public prefix and the column table in ``docs/calls-table.md``
are all made from this list (a test checks the page against it).

To add a column: declare it here, fill it in the stage named (``audit/rows.py`` for the audit's
columns), and run ``python -m auditor.output.columns`` to print the page's table.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import polars as pl


@dataclass(frozen=True)
class Column:
    name: str
    dtype: pl.DataType
    stage: str  # the module that fills it
    description: str
    spec: bool = False  # one of the spec's stable public columns


_ROWS = "audit/rows.py"
CALLS_COLUMNS: tuple[Column, ...] = (
    Column("conversation_id", pl.String(), _ROWS, "the conversation's id (see the spec)", True),
    Column("tool_call_id", pl.String(), _ROWS, "the format's own id of the call", True),
    Column("tool_name", pl.String(), _ROWS, "as called, MCP prefix kept", True),
    Column("outcome", pl.String(), "audit/outcomes.py", "what the tool really did", True),
    Column(
        "claim",
        pl.String(),
        "audit/claims/",
        "what the reply said about the call; null where it was not read (no finding can "
        "follow) unless the scan ran with `--claims all`",
        True,
    ),
    Column("recovered", pl.Boolean(), "audit/recovery.py", "a later call did what it tried", True),
    Column("finding", pl.String(), "audit/verdict.py", "the finding, if any", True),
    Column("severity", pl.String(), "audit/verdict.py", "`critical` or `warning`", True),
    Column("source", pl.String(), _ROWS, "the input file as given on the command line", True),
    Column("line", pl.Int64(), _ROWS, "1-based line of the file that holds the result", True),
    Column(
        "impact",
        pl.String(),
        "audit/impact.py",
        "what the call would have done had it worked: `write`, `read`, `identity` or `unknown`; "
        "decided by `rules/impact.toml`",
        True,
    ),
    Column(
        "format",
        pl.String(),
        "readers/",
        "the reader that read it (`openai_chat`, `anthropic_messages`, `claude_code`)",
    ),
    Column(
        "server",
        pl.String(),
        "readers/",
        "the MCP server name, when the format records it (`server_name`)",
    ),
    Column(
        "turn",
        pl.Int64(),
        "audit/pairing.py",
        "0-based turn of the conversation (a turn starts at a message a person wrote)",
    ),
    Column(
        "call_line",
        pl.Int64(),
        "readers/",
        "line of the tool call (differs from `line` in one-event-per-line formats)",
    ),
    Column(
        "outcome_rule",
        pl.String(),
        "audit/outcomes.py",
        "id of the rule that decided the outcome (`flagged-error`, `graphql-no-data`, `ok-false`"
        ", …); `auditor rules --explain ID` says what it catches",
    ),
    Column(
        "evidence",
        pl.String(),
        "audit/outcomes.py",
        "the error text or envelope fields that decided it, one line, at most 200 characters",
    ),
    Column(
        "evidence_pointer",
        pl.String(),
        "audit/outcomes.py",
        "JSON pointer into the record on `line`; a step through a string continues into the "
        "JSON inside that string",
    ),
    Column(
        "claim_cue",
        pl.String(),
        "audit/claims/",
        "id of the cue that decided the claim, or the reading (`states it as fact`, `says "
        "nothing about this call`)",
    ),
    Column(
        "claim_sentence", pl.String(), "audit/claims/", "the reply sentence that made the claim"
    ),
    Column("language", pl.String(), "audit/claims/language.py", "language the reply was read in"),
    Column(
        "recovered_by",
        pl.String(),
        "audit/recovery.py",
        "the call id of the call that did what a failed call tried (same target and effect)",
    ),
    Column(
        "probe",
        pl.Boolean(),
        "audit/recovery.py",
        "a failed read the assistant moved past with further calls in the same turn: no "
        "`unreported_failure`",
    ),
    Column(
        "note",
        pl.String(),
        "audit/claims/",
        "e.g. why a claim is `unread` (a reply in a language with no cue pack)",
    ),
    Column(
        "timestamp",
        pl.Datetime("us", "UTC"),
        "readers/",
        "when the call was made (UTC), in formats that record it; null otherwise",
    ),
    Column(
        "user_id",
        pl.String(),
        _ROWS,
        "the person's id, in formats that record one; with `--redact-emails` an email id "
        "becomes a stable `sha256:…` hash, so people are still counted without being named",
    ),
    Column(
        "fingerprint",
        pl.String(),
        "output/fingerprint.py",
        "a finding's identity across runs (null without a finding): from the conversation id, "
        "the call id, the finding and the outcome rule, never the path or line",
    ),
    Column(
        "signature",
        pl.String(),
        "output/fingerprint.py",
        "a failing call's failure pattern (null when `ok`): tool, outcome, finding and the "
        "error message with ids, numbers and quoted values replaced",
    ),
    Column(
        "suppressed",
        pl.Boolean(),
        "output/suppress.py",
        "the finding matches an unexpired entry of the suppressions file",
    ),
    Column(
        "baseline",
        pl.String(),
        "output/baseline.py",
        "with `--baseline`: `new` or `persisting` for each finding",
    ),
)

CALLS_SCHEMA: dict[str, pl.DataType] = {c.name: c.dtype for c in CALLS_COLUMNS}
SPEC_COLUMNS: list[str] = [c.name for c in CALLS_COLUMNS if c.spec]
REJECTS_SCHEMA: dict[str, pl.DataType] = {
    "source": pl.String(),
    "line": pl.Int64(),
    "offset": pl.Int64(),
    "reason": pl.String(),
    "excerpt": pl.String(),
}


def markdown_table() -> str:
    """The column table of ``docs/calls-table.md``."""
    lines = ["| column | type | filled by | meaning |", "|---|---|---|---|"]
    for column in CALLS_COLUMNS:
        dtype = "datetime (UTC)" if isinstance(column.dtype, pl.Datetime) else column.dtype
        spec = " (spec)" if column.spec else ""
        lines.append(
            f"| `{column.name}`{spec} | {str(dtype).lower()} | `{column.stage}` "
            f"| {column.description} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(markdown_table() + "\n")
