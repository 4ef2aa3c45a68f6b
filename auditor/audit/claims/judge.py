"""Reply text -> claim per tool call, with the cue and the sentence that decided it.

How a reply is read, in order:

1. **Units.** The reply is cut into sentences (markdown list items and table rows count as
   sentences) and sentences into clauses at contrast words ("…, but …"). Code spans and fenced
   blocks are data: their words tie a sentence to a call but never count as cues.
2. **Attribution.** Each unit is tied to the calls it speaks about, among the calls whose result
   came before it in the turn: the words of the tool name, the argument values, and the entities
   in the result are matched against the unit's words, each weighted by how few calls share it.
   A unit with no match continues the sentence or paragraph before it; a unit that speaks of
   "both" or "everything" covers every call.
3. **Polarity.** Per unit: failure cues ("couldn't", "was refused", "timed out", "could you
   reconnect?"), minus failure words that say the opposite ("no errors") or that merely quote
   the result's own data (an issue titled "Fix 403 error"); a clause after "but" outweighs the
   one before. Offers, greetings, headings and questions are not claims.
4. **Claim.** A call with a failure unit gets ``failure``, or ``partial`` when it also presents
   data from the result; a call with only plain statements gets ``success`` (values stated as
   fact are a claim of success); a call the reply never speaks of gets ``neutral``; a call with
   no reply at all gets ``none``.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from auditor.model import Claim
from auditor.rules_loader import CuePack, RuleSet

_FENCE = re.compile(r"```.*?(?:```|$)", re.S)
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_EMPHASIS = re.compile(r"\*\*|__|~~|(?<!\w)\*(?=\S)|(?<=\S)\*(?!\w)")
_LIST_MARK = re.compile(r"^\s*(?:[-*•+▪◦]|\d{1,3}[.)])\s+")
_HEADING = re.compile(r"^\s*(?:#{1,6}\s+|>\s*)")
_TITLE = re.compile(r"^\s*#{1,6}\s+")
_ALL_BOLD = re.compile(r"^\s*(?:\*\*|__)[^*_]{1,80}(?:\*\*|__)\s*:?\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")
_SENTENCE_END = re.compile(
    r"(?<=[.!?])[\"”’)\]]*\s+|(?<=[.!?])(?=[A-ZÀ-Ý¿¡])|(?<=…)\s+(?=[A-ZÀ-Ý¿¡])"
)
_WORD = re.compile(r"[^\W_][\w\-./@#']*[^\W_]|[^\W_]", re.UNICODE)
_SUBWORD = re.compile(r"[-_./@#']+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_QUOTED = re.compile(r"[\"“”«»]\S[^\"“”«»]{0,80}[\"“”«»]|`[^`]+`")
_GROUPED_NUMBER = re.compile(r"(?<=\d)[,\u202f\u00a0](?=\d{3}\b)")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_QUESTION_END = re.compile(r"\?[\s\W]*$")
_REQUEST_PART_END = re.compile(r"[?!.;:,]\s+|\n+|\?")
_INTRO_END = re.compile(r":\s*$")
_SUFFIX = re.compile(r"(?:ing|ed|s)$")
_DOUBLE_END = re.compile(r"([b-df-hj-np-tv-z])\1$")

MAX_RESULT_TOKENS = 400  # result tokens that tie a sentence to its call
MAX_DATA_TOKENS = 1500
UNIT_CHARS = 2000  # the longest sentence read for cues (a 1 MB run-on reply is cut)
ERROR_CHARS = 300  # the part of an error message that states the problem
RESTATED_WORDS = 2  # words of the error a sentence must say again to report it
LONG_VALUE = 200
LANGUAGE_MIN_SCORE = 2.0  # marker weight a text needs before its language is named
LANGUAGE_LEAD = 1.5  # how far the best language must lead the next
LANGUAGE_SAMPLE_CHARS = 4000  # enough text to tell a language by its common words
DATA_CHARS = 8_000  # how much of a result's data ties sentences to it
TIE_RATIO = 0.6  # calls scoring at least this share of the best one are spoken of too
NAME_WEIGHT = 1.5
OTHER_PART_WORDS = 2  # words a sentence must share with another part of the request


@dataclass
class CallView:
    """What the claim reader needs to know about one tool call."""

    index: int
    name: str
    arguments: Any
    server: str | None
    identity_tool: bool
    ready_at: int  # position after which assistant text is a reply to this call
    position: int = 0  # position of the call itself
    reply_until: float = float("inf")  # the next tool call after its result ends its reply...
    final_from: float = float("inf")  # ...but the turn's final message speaks of it too
    spoke_between: bool = False  # the assistant wrote about it before its next tool call
    result_values: list[Any] = field(default_factory=list)  # JSON data the call returned
    result_texts: list[str] = field(default_factory=list)  # plain text the call returned
    error_text: str = ""  # error message text of a failed call
    succeeded: bool = False  # outcome ok: failure words about its data describe the data
    failed: bool = False  # the call failed (or returned no identity)
    missing: tuple[str, ...] = ()  # fields a partial answer lacks: the sentence to quote
    context_text: str = ""  # the person's request and data the conversation showed before
    keywords: dict[str, float] = field(default_factory=dict)
    error_tokens: frozenset[str] = frozenset()  # words of its error that name the problem
    name_tokens: frozenset[str] = frozenset()  # the words of the tool's own name
    action_tokens: frozenset[str] = frozenset()  # words of its name, server and arguments
    argument_tokens: frozenset[str] = frozenset()  # specific values it acted on (ids, names)
    specific_tokens: frozenset[str] = frozenset()  # those, and ids and numbers in any argument
    quoted_text: str = ""  # result data, argument values and the request, lower-cased
    data_tokens: frozenset[str] = frozenset()


@dataclass
class Unit:
    """One sentence or clause of a reply."""

    text: str  # as shown to the person (markdown removed)
    cue_text: str  # the same with code masked, for cue matching
    position: int
    paragraph: int
    sentence: int
    clause: int
    contrast: bool = False
    concession: bool = False
    heading: bool = False  # a markdown heading or a line that is all bold: a title, not a claim
    tokens: frozenset[str] = frozenset()
    calls: set[int] = field(default_factory=set)
    direct: bool = False  # tied to its calls by its own words
    reading: Reading | None = None  # its cue matches, filled in when first needed


@dataclass(frozen=True)
class ClaimDecision:
    claim: Claim
    cue: str  # the cue id or reading that decided the claim
    sentence: str  # the sentence that made the claim ("" when none did)
    language: str
    note: str = ""


# ----------------------------------------------------------------------------- words
def stem(word: str) -> str:
    """A crude stem, so that "merged", "merge" and "merging" meet."""
    if len(word) <= 4 or not word.isalpha():
        return word
    word = _SUFFIX.sub("", word)
    word = word[:-1] if word.endswith("e") and len(word) > 4 else word
    return _DOUBLE_END.sub(r"\1", word)


def words(text: str) -> list[str]:
    """Lower-cased words and ids of a text, numbers without thousands separators."""
    return [
        token
        for word in _WORD.findall(_GROUPED_NUMBER.sub("", text))
        if (token := word.lower().strip("'"))
    ]


def tokens(text: str, stopwords: frozenset[str]) -> set[str]:
    """Distinctive tokens of a text: words, their parts (ids split at - _ . / and camelCase)
    and stems; no stop words, no tiny words."""
    if len(text) <= 200:
        return set(_short_tokens(text, stopwords))
    return set(_token_stream(text, stopwords))


@functools.lru_cache(maxsize=16384)
def _short_tokens(text: str, stopwords: frozenset[str]) -> frozenset[str]:
    """Tool names, argument values and sentences recur: their tokens are worked out once."""
    return frozenset(_token_stream(text, stopwords))


def first_tokens(text: str, stopwords: frozenset[str], limit: int) -> list[str]:
    """The first ``limit`` distinct tokens of a text, in order, reading no further than needed."""
    seen: dict[str, None] = {}
    for token in _token_stream(text, stopwords):
        if token not in seen:
            seen[token] = None
            if len(seen) >= limit:
                break
    return list(seen)


def _token_stream(text: str, stopwords: frozenset[str]) -> Iterator[str]:
    """The tokens of ``tokens`` in text order (with repeats), so that caps are deterministic."""
    for match in _WORD.finditer(_GROUPED_NUMBER.sub("", text)):
        yield from _word_tokens(match.group(0), stopwords)


@functools.lru_cache(maxsize=65536)
def _word_tokens(word: str, stopwords: frozenset[str]) -> tuple[str, ...]:
    """The tokens of one word: itself, its parts and stems (words recur, so this is cached)."""
    raw = word.strip("'")
    if _NUMBER.fullmatch(raw):
        return (raw,)
    pieces = [raw, *_SUBWORD.split(raw)]
    pieces += [
        part for piece in pieces if piece.isalpha() for part in _CAMEL.sub(" ", piece).split()
    ]
    found = []
    for piece in dict.fromkeys(pieces):
        piece = piece.lower()
        if not piece or piece in stopwords:
            continue
        has_digit = any(ch.isdigit() for ch in piece)
        if len(piece) < (2 if has_digit else 3) or (piece.isdigit() and len(piece) < 2):
            continue
        found.append(stem(piece))
    return tuple(found)


def _names_a_thing(value: str) -> bool:
    """A short argument value that names something (an id, a code, a title), not prose."""
    return len(value) <= 60 and len(value.split()) <= 4 and "://" not in value


def _specific(token: str) -> bool:
    """A token specific enough to name one thing: an id, a code, a name; not a small number."""
    if token.isdigit():
        return len(token) >= 3 and not (len(token) == 4 and token.startswith(("19", "20")))
    return len(token) >= 4 or any(ch.isdigit() for ch in token)


def _name_words(name: str) -> str:
    return " ".join(_SUBWORD.split(_CAMEL.sub(" ", name.replace("__", " "))))


def _strings(value: Any, limit: int = 2000) -> Iterable[str]:
    """String and number leaves of a JSON value, depth first, at most ``limit`` of them."""
    stack = [value]
    seen = 0
    while stack and seen < limit:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, (str, int, float)):
            seen += 1
            yield str(item)


def data_text(values: Iterable[Any], texts: Iterable[str], limit: int) -> str:
    """The first ``limit`` characters of the data a result carried, as one text: JSON leaves
    (not error parts) and plain texts. Reading stops at the limit: a large result is not walked
    for words nobody reads."""
    parts: list[str] = []
    size = 0
    for part in itertools.chain(_data_strings(values), texts):
        parts.append(part)
        size += len(part) + 1
        if size > limit:
            break
    return " ".join(parts)[:limit]


def _data_strings(values: Iterable[Any]) -> Iterator[str]:
    """Leaves of a result's data in order, leaving out the error parts of a GraphQL or REST
    answer."""
    stack: list[Any] = list(values)[::-1]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(
                item
                for key, item in reversed(value.items())
                if key not in ("errors", "error", "extensions")
            )
        elif isinstance(value, list):
            stack.extend(reversed(value))
        elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
            yield str(value)


def prepare_call(view: CallView, stopwords: frozenset[str]) -> None:
    """Fill in the keywords and result data a call is recognised by."""
    weights: dict[str, float] = {}

    def add(text: str, weight: float) -> None:
        for token in tokens(text, stopwords):
            weights[token] = max(weights.get(token, 0.0), weight)

    name = _name_words(view.name)
    add(name, NAME_WEIGHT)
    add(_name_words(view.server or ""), NAME_WEIGHT)
    view.name_tokens = frozenset(tokens(name, stopwords))
    for text in _strings(view.arguments, 200):
        # Long values (queries, message bodies) and links point at things; short ones name them.
        add(text, 0.5 if len(text) > LONG_VALUE or "://" in text else 1.0)
    data = data_text(view.result_values, view.result_texts, DATA_CHARS)
    data_tokens = first_tokens(data, stopwords, MAX_DATA_TOKENS)
    for token in data_tokens[:MAX_RESULT_TOKENS]:
        weights.setdefault(token, 1.0)
    add(view.error_text, 0.5)
    argument_text = " ".join(_strings(view.arguments, 200))
    view.argument_tokens = frozenset(
        t
        for text in _strings(view.arguments, 200)
        if _names_a_thing(text)
        for t in tokens(text, stopwords)
        if _specific(t)
    )
    view.action_tokens = tokens(
        f"{name} {_name_words(view.server or '')} {argument_text}", stopwords
    )
    view.specific_tokens = view.argument_tokens | frozenset(
        t for t in tokens(argument_text, stopwords) if len(t) >= 3 and any(c.isdigit() for c in t)
    )
    view.keywords = weights
    # The words an error uses for the problem itself ("not enough seats"), not for the thing it
    # happened to: a reply that says them again is telling the person what went wrong.
    view.error_tokens = frozenset(
        token
        for token in tokens(view.error_text[:ERROR_CHARS], stopwords)
        - tokens(argument_text, stopwords)
        - view.name_tokens
        if not any(ch.isdigit() for ch in token)
    )
    view.quoted_text = _GROUPED_NUMBER.sub(
        "", " ".join((data, argument_text, view.context_text)).lower()
    )
    view.data_tokens = frozenset(data_tokens) - tokens(argument_text, stopwords)


# ----------------------------------------------------------------------------- units
def split_units(text: str, position: int, paragraph_base: int, pack: CuePack) -> list[Unit]:
    """Sentences and clauses of one assistant text, markdown removed."""
    contrast = pack.of_kind("contrast")
    boundary = pack.of_kind("clause")
    concession = pack.of_kind("concession")
    units: list[Unit] = []
    text = _FENCE.sub("\n", text)  # a fenced block is data shown, not a sentence
    sentence_index = 0
    for paragraph, line in enumerate(text.splitlines()):
        if not line.strip() or _TABLE_RULE.match(line):
            continue
        line = _LIST_MARK.sub("", line)
        heading = bool(_TITLE.match(line)) or bool(_ALL_BOLD.match(line))
        line = _HEADING.sub("", line)
        if line.count("|") >= 2:
            line = " — ".join(cell.strip() for cell in line.strip().strip("|").split("|"))
        shown = _EMPHASIS.sub("", line)
        for sentence in _SENTENCE_END.split(shown):
            if not sentence.strip():
                continue
            pieces = _clauses(sentence, contrast, boundary, concession)
            for clause_index, (clause, is_contrast, is_concession) in enumerate(pieces):
                clause = clause[:UNIT_CHARS]  # no sentence is this long; cues stay cheap
                masked = _CODE_SPAN.sub(" ", clause)
                plain = _CODE_SPAN.sub(r"\1", clause).strip()
                units.append(
                    Unit(
                        text=plain,
                        cue_text=masked,
                        position=position,
                        paragraph=paragraph_base + paragraph,
                        sentence=sentence_index,
                        clause=clause_index,
                        contrast=is_contrast,
                        concession=is_concession,
                        heading=heading,
                        tokens=frozenset(tokens(plain, pack.stopwords)),
                    )
                )
            sentence_index += 1
    return units


def _clauses(
    sentence: str, contrast: Sequence, boundary: Sequence, concession: Sequence
) -> list[tuple[str, bool, bool]]:
    """(clause, follows a contrast word, is a concession) for each clause of a sentence."""
    cuts = {0: _starts_with(sentence, contrast)}
    for cue in contrast:
        for match in cue.regex.finditer(sentence):
            if match.start() > 0:
                cuts[match.start()] = True
    for cue in boundary:
        for match in cue.regex.finditer(sentence):
            if match.start() > 0:
                cuts.setdefault(match.start(), False)
    starts = sorted(cuts)
    out: list[tuple[str, bool, bool]] = []
    for start, end in zip(starts, [*starts[1:], len(sentence)], strict=True):
        piece = sentence[start:end].strip(" ,;—–")
        if not piece.strip(" ,;:—–-"):
            continue
        is_contrast = cuts[start]
        match = next((m for cue in concession for m in [cue.regex.search(piece)] if m), None)
        if match is None:
            out.append((piece, is_contrast, False))
            continue
        before, rest = piece[: match.start()].strip(" ,;—–"), piece[match.start() :]
        if before:
            out.append((before, is_contrast, False))
            out.append((rest, False, True))
        else:
            head, _, tail = rest.partition(",")
            out.append((head, is_contrast, True))
            if tail.strip():
                out.append((tail.strip(), False, False))
    return out or [(sentence, False, False)]


def _starts_with(piece: str, cues: Sequence) -> bool:
    for cue in cues:
        match = cue.regex.search(piece)
        if match and not piece[: match.start()].strip(" ,;:—–-*"):
            return True
    return False


# ----------------------------------------------------------------------------- attribution
def attribute(units: list[Unit], calls: list[CallView], pack: CuePack) -> None:
    """Tie each unit to the calls it speaks about (sets ``unit.calls`` and ``unit.direct``).

    A unit is tied *directly* when its own words match a call better than the others, when it
    speaks of who the person is and an identity tool was called, when it says "both" or
    "everything", or (with a single call to speak of) when it says outright that it was done.
    Other units continue the sentence or paragraph before them; failure and success statements
    tied to nothing go to the calls the reply does not otherwise speak of.

    Words that name no call ("Done!", "everything", a lone call to speak of) speak of the
    *recent* calls: those since the assistant last wrote. In a chat turn that is every call of
    the turn; in an agent's long run it is the step just taken, not the whole run.
    """
    text_positions = sorted({u.position for u in units})
    by_index = {c.index: c for c in calls}
    identity_cues = pack.of_kind("identity")
    universal_cues = pack.of_kind("universal")
    success_cues = pack.of_kind("success")
    failure_cues = pack.of_kind("failure")
    loose: list[tuple[Unit, list[CallView]]] = []
    for unit in units:
        candidates = [c for c in calls if in_reply(c, unit.position)]
        if not candidates:
            continue
        recent = _recent(candidates, text_positions)
        frequency: dict[str, int] = {}
        for call in candidates:
            for token in unit.tokens & call.keywords.keys():
                frequency[token] = frequency.get(token, 0) + 1
        speaks_of_identity = any(c.regex.search(unit.text) for c in identity_cues)
        single = len(recent) == 1
        scores = {}
        for call in candidates:
            shared = unit.tokens & call.keywords.keys()
            if call.spoke_between and unit.position > call.reply_until:
                # The final message of a long run speaks of an early step only by naming it.
                shared &= call.name_tokens | call.specific_tokens
            scores[call.index] = sum(call.keywords[t] / frequency[t] for t in shared)
        best = max(scores.values())
        identity_calls = (
            {c.index for c in candidates if c.identity_tool} if speaks_of_identity else set()
        )
        # The words of a tool's name name its action ("the refund went through"): the call whose
        # name the unit uses most is spoken of, whatever data the other calls share with it.
        named = {c.index: len(unit.tokens & c.name_tokens) for c in candidates}
        most_named = max(named.values())
        # A value only this call acted on (an id, a code, a title) names it too.
        exclusive = {
            c.index
            for c in candidates
            if any(frequency.get(t) == 1 for t in unit.tokens & c.argument_tokens)
        }
        tied = {i for i, s in scores.items() if best > 0 and s >= best * TIE_RATIO}
        tied |= {i for i, n in named.items() if most_named and n == most_named}
        tied = _by_returned_data(unit, tied, by_index)
        # A sentence that says a failed call's error words again speaks of that call, whatever
        # data of other calls it also repeats.
        if unit.reading is None:
            unit.reading = read_unit(unit, pack)
        if unit.reading.failures:
            tied |= {
                c.index for c in candidates if len(unit.tokens & c.error_tokens) >= RESTATED_WORDS
            }
        if any(c.regex.search(unit.cue_text) for c in universal_cues):
            unit.calls = {c.index for c in recent}
            unit.direct = True
        elif tied or identity_calls:
            unit.calls = tied | exclusive | identity_calls
            unit.direct = True
            if unit.reading is None:
                unit.reading = read_unit(unit, pack)
            if unit.reading.failures:
                # "The issue tools are not available": a failure said of a family of tools
                # covers every call whose name it uses.
                unit.calls |= {i for i, n in named.items() if n}
        elif single and any(c.regex.search(unit.cue_text) for c in success_cues):
            unit.calls = {recent[0].index}
            unit.direct = True
        elif single:
            unit.calls = {recent[0].index}
        else:
            loose.append((unit, recent))
    _inherit(units)
    spoken_of = {i for u in units if u.direct for i in u.calls}
    for unit, candidates in loose:
        if unit.calls:
            continue
        if any(c.regex.search(unit.cue_text) for c in failure_cues + success_cues):
            unit.calls = {c.index for c in candidates if c.index not in spoken_of}


def _by_returned_data(unit: Unit, tied: set[int], by_index: dict[int, CallView]) -> set[int]:
    """Among calls of the same tool tied to a sentence, the ones whose returned data it repeats
    (two parallel ``update_reservation`` calls: the sentence with the new bags speaks of the one
    that returned them, not of its failed twin)."""
    by_tool: dict[str, list[int]] = {}
    for index in tied:
        by_tool.setdefault(by_index[index].name, []).append(index)
    kept = set(tied)
    for indexes in by_tool.values():
        if len(indexes) < 2:
            continue
        echoed = {i for i in indexes if unit.tokens & by_index[i].data_tokens}
        if echoed and echoed != set(indexes):
            kept -= set(indexes) - echoed
    return kept


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


# ----------------------------------------------------------------------------- polarity
@dataclass(frozen=True)
class Polarity:
    failure: str | None  # id of the failure cue, None when the unit reports no failure
    success: str | None  # id of an outright success cue
    question: bool
    aside: bool  # greeting or heading: not a claim unless it says outright it was done
    offer: bool  # an offer, a question back or a statement of intent: never a claim
    identity: bool  # speaks of who the person is


@dataclass(frozen=True)
class Reading:
    """What a unit says whatever call it speaks of: its cue matches, worked out once."""

    failures: tuple[tuple[str, re.Match[str]], ...]  # (cue id, match) in cue order
    cue_text: str  # the text the failure matches were found in (opposites removed)
    success: str | None
    question: bool
    aside: bool
    offer: bool
    reacts: bool
    asks_to_confirm: bool
    speaks_of_identity: bool


def read_unit(unit: Unit, pack: CuePack) -> Reading:
    text = unit.cue_text
    for cue in pack.of_kind("not_failure"):
        text = cue.regex.sub(" ", text)
    past = any(c.regex.search(text) for c in pack.of_kind("past"))
    failures = (
        ()
        if past
        else tuple(
            (cue.id, match) for cue in pack.of_kind("failure") for match in cue.regex.finditer(text)
        )
    )
    return Reading(
        failures=failures,
        cue_text=text,
        success=next((c.id for c in pack.of_kind("success") if c.regex.search(text)), None),
        question=bool(_QUESTION_END.search(unit.text)),
        aside=(
            past
            or unit.heading
            or any(c.regex.search(unit.text) for c in pack.of_kind("filler"))
            or bool(_INTRO_END.search(unit.text))
            or not unit.tokens
        ),
        offer=any(c.regex.search(unit.text) for c in pack.of_kind("offer")),
        reacts=any(c.regex.search(unit.cue_text) for c in pack.of_kind("reacts")),
        asks_to_confirm=any(c.regex.search(unit.cue_text) for c in pack.of_kind("confirm")),
        speaks_of_identity=any(c.regex.search(unit.text) for c in pack.of_kind("identity")),
    )


def polarity(unit: Unit, pack: CuePack, call: CallView) -> Polarity:
    """What a unit says about one call."""
    if unit.reading is None:
        unit.reading = read_unit(unit, pack)
    reading = unit.reading
    failure = None
    # When the call worked, a sentence that recounts its data ("Batch 2291 timed out at 02:14"
    # from a log it read) reports the data, not a failure of the call.
    recounts_data = call.succeeded and bool(unit.tokens & call.data_tokens)
    if not recounts_data:
        failure = next(
            (
                cue_id
                for cue_id, match in reading.failures
                if not _quotes(reading.cue_text, match, call.quoted_text)
            ),
            None,
        )
    if (
        failure is None
        and reading.success is None
        and len(unit.tokens & call.error_tokens) >= RESTATED_WORDS
    ):
        failure = "restates the error"
    if (
        failure is None
        and call.failed
        and reading.reacts
        and reading.success is None
        and unit.position < call.reply_until < float("inf")  # before the agent acted again
    ):
        failure = "deals with the failed step"
    return Polarity(
        failure,
        reading.success,
        reading.question,
        reading.aside,
        reading.offer,
        call.identity_tool and reading.speaks_of_identity,
    )


def _quotes(text: str, match: re.Match[str], quoted_text: str) -> bool:
    """True when the failure words repeat the call's own data, arguments or the request
    (an issue titled "Fix 403 error", a page body, "re-run the failed checks")."""
    before = words(text[: match.start()])[-1:]
    after = words(text[match.end() :])[:1]
    phrase = match.group(0).lower().strip()
    for candidate in (" ".join([*before, phrase]), " ".join([phrase, *after])):
        if len(candidate.split()) >= 2 and candidate in quoted_text:
            return True
    return False


# ----------------------------------------------------------------------------- language
def detect_language(text: str, rules: RuleSet, fallback: str | None = None) -> str | None:
    """The language of a text by its common words, among the packs and the known profiles.

    A marker word shared by several languages ("de", "la", "en") counts for each of them in
    proportion; the best language must clearly lead, else ``fallback``.
    """
    seen = words(text[:LANGUAGE_SAMPLE_CHARS])
    weights = rules.marker_weights
    if not seen or not weights:
        return fallback
    scores = dict.fromkeys(rules.languages, 0.0)
    for word in seen:
        for language, weight in weights.get(word, ()):
            scores[language] += weight
    ranked = sorted(scores.values(), reverse=True)
    best = max(scores, key=lambda k: scores[k])
    runner_up = ranked[1] if len(ranked) > 1 else 0.0
    if scores[best] >= LANGUAGE_MIN_SCORE and scores[best] >= LANGUAGE_LEAD * runner_up:
        return best
    return fallback


# ----------------------------------------------------------------------------- claims
def in_reply(call: CallView, position: int) -> bool:
    """Is assistant text at ``position`` part of the reply to ``call``?"""
    return call.ready_at < position and (position < call.reply_until or position > call.final_from)


def set_reply_windows(calls: list[CallView], text_positions: Sequence[int] = ()) -> None:
    """The reply to a call is the assistant's text from its result to the next tool call, and
    the turn's final message. In a chat turn (calls, then a reply) that is all text after the
    result, as the spec has it; in an agent's long run, later steps speak of later calls."""
    if not calls:
        return
    call_positions = sorted(c.position for c in calls)
    last_event = max(max(c.position for c in calls), max(c.ready_at for c in calls))
    for call in calls:
        later = [p for p in call_positions if p > call.ready_at]
        call.reply_until = later[0] if later else float("inf")
        call.final_from = last_event
        call.spoke_between = later != [] and any(
            call.ready_at < p < call.reply_until for p in text_positions
        )


def judge_reply(
    calls: list[CallView],
    texts: list[tuple[int, str]],
    pack: CuePack,
    request: str = "",
) -> dict[int, ClaimDecision]:
    """Claims for calls that share one turn's assistant texts ``(position, text)``, in answer
    to the person's ``request``."""
    set_reply_windows(calls, [position for position, _ in texts])
    units: list[Unit] = []
    paragraph = 0
    for position, text in texts:
        new = split_units(text, position, paragraph, pack)
        paragraph += text.count("\n") + 1
        units.extend(new)
    attribute(units, calls, pack)
    parts = request_parts(request, pack)
    decisions: dict[int, ClaimDecision] = {}
    for call in calls:
        replied = [u for u in units if in_reply(call, u.position)]
        if not any(in_reply(call, position) and text.strip() for position, text in texts):
            decisions[call.index] = ClaimDecision(Claim.NONE, "no reply", "", pack.language)
            continue
        mine = [u for u in replied if call.index in u.calls]
        elsewhere = _answering_other_parts(call, mine, replied, parts)
        decisions[call.index] = _decide(call, mine, pack, elsewhere)
    return decisions


def request_parts(request: str, pack: CuePack) -> list[frozenset[str]]:
    """The words of each part of a request (its questions and asks), for telling which part a
    reply sentence answers."""
    return [
        part
        for piece in _REQUEST_PART_END.split(request)
        if (part := frozenset(tokens(piece, pack.stopwords)))
    ]


def _answering_other_parts(
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


def _presents(unit: Unit, call: CallView) -> bool:
    """Does the sentence present something as found or done: values (numbers, ids, names,
    quoted titles), the things the call acted on, or the data it returned? A sentence with
    none ("I need to use the other command") plans or explains; it claims nothing done."""
    if unit.tokens & (call.argument_tokens | call.data_tokens):
        return True
    if any(any(ch.isdigit() for ch in token) for token in unit.tokens):
        return True
    if _QUOTED.search(unit.text):
        return True
    return any(
        word[:1].isupper() and index > 0 and not words_before.endswith((".", ":"))
        for index, (word, words_before) in enumerate(_words_with_context(unit.text))
    )


def _words_with_context(text: str) -> Iterator[tuple[str, str]]:
    """Each word of a text with the text before it (to tell a name from a sentence start)."""
    for match in re.finditer(r"[^\W\d_][\w'’-]*", text):
        yield match.group(0), text[: match.start()].rstrip()


def _decide(
    call: CallView, units: list[Unit], pack: CuePack, elsewhere: set[int] = frozenset()
) -> ClaimDecision:
    readings = [(u, polarity(u, pack, call)) for u in units]
    failures: list[tuple[Unit, Polarity]] = []
    content: list[tuple[Unit, Polarity]] = []
    for index, (unit, reading) in enumerate(readings):
        if reading.failure and not unit.concession:
            later = readings[index + 1] if index + 1 < len(readings) else None
            overruled = (
                later is not None
                and later[0].contrast
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
        if not reading.identity and (
            reading.question or reading.offer or (reading.aside and not reading.success)
        ):
            continue
        states_fact = unit.direct and id(unit) not in elsewhere and _presents(unit, call)
        if reading.success or reading.identity or states_fact:
            content.append((unit, reading))
    proposal = any(u.reading is not None and u.reading.asks_to_confirm for u in units)
    if proposal:
        # The reply asks to confirm before acting: only an outright "done" claims success.
        content = [(u, r) for u, r in content if r.success]
    if failures:
        unit, reading = failures[0]
        presented = [u for u, _ in content if u.tokens & call.data_tokens]
        claim = Claim.PARTIAL if presented else Claim.FAILURE
        return ClaimDecision(claim, reading.failure or "", unit.text, pack.language)
    if content:
        focus = tokens(" ".join(_name_words(m) for m in call.missing), pack.stopwords)
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
    return ClaimDecision(Claim.NEUTRAL, "says nothing about this call", "", pack.language)
