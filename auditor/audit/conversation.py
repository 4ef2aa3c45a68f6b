"""One pass over a conversation, stage by stage: pairing, payload and outcome, recovery,
claims, verdict, and one row per tool call."""

from __future__ import annotations

from dataclasses import dataclass, field
from time import perf_counter
from typing import Any

from auditor.audit.claims.turns import read_claims
from auditor.audit.impact import impact_of
from auditor.audit.outcomes import OutcomeDecision, decide
from auditor.audit.pairing import lay_out
from auditor.audit.payload import read_payload
from auditor.audit.recovery import mark_probes, recover
from auditor.audit.rows import call_row
from auditor.model import (
    Conversation,
    Outcome,
    ToolResult,
)
from auditor.redact import Redactor
from auditor.rules_loader import RuleSet, default_impact_rules
from auditor.run.stages import lap

CUT_OFF = OutcomeDecision(
    Outcome.CUT_OFF, "log-ends", "the log ends after the call: no result and nothing after it"
)


@dataclass
class ConversationAudit:
    """The rows of one conversation, and results that matched no call."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    orphan_results: list[ToolResult] = field(default_factory=list)


def audit_conversation(
    conversation: Conversation, rules: RuleSet, redactor: Redactor | None = None
) -> ConversationAudit:
    """Rows for every tool call of a conversation; excerpts pass through ``redactor``."""
    clock = perf_counter()
    slots, texts, requests, orphans = lay_out(conversation, rules.host_written)
    annotations = conversation.metadata.get("tool_annotations")
    impact_rules = rules.impact or default_impact_rules()
    cancelled = conversation.metadata.get("cancelled") or {}
    for slot in slots:
        if slot.result is not None and slot.result.returned:
            slot.payload = read_payload(slot.result)
        slot.decision = decide(
            slot.call,
            slot.result,
            rules.outcomes,
            payload=slot.payload,
            late=slot.late,
            impact=impact_rules,
        )
        if (
            slot.ends_log
            and slot.outcome == Outcome.TRANSPORT_ERROR
            and slot.call.id not in cancelled  # the host gave up on it: a timeout, not a cut
        ):
            slot.decision = CUT_OFF
        slot.impact = impact_of(slot.call, impact_rules, rules.outcomes, annotations).value
    clock = lap("outcomes", clock)
    recover(slots, rules, texts, requests)
    mark_probes(slots)
    clock = lap("recovery", clock)
    read_claims(slots, texts, requests, rules)
    clock = lap("claims", clock)
    redactor = redactor or Redactor()
    audit = ConversationAudit(
        rows=[call_row(conversation, slot, redactor, rules) for slot in slots],
        orphan_results=orphans,
    )
    lap("rows", clock)
    return audit
