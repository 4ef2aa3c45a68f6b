"""One pass over a conversation, stage by stage: pairing, payload and outcome, recovery,
claims, verdict, and one row per tool call."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from auditor.audit.claims.turns import read_claims
from auditor.audit.outcomes import decide
from auditor.audit.pairing import lay_out
from auditor.audit.payload import read_payload
from auditor.audit.recovery import recover
from auditor.audit.rows import call_row
from auditor.model import (
    Conversation,
    ToolResult,
)
from auditor.redact import Redactor
from auditor.rules_loader import RuleSet


@dataclass
class ConversationAudit:
    """The rows of one conversation, and results that matched no call."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    orphan_results: list[ToolResult] = field(default_factory=list)


def audit_conversation(
    conversation: Conversation, rules: RuleSet, redactor: Redactor | None = None
) -> ConversationAudit:
    """Rows for every tool call of a conversation; excerpts pass through ``redactor``."""
    slots, texts, requests, orphans = lay_out(conversation)
    for slot in slots:
        if slot.result is not None and slot.result.returned:
            slot.payload = read_payload(slot.result)
        slot.decision = decide(
            slot.call, slot.result, rules.outcomes, payload=slot.payload, late=slot.late
        )
    recover(slots, rules)
    read_claims(slots, texts, requests, rules)
    redactor = redactor or Redactor()
    return ConversationAudit(
        rows=[call_row(conversation, slot, redactor, rules) for slot in slots],
        orphan_results=orphans,
    )
