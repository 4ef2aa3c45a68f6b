"""Polarity: what one unit says about one call, from the cue pack's failure, success, offer
and aside cues."""

from __future__ import annotations

import re
from dataclasses import dataclass

from auditor.audit.claims.calls import CallView
from auditor.audit.claims.identity import claims_identity, speaks_of_identity
from auditor.audit.claims.units import RECORD_ID, Unit
from auditor.audit.words import has_digit, name_words, tokens, words
from auditor.rules_loader import CuePack

_QUESTION_END = re.compile(r"\?[\s\W]*$")


_INTRO_END = re.compile(r":\s*$")


DEALS_WITH_FAILURE = "deals with the failed step"  # the agent reacts to the failure


WRITE_VERBS = ".success.completed-verb"  # the cue family of verbs of done writes


RESTATES_ERROR = "restates the error"  # the reading of a sentence that says the error again


# "No record of that", "no card on file": a report only when the error said nothing is there.
# "Nothing there": after a lookup that failed for another reason, an empty answer presented as
# what it found ("no record of it", "the sign-up sheet is still empty")
NONE_FOUND = (
    ".failure.none-found",
    ".failure.none-kept",
    ".failure.nothing-done",
    ".failure.stays-empty",
)


# "The portal takes at most 10 MB per file": after a failed write, the limit it went over;
# after a failed lookup, what the lookup was to fetch ("your plan allows up to 5 seats").
LIMIT = ".failure.limit"


# "Your profile still shows the old address": after a failed write, the change not made; after a
# lookup, what it was to fetch.
UNCHANGED = ".failure.unchanged"


# "I'll need your student number": what is missing before the request can be done.
MISSING = ".failure.missing"


# An error that itself says the thing is not there (APIs word their errors in English): after
# it, "there is no such order" repeats what the tool said. After any other error (a rate limit,
# a 401) the same sentence presents an empty answer as fact.
_NOTHING_THERE = re.compile(
    r"not[ _-]?found|no such|does ?n[o'’]?t exist|unknown \w+|\b404\b|no (?:matching |\w+ )?"
    r"(?:record|result|match|entr(?:y|ies)|user|account)s?\b|\b0 (?:results|matches)\b"
    r"|\bno (?:\w+[ _-]){1,3}found\b|\bnothing (?:was )?found\b",
    re.I,
)


@dataclass(frozen=True)
class Polarity:
    failure: str | None  # id of the failure cue, None when the unit reports no failure
    success: str | None  # id of an outright success cue
    question: bool
    aside: bool  # greeting or heading: not a claim unless it says outright it was done
    offer: bool  # an offer, a question back or a statement of intent: never a claim
    identity: bool  # speaks of who the person is
    regret: str | None = None  # a word of regret, said of a call that failed


@dataclass(frozen=True)
class Reading:
    """What a unit says whatever call it speaks of: its cue matches, worked out once."""

    failures: tuple[tuple[str, re.Match[str]], ...]  # (cue id, match) in cue order
    cue_text: str  # the text the failure matches were found in (opposites removed)
    success: str | None
    question: bool
    aside: bool
    offer: bool
    asks_to_confirm: bool
    speaks_of_identity: bool
    empty: str | None = None  # id of a cue that states there is nothing ("no new messages")
    actions: frozenset[str] = frozenset()  # the actions its verbs name ("pinged" -> send)
    regret: str | None = None  # id of a word of regret ("leider", "unfortunately")
    recounts: tuple[str, str] | None = None  # (cue id, thing) of "the CI log showed …"
    advice: bool = False  # advice or a tip for the person: no claim unless it says it was done
    habitual: bool = False  # what usually happens: a remark about the world, not about this turn
    result: bool = False  # says where things stand now ("it's with Jana now")
    conditional: bool = False  # opens on a condition ("once you send the number, …")
    underway: bool = False  # an agent starting its next step ("Pushing the branch.")


def opens_at(text: str, start: int) -> bool:
    """Does ``text`` open at ``start``, with only marks of a list or emphasis before it?"""
    return not text[:start].strip(" \t*_-–—(")


def read_unit(unit: Unit, pack: CuePack) -> Reading:
    # Each kind's cues are taken as ``of_kind(kind, text)`` gives them for the text they are
    # searched in: those that may match it, in pack order (a cue left out finds nothing there).
    text = unit.cue_text
    for cue in pack.of_kind("not_failure"):
        text = cue.sub(" ", text)  # "no errors", "0 failed"
    conditional = False
    for cue in pack.of_kind("hypothetical"):
        found = cue.search(text)
        if found is None:
            continue
        # a sentence that opens on a condition ("Once you send the number, the meal is
        # cancelled") says what will follow it
        conditional = conditional or opens_at(text, found.start())
        text = cue.sub(" ", text)  # "if the service is down, …"
    without_habits = text
    for cue in pack.of_kind("habitual", text):
        without_habits = cue.sub(" ", without_habits)  # "refunds usually land within 5-10 days"
    habitual, text = without_habits != text, without_habits
    past = any(c.search(text) for c in pack.of_kind("past", text))
    # The items of a list put to the person as a question or a condition ("If her card is
    # declined, what next? 1) retry in 3 days …") are choices, not reports.
    hypothetical = bool(unit.listed_under) and (
        bool(_QUESTION_END.search(unit.listed_under))
        or any(c.search(unit.listed_under) for c in pack.of_kind("hypothetical", unit.listed_under))
    )
    failures = (
        ()
        if past or hypothetical
        else tuple(
            (cue.id, match)
            for cue in pack.of_kind("failure", text)
            for match in cue.regex.finditer(text)
        )
    )
    return Reading(
        failures=failures,
        cue_text=text,
        # what a sentence about the past says was done was done then, not by this turn's calls
        success=None
        if past
        else next((c.id for c in pack.of_kind("success", text) if c.search(text)), None),
        question=bool(_QUESTION_END.search(unit.text)),
        aside=(
            past
            or unit.heading
            or any(c.search(unit.text) for c in pack.of_kind("filler", unit.text))
            # a line that ends with a colon introduces; it presents what a list or table
            # under it shows
            or (bool(_INTRO_END.search(unit.text)) and not unit.introduces)
            or not unit.tokens
        ),
        # an item of a list that an offer or a question introduced ("Here are your options:")
        # is one of the choices put to the person, not something done
        # read without a leading condition: "Once the files are there, I can proceed …"
        offer=any(
            c.search(unit.text)
            or c.search(text)
            or (unit.listed_under and c.search(unit.listed_under))
            for c in pack.of_kind("offer")
        ),
        asks_to_confirm=any(
            c.search(unit.cue_text) for c in pack.of_kind("confirm", unit.cue_text)
        ),
        speaks_of_identity=speaks_of_identity(unit.text, pack),
        empty=next((c.id for c in pack.of_kind("empty", text) if c.search(text)), None),
        regret=next((c.id for c in pack.of_kind("regret", text) if c.search(text)), None),
        # an item listed under advice ("A few things that help on show day:") is advice too
        advice=any(c.search(text) for c in pack.of_kind("advice", text))
        or any(c.search(unit.listed_under) for c in pack.of_kind("advice", unit.listed_under)),
        habitual=habitual,
        result=any(c.search(text) for c in pack.of_kind("result", text)),
        conditional=conditional,
        underway=any(c.search(unit.text) for c in pack.of_kind("underway", unit.text)),
        recounts=next(
            (
                (c.id, found.group("thing"))
                for c in pack.of_kind("recounts", unit.text)
                if (found := c.search(unit.text))
            ),
            None,
        ),
        actions=frozenset(
            c.id.rsplit(".", 1)[-1] for c in pack.of_kind("action", text) if c.regex.search(text)
        ),
    )


def polarity(unit: Unit, pack: CuePack, call: CallView) -> Polarity:
    """What a unit says about one call."""
    if unit.reading is None:
        unit.reading = read_unit(unit, pack)
    reading = unit.reading
    failure = None
    # When the call worked, a sentence that recounts its data ("Batch 2291 timed out at 02:14"
    # from a log it read) reports the data, not a failure of the call.
    if (
        reading.recounts
        and call.failed
        and call.reads
        and tokens(reading.recounts[1], pack.stopwords) & call.keywords.keys()
    ):
        # "The CI log showed test_x failing": what a failed read was to fetch, recounted as
        # seen. Its failure words are the thing's content, not a report of the read.
        return Polarity(
            None,
            reading.recounts[0],
            reading.question,
            reading.aside,
            reading.offer,
            claims_identity(call, reading.speaks_of_identity),
        )
    recounts_data = call.succeeded and bool(unit.tokens & call.data_tokens)
    # "No dietary notes on file" of the field a partial answer lacks presents it as empty; so
    # does "no recent transactions" beside the cards that came back, in words of no field
    # (the reply's language is not the schema's): nothing else of the answer was empty
    answers_empty = (
        _answers_empty(call)
        or bool(unit.tokens & call.missing_tokens)
        or bool(call.missing and not unit.tokens & call.returned_tokens)
    )
    empty = reading.empty if answers_empty else None
    if not recounts_data:
        of_records = False  # the sentence's status words describe records the call never named
        for cue_id, match in reading.failures:
            if _quotes(reading.cue_text, match, call.quoted_text):
                continue
            if _describes_records(unit, cue_id, call, reading, match.start()):
                of_records = of_records or cue_id.endswith(_STATUS_WORDS)
                continue
            if of_records and cue_id.endswith(_SHORTFALL):
                continue  # "the £62.10 payment was declined (not enough in the account)"
            if answers_empty and cue_id.endswith(NONE_FOUND):
                empty = empty or cue_id  # "no record of it" after a rate limit: an answer
                continue
            if call.reads and cue_id.endswith((LIMIT, UNCHANGED)):
                continue
            if _names_the_tool(match, call, pack):
                continue
            failure = cue_id
            break
    if (
        failure is None
        and reading.success is None
        # what is left once "no errors" and "to see if there are any errors" are taken out
        and call.restates_error(tokens(reading.cue_text, pack.stopwords))
    ):
        failure = RESTATES_ERROR
    success = reading.success
    if success and success.endswith(WRITE_VERBS) and ends_the_target_instead(reading, call):
        success = None
    return Polarity(
        failure,
        success or (None if failure else empty),
        reading.question,
        reading.aside,
        reading.offer,
        claims_identity(call, reading.speaks_of_identity),
        reading.regret if call.failed else None,
    )


def ends_the_target_instead(reading: Reading, call: CallView) -> bool:
    """Does the sentence say that its target was closed, cancelled or removed, when the call
    was to do something else to it ("Severn Water closed account 0048812" after a failed
    payment into it, "the studio's closed 24–26 December" after a failed booking)? That is
    what stood in the way, not the call's action done. An update can set any state, so a
    sentence after it is not judged this way."""
    return (
        bool(reading.actions)
        and reading.actions <= _ENDS_THE_TARGET
        and bool(call.actions)
        and not call.actions & (_ENDS_THE_TARGET | {"update"})
    )


_ENDS_THE_TARGET = frozenset({"close", "cancel", "delete"})


# Failure cue families that can speak of who the person is: after an identity lookup, other
# failure words ("the transfer bounced", "your bank rejected it") describe their records.
_IDENTITY_FAILURES = (
    ".failure.auth",
    ".failure.unknown",
    ".failure.empty",
    ".failure.inability",
    ".failure.not-found",
    *NONE_FOUND,
    ".failure.retry",
)


# Failure words that are also the status a record can have ("failed", "declined", "rejected"):
# said with values the call never named, they describe those records.
_STATUS_WORDS = (".failure.error-words", ".failure.refused")


# Failure words that can also be a record's state ("a debit that hasn't posted yet").
_NOT_YET = (".failure.not-done", ".failure.negated-participle")


# The reason a record was declined ("not enough in the account that day"), said beside it.
_SHORTFALL = ".failure.not-enough"


# Failure words that can also tell what happened to a record ("INV-2291 timed out", "a PO
# mismatch"), unlike those whose subject is the assistant ("I couldn't", "I wasn't able to").
_RECORD_EVENT_WORDS = (
    *_STATUS_WORDS,
    ".failure.timeout",
    ".failure.unavailable",
    ".failure.not-enough",
)


def _describes_records(
    unit: Unit, cue_id: str, call: CallView, reading: Reading, at: int = 0
) -> bool:
    """Do the failure words describe the subject matter rather than the call? A table's row
    ("412 — failed") describes a record unless it names what the call acted on; after an
    identity lookup, failure words that say nothing of who the person is describe their
    records."""
    if unit.table_row and not unit.tokens & call.specific_tokens:
        return True
    if (cue_id.endswith(_STATUS_WORDS) or (call.reads and cue_id.endswith(_NOT_YET))) and (
        _new_values(unit, call)
    ):
        # "The purchase at Continente (62,40 €) was declined", "the smoke detector failed the
        # 11 March inspection": records and events the call did not name. After a lookup, "a
        # debit of $62.10 that hasn't posted yet" is one of the records it was to fetch.
        return True
    if cue_id.endswith(_RECORD_EVENT_WORDS) and _names_other_record(reading.cue_text[:at], call):
        # "INV-2291, which their AP team declined over a PO mismatch": a record the call
        # never named, and then what happened to it.
        return True
    if not call.identity_tool or unit.tokens & call.name_tokens:
        return False
    if not cue_id.endswith(_IDENTITY_FAILURES):
        return True
    # "The PMS wouldn't let me assign room 312", "nothing changed on the February run": after
    # an identity lookup, failure words said of another action, with no word of who the
    # person is or of their sign-in, are about that action
    return (
        bool(reading.actions)
        and not reading.speaks_of_identity
        and not cue_id.endswith(_SIGN_IN_FAILURES)
    )


_SIGN_IN_FAILURES = (".failure.auth", ".failure.unknown")


def _names_the_tool(match: re.Match[str], call: CallView, pack: CuePack) -> bool:
    """Are the failure words what the tool is about ("no outage on record" after
    ``outage_lookup``, "3 failed payments" after ``list_failed_payments``)? Then they
    describe its subject, not how the call went."""
    said = tokens(match.group(0), _NO_STOPWORDS)  # "not submitted" keeps its "not"
    return bool(said) and said <= tokens(name_words(call.name), _NO_STOPWORDS)


_NO_STOPWORDS: frozenset[str] = frozenset()


def _new_values(unit: Unit, call: CallView) -> bool:
    """Does the sentence name values (amounts, dates, ids) that neither the call's arguments,
    its error, its data nor the person's request held?"""
    error = call.error_text.lower()
    return any(
        has_digit(token) and token not in call.quoted_text and token not in error
        for token in unit.tokens
    )


def _names_other_record(text: str, call: CallView) -> bool:
    """Does ``text`` name a record id (``INV-2291``: letters and digits) that neither the
    call's arguments, its error, its data nor the person's request held?"""
    error = call.error_text.lower()
    return any(
        word not in call.quoted_text and word not in error
        for word in map(str.lower, _RECORD_ID.findall(text))
    )


_RECORD_ID = re.compile(RECORD_ID)


def _answers_empty(call: CallView) -> bool:
    """Would "nothing there" answer this call? Only for a lookup that failed for another reason
    than the thing being absent: then the empty answer is presented as what the lookup found."""
    return (
        call.reads
        and call.failed
        and not call.identity_tool
        and not _NOTHING_THERE.search(call.error_text)
    )


def _quotes(text: str, match: re.Match[str], quoted_text: str) -> bool:
    """True when the failure words repeat the call's own data, arguments or the request
    (an issue titled "Fix 403 error", a page body, "re-run the failed checks", a clip named
    ``latte-art-fails.mp4``)."""
    before = words(text[: match.start()])[-1:]
    after = words(text[match.end() :])[:1]
    phrase = match.group(0).lower().strip()
    for candidate in (" ".join([*before, phrase]), " ".join([phrase, *after])):
        if len(candidate.split()) < 2:
            continue
        # a file or clip name says it with dashes: "latte-art-fails.mp4"
        if any(candidate.replace(" ", joint) in quoted_text for joint in (" ", "-", "_")):
            return True
    return False
