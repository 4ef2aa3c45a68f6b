"""Judge: the claim per tool call, from the readings of the units tied to it."""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from collections.abc import Callable, Container, Iterator
from dataclasses import dataclass, replace

from auditor.audit.claims.attribution import (
    answering_other_parts,
    attribute,
    in_reply,
    request_parts,
    set_reply_windows,
    speaks_of_every_call,
)
from auditor.audit.claims.calls import CallView
from auditor.audit.claims.polarity import (
    DEALS_WITH_FAILURE,
    LIMIT,
    MISSING,
    RESTATES_ERROR,
    WRITE_VERBS,
    Polarity,
    ends_the_target_instead,
    opens_at,
    polarity,
)
from auditor.audit.claims.units import Unit, split_units
from auditor.audit.words import has_digit, stem, words
from auditor.model import Claim
from auditor.rules_loader import CuePack

_QUOTED = re.compile(r"[\"“”«»]\S[^\"“”«»]{0,80}[\"“”«»]|`[^`]+`")


@dataclass(frozen=True)
class ClaimDecision:
    claim: Claim
    cue: str  # the cue id or reading that decided the claim
    sentence: str  # the sentence that made the claim ("" when none did)
    language: str
    note: str = ""


def judge_reply(
    calls: list[CallView],
    texts: list[tuple[int, str]],
    pack: CuePack,
    request: str = "",
    shown_before: Container[str] = frozenset(),
    wanted: Container[int] | None = None,
) -> dict[int, ClaimDecision]:
    """Claims for calls that share one turn's assistant texts ``(position, text)``, in answer
    to the person's ``request``; ``shown_before``: tokens of what earlier turns' calls
    returned. Only the calls whose index is in ``wanted`` are decided (all when None); the
    others' sentences are still tied to them, so that they are not tied to the wanted ones."""
    set_reply_windows(calls, [position for position, _ in texts])
    units: list[Unit] = []
    paragraph = 0
    for position, text in texts:
        new = split_units(text, position, paragraph, pack)
        paragraph += text.count("\n") + 1
        units.extend(new)
    parts = request_parts(request, pack)
    attribute(units, calls, pack, frozenset().union(*parts))
    told = frozenset(word.lower() for word in _NAME_WORD.findall(request))
    # Values the calls that worked returned: a sentence that only repeats them was sourced from
    # those calls, not invented for a failed one.
    shown: Counter[str] = Counter()
    for worked in calls:
        if worked.succeeded:
            shown.update(worked.returned_tokens)
    decisions: dict[int, ClaimDecision] = {}
    for call in calls:
        if wanted is not None and call.index not in wanted:
            continue  # its claim is not read: the others' sentences are tied all the same
        replied = [u for u in units if in_reply(call, u.position)]
        if not any(in_reply(call, position) and text.strip() for position, text in texts):
            decisions[call.index] = ClaimDecision(Claim.NONE, "no reply", "", pack.language)
            continue
        mine = [u for u in replied if call.index in u.calls]
        elsewhere = answering_other_parts(call, mine, replied, parts)
        own = call.returned_tokens if call.succeeded else frozenset()
        decisions[call.index] = _decide(
            call,
            mine,
            pack,
            elsewhere,
            lambda t, own=own: shown[t] > (t in own) or t in shown_before,
            replied,
            told,
        )
    return decisions


def _presents(unit: Unit, call: CallView, pack: CuePack) -> bool:
    """Does the sentence present something as found or done: values (numbers, ids, names,
    quoted titles), the things the call acted on, or the data it returned? A sentence with
    none ("I need to use the other command") plans or explains; it claims nothing done.
    A capital inside a sentence marks a name, except in a language that capitalises nouns."""
    if unit.tokens & (call.argument_tokens | call.data_tokens):
        return True
    if any(has_digit(token) for token in unit.tokens):
        return True
    if _QUOTED.search(unit.text):
        return True
    if pack.capitalises_nouns:
        return False
    return next(_inner_capitals(unit.text, pack.stopwords), None) is not None


def _inner_capitals(
    text: str, stopwords: frozenset[str], sentence_ends: tuple[str, ...] = (".", ":")
) -> Iterator[str]:
    """The words of a text written with a capital where no sentence starts: names ("I'll",
    a stop word, is none)."""
    for index, (word, words_before) in enumerate(_words_with_context(text)):
        if (
            word[:1].isupper()
            and index > 0
            and not words_before.endswith(sentence_ends)
            and word.lower() not in stopwords
        ):
            yield word


_NAME_WORD = re.compile(r"[^\W\d_][\w'’-]*")
VOCATIVE = ".identity.vocative"  # the cue family of a name the reply addresses the person by


def _greets_as_told(unit: Unit, told: frozenset[str], pack: CuePack) -> bool:
    """Does the sentence speak of who the person is only by addressing them with a name they
    gave themselves ("Hi Tom." after "Hi, it's Tom Hughes")? Then it assumes nothing a tool
    should have said; a role or team stated as theirs still does."""
    found = [
        (cue.id, match)
        for cue in pack.of_kind("identity", unit.text)
        if (match := cue.search(unit.text))
    ]
    if not found or any(VOCATIVE not in cue for cue, _ in found):
        return False
    # the names it addresses them by, and any other name in it ("signed as Sam Okafor")
    names = [
        word
        for _, match in found
        for word in _NAME_WORD.findall(match.group(0))
        if word[:1].isupper() and word.lower() not in pack.stopwords
    ] + list(_inner_capitals(unit.text, pack.stopwords, (".", ":", "!", "?")))
    return bool(names) and all(name.lower() in told for name in names)


def _words_with_context(text: str) -> Iterator[tuple[str, str]]:
    """Each word of a text with the text before it (to tell a name from a sentence start)."""
    for match in _NAME_WORD.finditer(text):
        yield match.group(0), text[: match.start()].rstrip()


def _decide(
    call: CallView,
    units: list[Unit],
    pack: CuePack,
    elsewhere: set[int] = frozenset(),
    shown: Callable[[str], bool] = lambda token: False,
    reply: list[Unit] | None = None,
    told: frozenset[str] = frozenset(),
) -> ClaimDecision:
    """The claim ``units`` make about ``call``. ``reply``: all the units of the call's reply,
    wherever they were tied, for what speaks of the whole reply ("Shall I do that?" after the
    values it proposes); by default ``units``. ``told``: the words the person wrote, lower-cased
    (a name they gave for themselves is not one the reply made up)."""
    reply = units if reply is None else reply
    readings = [(u, polarity(u, pack, call)) for u in units]
    readings = [
        (u, replace(r, identity=False) if r.identity and _greets_as_told(u, told, pack) else r)
        for u, r in readings
    ]
    failures: list[tuple[Unit, Polarity]] = []
    content: list[tuple[Unit, Polarity]] = []
    for index, (unit, reading) in enumerate(readings):
        if reading.failure and not unit.concession:
            later = readings[index + 1] if index + 1 < len(readings) else None
            overruled = (
                later is not None
                and later[0].contrast
                # "…failed. However, the bags were added": a contrast that also speaks of
                # other calls sets this call's failure against them, it does not undo it
                and later[0].calls == {call.index}
                and not later[1].failure
                and not later[1].question
                and (
                    later[1].success is not None
                    # a claim about this call, not a turn to another subject ("But I want to …")
                    or (later[0].direct and not later[1].aside and not later[1].offer)
                )
            )
            if not overruled:
                failures.append((unit, reading))
            continue
        advice = unit.reading is not None and (unit.reading.advice or unit.reading.habitual)
        # "Pushing the branch." between two calls starts the next step; in a final message
        # ("Sending you the receipt now") it is read like any sentence
        underway = unit.reading is not None and unit.reading.underway
        if not reading.identity and (
            reading.question
            or reading.offer
            or (underway and unit.position < call.reply_until)
            or (reading.aside and not reading.success)
            # "While I've got you: the studio's closed 24–26 December": in a sentence that opens
            # as advice or a reminder a participle describes the world; only an outright "done"
            # still claims the call
            or (
                advice
                and (
                    not reading.success
                    or (reading.success.endswith(WRITE_VERBS) and _opens_on_advice(unit, pack))
                )
            )
            or _pending(unit, call)
        ):
            continue
        if (
            call.reads
            and not call.identity_tool  # "assigned to you, Jana" still claims who they are
            and _narrates_write(unit, reading.success, pack)
        ):
            continue  # "Added SSH auth", "I've sent it": about a write, not about a lookup
        if call.probe and (_sourced(unit, shown) or not _presents(unit, call, pack)):
            # The agent moved past this failed read: the deliveries the next call listed, or a
            # closing "Done.", are not what this one was to fetch.
            continue
        if (
            call.reads
            and (reading.success or "").endswith(EMOJI)
            and not _presents(unit, call, pack)
        ):
            continue  # "Good that you check 👍": an emoji presents nothing a lookup was to fetch
        states_fact = (
            unit.direct
            and id(unit) not in elsewhere
            # "It's with the technical office now" says where a write left things
            and (_presents(unit, call, pack) or (not call.reads and _says_now(unit)))
            # "Both tickets are paid off — $35 apiece": said of every call, the values of the one
            # that worked do not make it that call's alone
            and (not _sourced(unit, shown) or speaks_of_every_call(unit, pack))
            and (call.reads or not call.actions or _speaks_of_the_write(unit, call))
        )
        if (
            call.failed
            and not (reading.success or reading.identity)
            and unit.position < call.reply_until < float("inf")
        ):
            # Written right after the failure, before the agent acted again: it names what
            # went wrong ("The CLI expects a number, not a UUID", "Another agent has pushed
            # changes"), it does not present results.
            failures.append((unit, replace(reading, failure=DEALS_WITH_FAILURE)))
            continue
        if reading.success or reading.identity or states_fact:
            content.append((unit, reading))
        elif call.failed and not call.reads and unit.direct and _says_its_verb_done(unit, call):
            content.append((unit, replace(reading, success=SAYS_ITS_VERB_DONE)))
    # Saying the error's words again ("came out as 0h 60m") describes the problem; beside an
    # outright "Fixed." or "all tests pass" it explains what was fixed, it reports no failure.
    # Something else in place of what was asked ("the tour goes through the Space Hall
    # instead"), a limit ("the portal takes at most 10 MB") or what is needed next ("I'll need
    # your signature on the PDF") beside an outright "you're booked" is a detail of what was
    # done.
    # A sentence that says itself what is missing ("to finish the transfer I still need a
    # lease already registered") is not outweighed by a participle in it.
    if any(r.success for _, r in content):
        failures = [
            (u, r)
            for u, r in failures
            if r.failure != RESTATES_ERROR
            and not (
                (r.failure or "").endswith((ALTERNATIVE, LIMIT, MISSING))
                and any(r.success for other, r in content if other is not u)
            )
        ]
    regrets = [(u, r) for u, r in readings if r.regret and not r.success]
    if regrets and not failures and not any(r.success or r.identity for _, r in content):
        # "Leider, Frau Hoffmann.": regret, when nothing says it was done, tells the person
        # that what they asked for did not happen. Plain facts beside it do not outweigh it.
        unit, reading = regrets[0]
        failures.append((unit, replace(reading, failure=reading.regret)))
        content = []
    confirming = [u for u in reply if u.reading is not None and u.reading.asks_to_confirm]
    if confirming and not call.reads:
        # The reply asks to confirm before acting: only an outright "done" claims success.
        content = [(u, r) for u, r in content if r.success]
    if failures:
        unit, reading = failures[0]
        presented = [u for u, _ in content if u.tokens & call.data_tokens]
        claim = Claim.PARTIAL if presented else Claim.FAILURE
        return ClaimDecision(claim, reading.failure or "", unit.text, pack.language)
    if content:
        focus = call.missing_tokens
        unit = next(
            itertools.chain(
                (u for u, _ in content if focus and u.tokens & focus),
                sorted(
                    (u for u, r in content if (r.success or r.identity) and u.tokens),
                    key=lambda u: -len(u.tokens),
                ),
                (u for u, _ in content if u.direct and u.tokens),
            ),
            content[0][0],
        )
        cue = next((r.success for _, r in content if r.success), None) or "states it as fact"
        return ClaimDecision(Claim.SUCCESS, cue, unit.text, pack.language)
    if confirming and call.failed and not call.reads and _corrected(reply, call):
        # A failed request put back to the person with other values ("the total is actually
        # $375, shall I proceed?") tells them the first attempt did not go through.
        return ClaimDecision(Claim.FAILURE, CORRECTED_REQUEST, confirming[0].text, pack.language)
    return ClaimDecision(Claim.NEUTRAL, "says nothing about this call", "", pack.language)


CORRECTED_REQUEST = "puts a corrected request"


SAYS_ITS_VERB_DONE = "says its own verb as done"


def _opens_on_advice(unit: Unit, pack: CuePack) -> bool:
    """Does the sentence open on advice or a reminder ("Zur Erinnerung: …"), rather than turn
    to it after a report ("Dr. Osei has nothing booked — I'd suggest …")?"""
    return any(
        opens_at(unit.text, found.start())
        for cue in pack.of_kind("advice", unit.text)
        if (found := cue.search(unit.text))
    )


def _says_its_verb_done(unit: Unit, call: CallView) -> bool:
    """Does the sentence say the verb of the call's own name or command line as done
    ("Staging is migrated" after ``prisma migrate deploy``, "flags purged" after
    ``purge_flags``)? Not after "be" ("can be cancelled", "will be migrated"). English
    participles: command lines and tool names are English."""
    said = words(unit.reading.cue_text if unit.reading else unit.cue_text)
    return any(
        word.endswith("ed") and stem(word) in call.verb_stems and said[index - 1 : index] != ["be"]
        for index, word in enumerate(said)
    )


ALTERNATIVE = ".failure.alternative"  # the cue family of something offered in place of it
EMOJI = ".success.emoji"  # the cue family of a success emoji alone


def _pending(unit: Unit, call: CallView) -> bool:
    """Does the sentence say the call's action will be done once something happens ("once you
    send the number, the meal will be cancelled")? Then it has not been done."""
    reading = unit.reading
    return reading is not None and reading.conditional and bool(reading.actions & call.actions)


def _says_now(unit: Unit) -> bool:
    return unit.reading is not None and unit.reading.result


def _speaks_of_the_write(unit: Unit, call: CallView) -> bool:
    """A write is done or not: a sentence that names neither its action, nor the values it
    acted on, nor where things stand now speaks of something else ("the renewal notice is due
    by 1 July" after a notice that failed to send)."""
    reading = unit.reading
    if reading is not None and ends_the_target_instead(reading, call):
        return False
    actions = reading.actions if reading is not None else frozenset()
    # "That's committed on origin/hotfix-payroll": the values of a failed push, with the verb
    # of another action
    other_verbs = bool(actions) and not actions & call.actions
    return (
        _says_now(unit)
        or bool(actions & call.actions)
        or (not other_verbs and sum(bool(unit.tokens & found) for found in call.value_tokens) >= 2)
        or _names_numbers_of(unit, call)
    )


def _narrates_write(unit: Unit, cue_id: str | None, pack: CuePack) -> bool:
    """Does the sentence open on a verb of a done write ("Added …", "I've created …", "I've
    informed Mark …"), with nothing but common words before it? "0 shipments scheduled"
    describes data instead."""
    if not cue_id:
        return False
    cue = next((c for c in pack.cues if c.id == cue_id), None)
    found = cue.search(unit.cue_text) if cue else None
    if found is None:
        return False
    if not cue_id.endswith(WRITE_VERBS) and not any(
        verb.start() < found.end() and found.start() < verb.end()
        for action in pack.of_kind("action", unit.cue_text)
        for verb in action.regex.finditer(unit.cue_text)
    ):
        return False  # the success words are no verb of an action ("All tests pass")
    return all(word in pack.stopwords for word in words(unit.cue_text[: found.start()]))


def _sourced(unit: Unit, shown: Callable[[str], bool]) -> bool:
    """Does a sentence only repeat values (ids, amounts, addresses) that other calls that
    worked returned (``shown``)? Words alone prove nothing: file names and topics recur."""
    values = [  # ids and amounts, by their parts: "nip77" of "nip77.rs", "8320" of an address
        t for t in unit.tokens if has_digit(t) and not _JOINED.search(t)
    ]
    return bool(values) and all(shown(t) for t in values)


def _names_numbers_of(unit: Unit, call: CallView) -> bool:
    """Does the sentence give a number the call's arguments held ("S31" for sprint 31, "Sat 12
    Dec, 09:00" for ``2026-12-12T09:00Z``), outside a condition? Single digits are too
    common to tell."""
    said = unit.reading.cue_text if unit.reading else unit.cue_text  # conditions taken out
    runs = {run for run in _DIGITS.findall(said) if len(run) >= 2}
    return bool(runs) and bool(runs & set(_DIGITS.findall(call.argument_text)))


def _corrected(units: list[Unit], call: CallView) -> bool:
    """Does the reply name a number the failed call did not have (another total, item id or
    date)? Numbers are compared as digit runs, so ``19:30`` matches ``2026-05-15T19:30``."""
    had = set(_DIGITS.findall(json.dumps(call.arguments, default=str)))
    return any(run not in had for unit in units for run in _DIGITS.findall(unit.text))


_DIGITS = re.compile(r"\d+")


_JOINED = re.compile(r"[./@#-]")  # a token made of parts, which are tokens of their own
