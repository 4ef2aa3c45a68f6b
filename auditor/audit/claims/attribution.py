"""Attribution: which tool calls each unit of a reply speaks of, and which text is a reply."""

from __future__ import annotations

import re
from collections.abc import KeysView, Sequence

from auditor.audit.claims.calls import CallView
from auditor.audit.claims.polarity import WRITE_VERBS, read_unit
from auditor.audit.claims.units import Unit
from auditor.audit.tools import tool_words
from auditor.audit.words import has_digit, tokens
from auditor.rules_loader import CompiledCue, CuePack

_REQUEST_PART_END = re.compile(r"[?!.;:,]\s+|\n+|\?")


TIE_RATIO = 0.6  # calls scoring at least this share of the best one are spoken of too


OTHER_PART_WORDS = 2  # words a sentence must share with another part of the request


def attribute(
    units: list[Unit], calls: list[CallView], pack: CuePack, asked: frozenset[str] = frozenset()
) -> None:
    """Tie each unit to the calls it speaks about (sets ``unit.calls`` and ``unit.direct``).
    ``asked``: the words of the person's request.

    A unit is tied *directly* when its own words match a call better than the others, when it
    speaks of who the person is and an identity tool was called, when it says "both" or
    "everything", or (with a single call to speak of) when it says outright that it was done,
    or, after a lookup, gives a value in the words of the person's question.
    Other units continue the sentence or paragraph before them; failure and success statements
    tied to nothing go to the calls the reply does not otherwise speak of.

    Words that name no call ("Done!", "everything", a lone call to speak of) speak of the
    *recent* calls: those since the assistant last wrote. In a chat turn that is every call of
    the turn; in an agent's long run it is the step just taken, not the whole run.
    """
    text_positions = sorted({u.position for u in units})
    by_index = {c.index: c for c in calls}
    loose: list[tuple[Unit, list[CallView]]] = []
    # The units of one text share their calls, and what is worked out from the calls alone.
    in_reply_at: dict[int, _InReply] = {}
    for unit in units:
        here = in_reply_at.get(unit.position)
        if here is None:
            here = in_reply_at[unit.position] = _InReply(
                [c for c in calls if in_reply(c, unit.position)], text_positions
            )
        candidates = here.candidates
        if not candidates:
            continue
        recent = here.recent
        said = unit.tokens
        common = [said & call.keywords.keys() for call in candidates]
        frequency: dict[str, int] = {}
        for found in common:
            for token in found:
                frequency[token] = frequency.get(token, 0) + 1
        if unit.reading is None:
            unit.reading = read_unit(unit, pack)
        single = len(recent) == 1
        shared_name_words = here.shared_name_words
        scores = {}
        for call, found, kept in zip(candidates, common, here.kept_keys, strict=True):
            shared = _scored(said, call.keywords.keys(), found, shared_name_words, kept)
            if _past_its_reply(call, unit):
                # The final message of a long run speaks of an early step only by naming what
                # it alone acted on (its ids and values): the tool's own words, and values every
                # call of the run shares, recur all through it.
                shared = {t for t in shared & call.specific_tokens if frequency[t] == 1}
            scores[call.index] = sum(call.keywords[t] / frequency[t] for t in shared)
        best = max(scores.values())
        identity_calls = (
            {c.index for c in candidates if c.identity_tool}
            if unit.reading.speaks_of_identity
            else set()
        )
        # The words of a tool's name name its action ("the refund went through"): the call whose
        # name the unit uses most is spoken of, whatever data the other calls share with it.
        named = {
            c.index: 0 if _past_its_reply(c, unit) else len(said & own_name)
            for c, own_name in zip(candidates, here.own_name_tokens, strict=True)
        }
        most_named = max(named.values())
        # A value only this call acted on (an id, a code, a title) names it too.
        exclusive = {
            c.index
            for c in candidates
            if any(frequency.get(t) == 1 for t in unit.tokens & c.argument_tokens)
        }
        tied = {i for i, s in scores.items() if best > 0 and s >= best * TIE_RATIO}
        tied |= {i for i, n in named.items() if most_named and n == most_named}
        tied = _by_action(unit, unit.reading.actions, tied, candidates)
        exclusive &= _by_action(unit, unit.reading.actions, set(exclusive), candidates)
        tied = _by_returned_data(unit, tied, by_index)
        # A sentence that says a failed call's error words again speaks of that call, whatever
        # data of other calls it also repeats.
        restating = (
            {c.index for c in candidates if c.restates_error(unit.tokens)}
            if unit.reading.failures
            else set()
        )
        tied |= restating
        if restating:
            # and not of another call tied only by words of that error ("vendor" of
            # send_vendor_confirmations, in "the vendor service timed out")
            explained = frozenset().union(*(by_index[i].error_tokens for i in restating))
            tied = {
                i
                for i in tied
                if i in restating
                or i in exclusive
                or (said & by_index[i].keywords.keys()) - explained
            }
        if (
            any(cue.endswith(SAYS_IT_COULD_NOT) for cue, _ in unit.reading.failures)
            and tied
            and all(by_index[i].succeeded and unit.tokens & by_index[i].data_tokens for i in tied)
        ):
            # A failure said in the words of the data a lookup returned ("I couldn't move the
            # call with Marco") is not about the lookup, which worked: it is about the failed
            # call beside it in the same reply.
            tied |= {c.index for c in candidates if c.failed and not _past_its_reply(c, unit)}
        success = unit.reading.success or ""
        if (
            success.endswith(WRITE_VERBS)
            and not unit.reading.failures
            and tied
            and all(by_index[i].reads for i in tied)
        ):
            # "LIN-311 is now assigned to you" names the issue a search found, but only a write
            # assigns: the writes that share its words are spoken of too.
            tied |= {
                c.index
                for c in candidates
                if not c.reads and not _past_its_reply(c, unit) and unit.tokens & c.keywords.keys()
            }
        # "The issue tools are not available": a failure said of a family of tools covers
        # every call whose name it uses, the words they all share included.
        family = (
            {c.index for c in candidates if unit.tokens & c.name_tokens and not c.succeeded}
            if unit.reading.failures
            else set()
        )
        if restating:
            # "the vendor service timed out" is the lookup's error said again, not a failure of
            # the send whose name shares "vendor"
            family &= restating
        elif family & exclusive:
            family &= exclusive  # "RX-1002 not approved" names one of the family's calls
        elif len(family) > 1:
            # "unable to create the calendar event" names one of the family by its own words,
            # not only by the verb every create shares
            family = _by_own_name_words(unit, family, by_index, pack.stopwords) or family
        if speaks_of_every_call(unit, pack):
            unit.calls = {c.index for c in recent}
            unit.direct = True
        elif tied or identity_calls or family:
            unit.calls = tied | exclusive | identity_calls | family
            unit.direct = True
        elif single and any(
            c.search(unit.cue_text)
            # "You're on 0 points": with one lookup, its answer
            for c in _cues(pack, ("success", "empty") if recent[0].reads else ("success",), unit)
        ):
            unit.calls = {recent[0].index}
            unit.direct = True
        elif (
            (answered := _the_one_lookup(recent)) is not None
            and not unit.reading.speaks_of_identity
            and _answers_in_asked_words(said, asked)
        ):
            # "Ta résa de ce soir : Renault Zoé (GH-512-TR)" after whoami and a lookup of the
            # bookings: who the person is was not what they asked, the one lookup answers it
            unit.calls = {answered.index}
            unit.direct = True
        elif single:
            unit.calls = {recent[0].index}
            # "Tienes 12.450 puntos" after "¿Cuántos puntos tengo?": the one lookup's answer,
            # in the words the person asked with rather than the tool's (who the person is
            # is not what they asked about)
            unit.direct = (
                recent[0].reads
                and not recent[0].identity_tool
                and _answers_in_asked_words(said, asked)
            )
        else:
            loose.append((unit, recent))
    _inherit(units)
    spoken_of = {i for u in units if u.direct for i in u.calls}
    for unit, candidates in loose:
        if unit.calls:
            continue
        if any(c.search(unit.cue_text) for c in _cues(pack, ("failure", "success"), unit)):
            unit.calls = {c.index for c in candidates if c.index not in spoken_of}
    _after_a_failed_step(units, calls)


def _by_own_name_words(
    unit: Unit, family: set[int], by_index: dict[int, CallView], stopwords: frozenset[str]
) -> set[int]:
    """The calls of a family whose own name words the unit uses: the words of the tool's name
    (its MCP server and prefix left out) that not every one of them has."""
    names = {i: tokens(" ".join(tool_words(by_index[i].name)), stopwords) for i in family}
    common = set.intersection(*names.values())
    return {i for i in family if unit.tokens & (names[i] - common)}


def _answers_in_asked_words(said: frozenset[str], asked: frozenset[str]) -> bool:
    """Does the sentence give a value (a number, an id) in the words of the person's question?"""
    return bool(said & asked) and any(has_digit(token) for token in said - asked)


def _the_one_lookup(recent: list[CallView]) -> CallView | None:
    """The one lookup among several calls when every other is an identity lookup."""
    if len(recent) < 2:
        return None
    others = [c for c in recent if not c.identity_tool]
    return others[0] if len(others) == 1 and others[0].reads else None


def speaks_of_every_call(unit: Unit, pack: CuePack) -> bool:
    """Does the sentence speak of every recent call ("both", "all of them", "everything")?"""
    return any(c.search(unit.cue_text) for c in pack.of_kind("universal", unit.cue_text))


# Failure cues whose subject is the assistant ("I couldn't move it"), never the subject matter.
SAYS_IT_COULD_NOT = (".failure.inability",)


def _cues(pack: CuePack, kinds: tuple[str, ...], unit: Unit) -> list[CompiledCue]:
    """The cues of ``kinds``, in that order, that may match the unit's cue text."""
    return [cue for kind in kinds for cue in pack.of_kind(kind, unit.cue_text)]


def _after_a_failed_step(units: list[Unit], calls: list[CallView]) -> None:
    """An agent's first words after a failed step, before it acts again, are about that step
    ("I have unused imports. Let me remove them:" after a push a hook refused), whatever other
    silent calls came before it."""
    for call in calls:
        if not call.failed or call.reply_until == float("inf"):
            continue
        if any(
            other.ready_at > call.ready_at and other.position < call.reply_from for other in calls
        ):
            continue  # another step came between
        for unit in units:
            verbs = unit.reading.actions if unit.reading else frozenset()
            if verbs and call.actions and not verbs & call.actions:
                continue  # "Committed it as 9b7d2e1" after a failed push speaks of the commit
            if call.reply_from <= unit.position < call.reply_until:
                unit.calls.add(call.index)


def _past_its_reply(call: CallView, unit: Unit) -> bool:
    """Is the unit in a long run's final message, after the assistant already wrote about this
    call right after it?"""
    return call.spoke_between and unit.position > call.reply_until


def _by_action(
    unit: Unit, verbs: frozenset[str], tied: set[int], candidates: list[CallView]
) -> set[int]:
    """A sentence whose verbs name an action ("pinged her", "committed it") speaks of the calls
    that did that action, even without their words, and not of a call that did another one,
    unless it names that call's own id. Among the calls of its action, those whose target it
    names are the ones spoken of (of two ``send_message`` calls, the one to #ops)."""
    if not verbs:
        return tied
    doing_each: list[set[int]] = []  # per verb, the calls that did that action...
    picked_each: list[set[int]] = []  # ...and those of them the sentence speaks of
    for verb in verbs:
        doing = [c for c in candidates if verb in c.actions and not _past_its_reply(c, unit)]
        if not doing:
            # An early step of a long run is named by an action no other call of it did
            # ("Migrations: upgraded …" after the run's one `alembic upgrade`), beside the
            # other actions the sentence lists ("schema migrated, SDK published")
            doing = [c for c in candidates if verb in c.actions]
            doing = doing if len(doing) == 1 else []
        if doing:
            targeted = [c for c in doing if unit.tokens & c.specific_tokens]
            doing_each.append({c.index for c in doing})
            picked_each.append({c.index for c in targeted or doing})
    if not doing_each:
        return tied  # verbs of an action no call here did ("it's live") tell nothing apart
    passed_over = set().union(*doing_each) - set().union(*picked_each)
    kept = {
        c.index
        for c in candidates
        if c.index in tied
        and (not c.actions or c.actions & verbs or unit.tokens & _ids_of(c))
        and c.index not in passed_over
    }
    for doing, picked in zip(doing_each, picked_each, strict=True):
        if not kept & doing:  # unless its words already name a call that did this
            kept |= picked
    return kept


def _ids_of(call: CallView) -> frozenset[str]:
    """The ids and numbers a call acted on (``OPS-142``, ``9b7d2e1``)."""
    return frozenset(t for t in call.specific_tokens if has_digit(t))


def _by_returned_data(unit: Unit, tied: set[int], by_index: dict[int, CallView]) -> set[int]:
    """Among calls of the same tool tied to a sentence, the ones whose returned data it repeats
    (two parallel ``update_reservation`` calls: the sentence with the new bags speaks of the one
    that returned them, not of its failed twin)."""
    by_tool: dict[tuple[str, frozenset[str]], list[int]] = {}
    for index in tied:
        # twins do the same thing: a shell tool's `ls` and its `cp` are not twins
        call = by_index[index]
        by_tool.setdefault((call.name, call.actions), []).append(index)
    kept = set(tied)
    for indexes in by_tool.values():
        if len(indexes) < 2:
            continue
        echoed = {i for i in indexes if unit.tokens & by_index[i].data_tokens}
        if echoed and echoed != set(indexes):
            kept -= set(indexes) - echoed
    return kept


class _InReply:
    """The calls a text at one position may speak of, and what the attribution of each of its
    units needs of them alone."""

    __slots__ = ("candidates", "kept_keys", "own_name_tokens", "recent", "shared_name_words")

    def __init__(self, candidates: list[CallView], text_positions: list[int]) -> None:
        self.candidates = candidates
        self.recent = _recent(candidates, text_positions) if candidates else []
        # A word every tool of the turn has in its name (a vendor's: "billing" of
        # billing_get_customer and billing_create_invoice) names none of them.
        self.shared_name_words = (
            frozenset.intersection(*(c.name_tokens for c in candidates))
            if len(candidates) > 1
            else frozenset()
        )
        self.own_name_tokens = [c.name_tokens - self.shared_name_words for c in candidates]
        # the size of each call's ``keywords.keys() - shared_name_words``
        self.kept_keys = [
            len(c.keywords) - len(self.shared_name_words & c.keywords.keys()) for c in candidates
        ]


def _scored(
    said: frozenset[str], keys: KeysView[str], found: set[str], left_out: frozenset[str], kept: int
) -> set[str]:
    """``said & keys - left_out`` (``found`` is ``said & keys``, ``kept`` the size of ``keys -
    left_out``), without copying ``keys`` into a set for every sentence and call. The set is
    built as that expression builds it, so that it is iterated in the same order (the scores
    are sums of floats over it): an intersection of sets walks the smaller one, here ``said``
    when it is smaller, adding each of its words that is in the other in turn."""
    if kept > len(said):
        if not left_out:
            return found  # made the same way: ``said`` walked, each key added in turn
        return {t for t in said if t in keys and t not in left_out}
    return said & keys - left_out


def _recent(candidates: list[CallView], text_positions: list[int]) -> list[CallView]:
    """The calls since the assistant last wrote before the latest of ``candidates``."""
    latest = max(c.ready_at for c in candidates)
    earlier_texts = [p for p in text_positions if p < latest]
    since = earlier_texts[-1] if earlier_texts else -1
    return [c for c in candidates if c.ready_at > since]


def _inherit(units: list[Unit]) -> None:
    """A unit without words of its own continues the sentence or paragraph before it."""
    previous: Unit | None = None
    for unit in units:
        if (
            not unit.calls
            and previous is not None
            and previous.calls
            and (previous.position, previous.paragraph) == (unit.position, unit.paragraph)
        ):
            unit.calls = set(previous.calls)
        previous = unit
    # A clause that opens a sentence with no words of its own takes the next clause's calls.
    for current, following in zip(reversed(units[:-1]), reversed(units[1:]), strict=True):
        if (
            not current.calls
            and following.calls
            and current.sentence == following.sentence
            and current.position == following.position
        ):
            current.calls = set(following.calls)


def in_reply(call: CallView, position: int) -> bool:
    """Is assistant text at ``position`` part of the reply to ``call``?"""
    return call.ready_at < position and (
        call.reply_from <= position < call.reply_until or position > call.final_from
    )


def set_reply_windows(calls: list[CallView], text_positions: Sequence[int] = ()) -> None:
    """The reply to a call is the first assistant text after its result (even when further
    calls came before it) up to the next tool call, and the turn's last text (back to the call
    before it). In a chat turn (calls, then a reply) that is all text after the result; in an
    agent's long run, later steps speak of later calls. The turn's last text is the last one
    written, whether or not the log ends with it."""
    if not calls:
        return
    call_positions = sorted(c.position for c in calls)
    texts = sorted(text_positions)
    for call in calls:
        after = [p for p in texts if p > call.ready_at]
        if not after:
            call.reply_from = call.reply_until = call.final_from = float("inf")
            call.spoke_between = False
            continue
        first, last = after[0], after[-1]
        call.reply_from = first
        call.reply_until = next((p for p in call_positions if p > first), float("inf"))
        before_last = [p for p in call_positions if p < last]
        call.final_from = max(before_last[-1] if before_last else 0, call.ready_at)
        call.spoke_between = call.reply_until < last


def request_parts(request: str, pack: CuePack) -> list[frozenset[str]]:
    """The words of each part of a request (its questions and asks), for telling which part a
    reply sentence answers."""
    return [
        part
        for piece in _REQUEST_PART_END.split(request)
        if (part := frozenset(tokens(piece, pack.stopwords)))
    ]


def answering_other_parts(
    call: CallView, mine: list[Unit], replied: list[Unit], parts: list[frozenset[str]]
) -> set[int]:
    """Units (by ``id``) that answer another part of a request that asked several things.

    "What's the status of order 5521, and how long is your returns window?": a sentence about
    returns that happens to say "orders" answers the second question, not the failed order
    lookup. A request part is the call's when it shares words with the call's name or
    arguments; a unit belongs to another part when it shares more words with that part than
    with the call's own, and at least OTHER_PART_WORDS of them (a tie is settled by its
    paragraph).
    """
    if not mine:
        return set()
    own = [part for part in parts if part & call.action_tokens]
    other = [part for part in parts if not part & call.action_tokens]
    if not own or not other:
        return set()

    def lean(words: frozenset[str]) -> int:
        answered = max(len(words & part) for part in other)
        if answered < OTHER_PART_WORDS:
            return 0  # one word ("Urgent!") is no other question
        return answered - max(len(words & part) for part in own)

    paragraphs: dict[int, frozenset[str]] = {}
    for unit in replied:
        paragraphs[unit.paragraph] = paragraphs.get(unit.paragraph, frozenset()) | unit.tokens
    out = set()
    for unit in mine:
        if unit.tokens & call.specific_tokens:
            continue  # it names the very thing the call was about
        leaning = lean(unit.tokens) or lean(paragraphs[unit.paragraph])
        if leaning > 0:
            out.add(id(unit))
    return out
