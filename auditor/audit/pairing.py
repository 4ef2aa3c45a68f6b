"""Pairing: a conversation laid out as tool calls with their results, the turns they fall in,
the assistant's texts per turn and the person's request per turn."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from auditor.audit.outcomes import OutcomeDecision
from auditor.audit.payload import Payload
from auditor.model import (
    Conversation,
    Message,
    Outcome,
    TextPart,
    ToolCall,
    ToolResult,
)

if TYPE_CHECKING:  # filled in by the claim stage, which comes after pairing
    from auditor.audit.claims.judge import ClaimDecision


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
    ends_log: bool = False  # no result, and the assistant neither wrote nor called after it
    decision: OutcomeDecision | None = None
    impact: str = "unknown"  # what the call would have done (audit/impact.py)
    recovered_by: str | None = None
    probe: bool = False  # a failed read the assistant moved past with further calls
    claim: ClaimDecision | None = None  # None: not read (no finding can follow)
    timestamp: datetime | None = None  # of the message that made the call, or of its result

    @property
    def outcome(self) -> Outcome:
        assert self.decision is not None
        return self.decision.outcome


Texts = dict[int, list[tuple[int, str, str]]]


def lay_out(
    conversation: Conversation, host_written: re.Pattern[str] | None = None
) -> tuple[list[CallSlot], Texts, dict[int, str], list[ToolResult]]:
    """Calls in order, assistant texts per turn ``(position, group, text)``, the person's
    request per turn, and results that matched no call.

    A turn starts at a user message a person wrote; one whose text ``host_written`` matches (a
    context-compaction summary, a hook's output, a system reminder) is the host's, not theirs.
    """
    slots: list[CallSlot] = []
    open_calls: dict[str, list[CallSlot]] = defaultdict(list)
    texts: Texts = defaultdict(list)
    requests: dict[int, str] = defaultdict(str)
    orphans: list[ToolResult] = []
    turn = 0
    started = False
    position = 0
    for index, message in enumerate(conversation.messages):
        by_person = message.role == "user" and message.from_person
        if by_person and host_written is not None and _host_wrote(message, host_written):
            by_person = False
        if by_person:
            turn = turn + 1 if started else 0
            started = True
        group = message.message_id or f"#{index}"
        for part in message.parts:
            position += 1
            if isinstance(part, TextPart):
                if message.role == "assistant" and part.text.strip():
                    texts[turn].append((position, group, part.text))
                elif by_person:
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
    # The assistant's texts in the order written: turns only grow, and positions within them.
    spoke = [(pos, group) for turn_texts in texts.values() for pos, group, _ in turn_texts]
    spoke_at = [pos for pos, _ in spoke]
    for slot in slots:
        if slot.result_position is None:
            # Calls made beside it in the same message do not count as speaking again.
            slot.ends_log = (not spoke_at or spoke_at[-1] <= slot.position) and all(
                other.group == slot.group for other in slots if other.position > slot.position
            )
            continue
        # Texts written between the call and its result, by another message than the call's.
        first = bisect_right(spoke_at, slot.position)
        last = bisect_left(spoke_at, slot.result_position, first)
        slot.late = any(group != slot.group for _, group in spoke[first:last])
    return slots, texts, requests, orphans


def _host_wrote(message: Message, host_written: re.Pattern[str]) -> bool:
    """Is every text of a user-role message one the host wrote?"""
    texts = [p.text for p in message.parts if isinstance(p, TextPart) and p.text.strip()]
    return bool(texts) and all(host_written.match(text.lstrip()) for text in texts)
