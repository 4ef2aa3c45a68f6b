"""Rows: one calls-table row per tool call, from what every stage decided about it."""

from __future__ import annotations

import hashlib
from typing import Any

from auditor.audit.pairing import CallSlot
from auditor.audit.payload import clip
from auditor.audit.verdict import finding_for
from auditor.model import (
    SEVERITY,
    Conversation,
)
from auditor.redact import Redactor
from auditor.rules_loader import RuleSet


def _person(user_id: str | None, redactor: Redactor) -> str | None:
    """The person's id as recorded; with emails redacted, an email id becomes a stable hash, so
    that people can still be counted without being named."""
    if user_id and redactor.enabled and redactor.emails and redactor.apply(user_id) != user_id:
        return "sha256:" + hashlib.sha256(user_id.encode()).hexdigest()[:16]
    return user_id


def call_row(
    conversation: Conversation, slot: CallSlot, redactor: Redactor, rules: RuleSet
) -> dict[str, Any]:
    decision = slot.decision
    claim = slot.claim
    assert decision is not None
    recovered = slot.recovered_by is not None
    finding = finding_for(decision.outcome, claim.claim if claim else None, recovered, slot.probe)
    row = {
        "conversation_id": conversation.id,
        "tool_call_id": slot.call.id,
        "tool_name": slot.call.name,
        "outcome": decision.outcome.value,
        "claim": claim.claim.value if claim else None,
        "recovered": recovered,
        "finding": finding.value if finding else None,
        "severity": SEVERITY[finding].value if finding else None,
        "source": conversation.source,
        "line": slot.result.line if slot.result is not None else slot.call.line,
        "format": conversation.format,
        "server": slot.call.server,
        "turn": slot.turn,
        "call_line": slot.call.line,
        "outcome_rule": decision.rule_id,
        "evidence": redactor.apply(decision.evidence),
        "evidence_pointer": decision.pointer,
        "claim_cue": claim.cue if claim else None,
        "claim_sentence": redactor.apply(clip(claim.sentence, 300)) if claim else None,
        "language": claim.language if claim else None,
        "recovered_by": slot.recovered_by,
        "note": claim.note if claim else None,
        "timestamp": slot.timestamp or conversation.timestamp,
        "user_id": _person(conversation.user_id, redactor),
        "impact": slot.impact,
        "probe": slot.probe,
    }
    return row
