"""One pass over a conversation: pair results with calls, find turns and replies, decide
outcomes, recovery, claims and findings, and give one row per tool call."""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from auditor.audit.claims import judge as claims
from auditor.audit.impact import default_impact_rules, impact_of
from auditor.audit.outcomes import OutcomeDecision, decide, is_identity_tool
from auditor.audit.payload import Payload, clip, read_payload
from auditor.model import (
    FAILED_OUTCOMES,
    SEVERITY,
    Claim,
    Conversation,
    Finding,
    Outcome,
    TextPart,
    ToolCall,
    ToolResult,
)
from auditor.output.fingerprint import identities
from auditor.redact import Redactor
from auditor.rules_loader import RuleSet

DEFAULT_LANGUAGE = "en"
_HELP = re.compile(r"(?:^|\s)(?:--help|-h|help)(?:\s|$)")
CONTEXT_CHARS = 50_000
COMPLAINT_CHARS = 2000  # the part of a failed result that says what was wrong
SAME_COMMAND_SHARE = 0.5  # share of its words a rerun keeps, changing only what the error named
SAME_COMMAND_CLOSE = 0.7  # share of its words a rerun keeps to be the same command whatever changed


@dataclass
class CallSlot:
    """A tool call as it sits in its conversation, with what the audit learns about it."""

    call: ToolCall
    position: int
    turn: int
    group: str
    result: ToolResult | None = None
    result_position: int | None = None
    payload: Payload | None = None
    late: bool = False
    decision: OutcomeDecision | None = None
    recovered_by: str | None = None
    claim: claims.ClaimDecision | None = None
    timestamp: datetime | None = None  # of the message that made the call, or of its result

    @property
    def outcome(self) -> Outcome:
        assert self.decision is not None
        return self.decision.outcome


@dataclass
class ConversationAudit:
    """The rows of one conversation, and results that matched no call."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    orphan_results: list[ToolResult] = field(default_factory=list)


def audit_conversation(
    conversation: Conversation, rules: RuleSet, redactor: Redactor | None = None
) -> ConversationAudit:
    """Rows for every tool call of a conversation; excerpts pass through ``redactor``."""
    slots, texts, requests, orphans = _layout(conversation)
    for slot in slots:
        if slot.result is not None and slot.result.returned:
            slot.payload = read_payload(slot.result)
        slot.decision = decide(
            slot.call, slot.result, rules.outcomes, payload=slot.payload, late=slot.late
        )
    _recover(slots, rules)
    _claims(slots, texts, requests, rules)
    redactor = redactor or Redactor()
    return ConversationAudit(
        rows=[_row(conversation, slot, redactor, rules) for slot in slots],
        orphan_results=orphans,
    )


Texts = dict[int, list[tuple[int, str, str]]]


def _layout(
    conversation: Conversation,
) -> tuple[list[CallSlot], Texts, dict[int, str], list[ToolResult]]:
    """Calls in order, assistant texts per turn ``(position, group, text)``, the person's
    request per turn, and results that matched no call."""
    slots: list[CallSlot] = []
    open_calls: dict[str, list[CallSlot]] = defaultdict(list)
    texts: Texts = defaultdict(list)
    requests: dict[int, str] = defaultdict(str)
    orphans: list[ToolResult] = []
    turn = 0
    started = False
    position = 0
    for index, message in enumerate(conversation.messages):
        if message.role == "user" and message.from_person:
            turn = turn + 1 if started else 0
            started = True
        group = message.message_id or f"#{index}"
        for part in message.parts:
            position += 1
            if isinstance(part, TextPart):
                if message.role == "assistant" and part.text.strip():
                    texts[turn].append((position, group, part.text))
                elif message.from_person:
                    requests[turn] += part.text + "\n"
            elif isinstance(part, ToolCall):
                started = True
                slot = CallSlot(part, position, turn, group, timestamp=message.timestamp)
                slots.append(slot)
                open_calls[part.id].append(slot)
            elif isinstance(part, ToolResult):
                waiting = open_calls.get(part.call_id)
                if not waiting:
                    orphans.append(part)
                    continue
                slot = waiting.pop()  # the nearest open call with this id
                slot.result, slot.result_position = part, position
                slot.timestamp = slot.timestamp or message.timestamp
    for slot in slots:
        if slot.result_position is None:
            continue
        slot.late = any(
            slot.position < pos < slot.result_position and group != slot.group
            for turn_texts in texts.values()
            for pos, group, _ in turn_texts
        )
    return slots, texts, requests, orphans


# ----------------------------------------------------------------------------- recovery
def _recover(slots: list[CallSlot], rules: RuleSet) -> None:
    """Mark failed calls that a later (or parallel) call of the same tool, same purpose, fixed."""
    general = rules.outcomes.general_tools_re
    noise = rules.outcomes.command_noise_re
    for slot in slots:
        if slot.outcome not in FAILED_OUTCOMES and slot.outcome != Outcome.IDENTITY_NULL:
            continue
        complaint = _complaint(slot)
        for other in slots:
            if (
                other is slot
                or other.call.name != slot.call.name
                or other.turn != slot.turn
                or other.outcome != Outcome.OK
                or not (other.position > slot.position or other.group == slot.group)
            ):
                continue
            if same_purpose(
                _without_noise(slot.call.arguments, noise),
                _without_noise(other.call.arguments, noise),
                complaint,
                general=bool(general.search(slot.call.name)),
            ):
                slot.recovered_by = other.call.id
                break


def _without_noise(arguments: Any, noise: Any) -> Any:
    """Arguments with the parts of a command that only trim its output (``| tail -20``) removed,
    and the free-text ``description`` some hosts add beside a command."""
    if isinstance(arguments, str):
        return noise.sub("", arguments).strip()
    if isinstance(arguments, dict):
        return {
            key: _without_noise(value, noise)
            for key, value in arguments.items()
            if key not in ("description", "timeout")
        }
    return arguments


def _complaint(slot: CallSlot) -> str:
    """What the failed result said (its start), lower-cased, to find what the error named."""
    pieces = [slot.decision.evidence if slot.decision else ""]
    if slot.payload is not None:
        pieces.extend(t.text for t in slot.payload.texts)
    if slot.result is not None and slot.result.rpc_error:
        pieces.append(str(slot.result.rpc_error))
    return " ".join(pieces)[:COMPLAINT_CHARS].lower()


def same_purpose(before: Any, after: Any, complaint: str, *, general: bool) -> bool:
    """Same arguments, or the same with only the values the error complained about corrected.

    For a tool that runs arbitrary commands (``general``), only the same command counts: run
    again as it was, or with the words the error named corrected (``_corrected_text``).
    """
    if before == after:
        return True
    if not isinstance(before, dict) or not isinstance(after, dict):
        return _corrected_text(before, after, complaint) if general else False
    for key in set(before) | set(after):
        old, new = before.get(key), after.get(key)
        if (
            old == new
            or (old is None and isinstance(new, bool))
            or (new is None and isinstance(old, bool))
        ):
            continue  # the same, or an output option (a flag) switched on or off
        if isinstance(old, str) and isinstance(new, str) and _corrected_text(old, new, complaint):
            continue
        if (
            isinstance(old, list)
            and isinstance(new, list)
            and _named_items_dropped(old, new, complaint)
        ):
            continue
        if not general and (_named_key(key, complaint) or _quoted_value(old, complaint)):
            continue
        return False
    return True


def _named_items_dropped(old: list[Any], new: list[Any], complaint: str) -> bool:
    """A list argument that only lost the items the error named (a flight the error said was
    full), keeping the rest."""
    dropped = [item for item in old if item not in new]
    added = [item for item in new if item not in old]
    if not dropped or added:
        return False
    return all(
        any(
            any(ch.isdigit() for ch in word) and word in complaint
            for word in claims.words(str(item))
        )
        for item in dropped
    )


def _named_key(key: str, complaint: str) -> bool:
    """The error names this argument ("payment" for payment_methods)."""
    lowered = key.lower()
    return lowered in complaint or any(
        len(word) >= 4 and word in complaint for word in re.split(r"[_\W]+", lowered)
    )


def _quoted_value(value: Any, complaint: str) -> bool:
    """The error names this value: as a whole, or by its words ("gift card" for gift_card_5)."""
    if value is None or isinstance(value, (dict, list)):
        return False
    text = str(value).lower()
    if text in complaint:
        return True
    return any(len(w) >= 4 and w.isalpha() and w in complaint for w in re.split(r"[_\W]+", text))


def _corrected_text(before: Any, after: Any, complaint: str) -> bool:
    """A command or query run again: nearly all of its words kept, or most of them with the
    words it dropped named by the error (``orders_2023`` after ``relation "orders_2023" does not
    exist``)."""
    if not isinstance(before, str) or not isinstance(after, str):
        return False
    if _HELP.search(after) and not _HELP.search(before):
        return False  # looking up how a command is used is not running it
    if before.strip() and before.strip() in after:
        return True  # the same command, run again after others (``git add … && <it>``)
    if len(after.split()) >= 2 and after.strip() in before:
        return True  # the same command without what ran before it (``sleep 60 && <it>``)
    old, new = set(claims.words(before)), set(claims.words(after))
    share = len(old & new) / len(old | new) if old else 0.0
    if share >= SAME_COMMAND_CLOSE:
        return True  # a corrected query or a rerun with a changed flag: nearly all of it kept
    return share >= SAME_COMMAND_SHARE and all(word in complaint for word in old - new)


# ----------------------------------------------------------------------------- claims
def _claims(slots: list[CallSlot], texts: Texts, requests: dict[int, str], rules: RuleSet) -> None:
    everything = " ".join(text for turn_texts in texts.values() for _, _, text in turn_texts)
    conversation_language = claims.detect_language(everything, rules, DEFAULT_LANGUAGE)
    by_turn: dict[int, list[CallSlot]] = defaultdict(list)
    for slot in slots:
        by_turn[slot.turn].append(slot)
    seen = ""  # data shown in the previous turn: a reply that recounts it quotes it
    for turn, turn_slots in sorted(by_turn.items()):
        shown_before = seen
        seen = " ".join(_data_of(slot) for slot in turn_slots)[:CONTEXT_CHARS]
        turn_texts = texts.get(turn, [])
        first = min(s.position for s in turn_slots)
        reply = " ".join(text for pos, _, text in turn_texts if pos > first)
        language = claims.detect_language(reply, rules, conversation_language) or DEFAULT_LANGUAGE
        pack = rules.packs.get(language)
        if pack is None:
            name = rules.language_names.get(language, language)
            for slot in turn_slots:
                has_reply = any(pos > _ready_at(slot) for pos, _, _ in turn_texts)
                slot.claim = claims.ClaimDecision(
                    Claim.NEUTRAL if has_reply else Claim.NONE,
                    "no cue pack",
                    "",
                    language,
                    note=f"reply in {name}: no claim cues for this language" if has_reply else "",
                )
            continue
        # The person's request and what the previous turn showed; a long agent run's own data
        # is not context, or nearly any phrase would be found in it.
        context = requests.get(turn, "") + " " + shown_before
        views = [_view(index, slot, rules, pack, context) for index, slot in enumerate(turn_slots)]
        replies = [(pos, text) for pos, _, text in turn_texts]
        decisions = claims.judge_reply(views, replies, pack, requests.get(turn, ""))
        for index, slot in enumerate(turn_slots):
            slot.claim = decisions[index]
    # A recovered call's action is the one its retry did: the reply speaks of both as one.
    by_id = {slot.call.id: slot for slot in slots}
    for slot in slots:
        retry = by_id.get(slot.recovered_by or "")
        if retry is not None and slot.claim and retry.claim and slot.claim.claim == Claim.NEUTRAL:
            slot.claim = retry.claim


def _carries_data(slot: CallSlot) -> bool:
    return slot.payload is not None and slot.outcome in (Outcome.OK, Outcome.GRAPHQL_PARTIAL)


def _data_of(slot: CallSlot) -> str:
    if not _carries_data(slot):
        return ""
    assert slot.payload is not None
    return claims.data_text(
        [v.value for v in slot.payload.values], [t.text for t in slot.payload.plain], CONTEXT_CHARS
    )


def _ready_at(slot: CallSlot) -> int:
    return (
        slot.result_position
        if slot.result_position is not None and not slot.late
        else slot.position
    )


def _view(index: int, slot: CallSlot, rules: RuleSet, pack: Any, context: str) -> claims.CallView:
    view = claims.CallView(
        index=index,
        name=slot.call.name,
        arguments=slot.call.arguments,
        server=slot.call.server,
        identity_tool=is_identity_tool(slot.call.name, rules.outcomes),
        ready_at=_ready_at(slot),
        position=slot.position,
        succeeded=slot.outcome == Outcome.OK,
        failed=slot.outcome in FAILED_OUTCOMES or slot.outcome == Outcome.IDENTITY_NULL,
        missing=slot.decision.missing if slot.decision else (),
        context_text=context,
    )
    if _carries_data(slot):
        assert slot.payload is not None
        view.result_values = [v.value for v in slot.payload.values]
        view.result_texts = [t.text for t in slot.payload.plain]
    if slot.decision is not None and slot.outcome != Outcome.OK:
        view.error_text = slot.decision.evidence
    claims.prepare_call(view, pack.stopwords)
    return view


# ----------------------------------------------------------------------------- verdict
def finding_for(outcome: Outcome, claim: Claim, recovered: bool) -> Finding | None:
    """The spec's finding table."""
    if recovered:
        return None
    if outcome in FAILED_OUTCOMES:
        if claim == Claim.SUCCESS:
            return Finding.FALSE_SUCCESS
        if claim == Claim.NEUTRAL:
            return Finding.UNREPORTED_FAILURE
    elif outcome == Outcome.IDENTITY_NULL:
        if claim == Claim.SUCCESS:
            return Finding.IDENTITY_ASSUMED
        if claim == Claim.NEUTRAL:
            return Finding.UNREPORTED_FAILURE
    elif outcome == Outcome.GRAPHQL_PARTIAL:
        if claim == Claim.SUCCESS:
            return Finding.UNLABELLED_PARTIAL
        if claim == Claim.FAILURE:
            return Finding.DISCARDED_PARTIAL
    return None


def _person(user_id: str | None, redactor: Redactor) -> str | None:
    """The person's id as recorded; with emails redacted, an email id becomes a stable hash, so
    that people can still be counted without being named."""
    if user_id and redactor.enabled and redactor.emails and redactor.apply(user_id) != user_id:
        return "sha256:" + hashlib.sha256(user_id.encode()).hexdigest()[:16]
    return user_id


def _row(
    conversation: Conversation, slot: CallSlot, redactor: Redactor, rules: RuleSet
) -> dict[str, Any]:
    decision = slot.decision
    claim = slot.claim
    assert decision is not None and claim is not None
    recovered = slot.recovered_by is not None
    finding = finding_for(decision.outcome, claim.claim, recovered)
    row = {
        "conversation_id": conversation.id,
        "tool_call_id": slot.call.id,
        "tool_name": slot.call.name,
        "outcome": decision.outcome.value,
        "claim": claim.claim.value,
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
        "claim_cue": claim.cue,
        "claim_sentence": redactor.apply(clip(claim.sentence, 300)),
        "language": claim.language,
        "recovered_by": slot.recovered_by,
        "note": claim.note,
        "timestamp": slot.timestamp or conversation.timestamp,
        "user_id": _person(conversation.user_id, redactor),
        "impact": impact_of(
            slot.call,
            rules.impact or default_impact_rules(),
            rules.outcomes,
            conversation.metadata.get("tool_annotations"),
        ).value,
    }
    row.update(identities(row), suppressed=False)
    return row
