"""The claim stage's entry: each turn's calls and the reply to them, read with the cue pack of
the reply's language."""

from __future__ import annotations

import functools
import itertools
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from typing import Any

from auditor.audit.claims.calls import CallView, prepare_call
from auditor.audit.claims.judge import ClaimDecision, judge_reply
from auditor.audit.claims.language import LANGUAGE_SAMPLE_CHARS, detect_language
from auditor.audit.command_line import programs
from auditor.audit.commands import command_of, parse_command
from auditor.audit.pairing import CallSlot, Texts
from auditor.audit.tools import bare_tool_name, call_actions, is_identity_tool
from auditor.audit.words import LazyTokens, data_text, tokens
from auditor.model import (
    FAILED_OUTCOMES,
    Claim,
    Outcome,
)
from auditor.rules_loader import RuleSet

DEFAULT_LANGUAGE = "en"


CONTEXT_CHARS = 50_000


ERROR_TEXT_CHARS = 500  # of a failed result's text, for what its error says


def read_claims(
    slots: list[CallSlot], texts: Texts, requests: dict[int, str], rules: RuleSet
) -> None:
    """Set the claim of each call where a finding can follow (failed or partial, and not
    recovered), or of every call with ``rules.claims_all``; other calls keep claim None."""
    wanted = [slot for slot in slots if rules.claims_all or claim_is_read(slot)]
    if not wanted:
        return
    # What the person wrote and what the assistant wrote: a short reply ("Klaar!") is read in
    # the language of its conversation.
    # (only the head of a text tells its language: the rest is not joined)
    everything = joined_head(
        itertools.chain(
            requests.values(), (text for turn_texts in texts.values() for _, _, text in turn_texts)
        ),
        LANGUAGE_SAMPLE_CHARS,
    )
    conversation_language = detect_language(everything, rules, DEFAULT_LANGUAGE)
    by_turn: dict[int, list[CallSlot]] = defaultdict(list)
    for slot in slots:
        if bare_tool_name(slot.call.name).lower() not in rules.reasoning_tools:
            by_turn[slot.turn].append(slot)  # a thought is addressed to the agent itself
    data: dict[int, str] = {}  # each call's returned data as text, made once

    def data_of(slot: CallSlot) -> str:
        if id(slot) not in data:
            data[id(slot)] = _data_of(slot)
        return data[id(slot)]

    for turn in sorted({slot.turn for slot in wanted}):
        turn_slots = by_turn[turn]
        if not turn_slots:
            continue
        turn_texts = texts.get(turn, [])
        first = min(s.position for s in turn_slots)
        reply = joined_head(
            (text for pos, _, text in turn_texts if pos > first), LANGUAGE_SAMPLE_CHARS
        )
        language = detect_language(reply, rules, conversation_language) or DEFAULT_LANGUAGE
        pack = rules.packs.get(language)
        reading = [s for s in turn_slots if rules.claims_all or claim_is_read(s)]
        if pack is None:
            name = rules.language_names.get(language, language)
            for slot in reading:
                has_reply = any(pos > _ready_at(slot) for pos, _, _ in turn_texts)
                slot.claim = ClaimDecision(
                    Claim.UNREAD if has_reply else Claim.NONE,
                    "no cue pack",
                    "",
                    language,
                    note=f"reply in {name}: no claim cues for this language" if has_reply else "",
                )
            continue
        # The person's request and what the previous turn showed; a long agent run's own data
        # is not context, or nearly any phrase would be found in it. Made only when a sentence
        # could be quoting it (few are), once for the turn.
        context = functools.cache(
            lambda turn=turn: (
                requests.get(turn, "")
                + " "
                + joined_head(map(data_of, by_turn.get(turn - 1, [])), CONTEXT_CHARS)
            )
        )
        # the person's words, which in an error name what they asked about, not the problem
        asked = tokens(requests.get(turn, ""), pack.stopwords)
        views = [
            _view(index, slot, rules, pack, context, asked) for index, slot in enumerate(turn_slots)
        ]
        replies = [(pos, text) for pos, _, text in turn_texts]
        # Values earlier turns' calls returned: a reply that repeats them did not invent them.
        # Worked out only when a sentence needs them (most never do, and the text is long).
        earlier = [slot for slot in slots if slot.turn < turn]
        shown = LazyTokens(
            lambda earlier=earlier: " ".join(map(data_of, earlier))[-CONTEXT_CHARS:],
            pack.stopwords,
        )
        read_here = {id(slot) for slot in reading}
        wanted = {index for index, slot in enumerate(turn_slots) if id(slot) in read_here}
        decisions = judge_reply(views, replies, pack, requests.get(turn, ""), shown, wanted)
        for index, slot in enumerate(turn_slots):
            if index in wanted:
                slot.claim = decisions[index]
    if rules.claims_all:
        # A recovered call's action is the one its retry did: the reply speaks of both as one.
        by_id = {slot.call.id: slot for slot in slots}
        for slot in slots:
            retry = by_id.get(slot.recovered_by or "")
            if retry and slot.claim and retry.claim and slot.claim.claim == Claim.NEUTRAL:
                slot.claim = retry.claim


def joined_head(parts: Iterable[str], limit: int) -> str:
    """``" ".join(parts)[:limit]``, without making (or joining) the parts past the limit."""
    taken: list[str] = []
    size = -1
    for part in parts:
        taken.append(part)
        size += len(part) + 1
        if size >= limit:
            break
    return " ".join(taken)[:limit]


def claim_is_read(slot: CallSlot) -> bool:
    """The spec reads a claim only where a finding can follow: a call that neither worked
    (``ok``) nor was cut off, and was not recovered."""
    return slot.outcome not in (Outcome.OK, Outcome.CUT_OFF) and slot.recovered_by is None


def _carries_data(slot: CallSlot) -> bool:
    return slot.payload is not None and slot.outcome in (Outcome.OK, Outcome.GRAPHQL_PARTIAL)


def _data_of(slot: CallSlot) -> str:
    if not _carries_data(slot):
        return ""
    assert slot.payload is not None
    return data_text(
        [v.value for v in slot.payload.values], [t.text for t in slot.payload.plain], CONTEXT_CHARS
    )


def _ready_at(slot: CallSlot) -> int:
    return (
        slot.result_position
        if slot.result_position is not None and not slot.late
        else slot.position
    )


def _view(
    index: int,
    slot: CallSlot,
    rules: RuleSet,
    pack: Any,
    context: Callable[[], str],
    asked: Collection[str] = frozenset(),
) -> CallView:
    view = CallView(
        index=index,
        name=slot.call.name,
        arguments=slot.call.arguments,
        server=slot.call.server,
        identity_tool=is_identity_tool(slot.call.name, rules.outcomes),
        ready_at=_ready_at(slot),
        position=slot.position,
        succeeded=slot.outcome == Outcome.OK,
        failed=slot.outcome in FAILED_OUTCOMES or slot.outcome == Outcome.IDENTITY_NULL,
        reads=slot.impact in ("read", "identity"),
        probe=slot.probe,
        missing=slot.decision.missing if slot.decision else (),
        context_of=context,
    )
    command = command_of(slot.call, rules.impact)
    if command is not None:
        # a command line names what it acts on among its words ("fly deploy --app
        # wxrp-staging"): the app, ref, file or package a summary names it by
        segments = parse_command(command, rules.impact)
        view.command_objects = tuple(
            word
            for segment in segments
            for word in (
                *segment.arguments,
                *(option.split("=", 1)[1] for option in segment.options if "=" in option),
            )
        )
        view.command_verbs = tuple(
            word for segment in segments for word in (segment.program, segment.subcommand) if word
        )
    if not view.reads:
        found = programs(slot.call, rules.impact)
        view.actions = call_actions(slot.call.name, slot.call.arguments, found, rules.actions)
    if _carries_data(slot):
        assert slot.payload is not None
        view.result_values = [v.value for v in slot.payload.values]
        view.result_texts = [t.text for t in slot.payload.plain]
    if slot.decision is not None and slot.outcome != Outcome.OK:
        # the evidence is clipped for the table; the result's own text says the rest
        shown = (
            [t.text[:ERROR_TEXT_CHARS] for t in slot.payload.texts[:2]]
            if slot.payload and slot.outcome in FAILED_OUTCOMES
            else []
        )
        view.error_text = " ".join([slot.decision.evidence, *shown])
    prepare_call(view, pack.stopwords, asked if view.failed else frozenset())
    return view
