"""Which cues of a pack can match a text at all, found in one pass over the text.

A reply's sentence is read against every cue of its language (some 65 patterns), and Python's
regular-expression engine tries each alternation a word at a time at every position: most of the
claim reader's time, for a few matches (about one sentence-cue pair in seventy matches). Yet
nearly every cue's match must contain one of a few literal strings ("couldn", "unable to",
"error"). ``required_literals`` finds them in the cue's pattern; ``CueFilter`` looks for every
literal of a pack in a text at once, with one regular expression shaped as a trie, and says
which cues may match. Only those are run: a cue whose literals are not in the text cannot match
it, so the matches are exactly those of running every cue.

Cues match case-insensitively, so literals and texts are compared case-folded the way the
regular-expression engine folds them (``fold``; a test holds it to the engine for every code
point).
"""

from __future__ import annotations

import re
from re import _casefix
from re import _constants as sre_constants
from re import _parser as sre_parse
from typing import Any

LITERAL_CHARS = 8  # a literal's first characters are enough to tell most sentences apart
CROSS_PRODUCT = 256  # the most strings a run of alternatives is spelled out as
_CLASS_RANGE = 16  # a character class of a range wider than this is no literal


def _case_classes() -> dict[int, int]:
    """Characters the engine takes as one letter when ignoring case beyond ``str.lower``
    (dotless i and i, long s and s, the Greek final sigma and sigma, …): each to one of them."""
    extra = _casefix._EXTRA_CASES
    canonical: dict[int, int] = {}
    for code, others in extra.items():
        group = {code, *others}
        for other in list(group):
            group.update(extra.get(other, ()))
        for member in group:
            canonical[member] = min(group)
    return {code: to for code, to in canonical.items() if code != to}


_CASE_CLASSES = _case_classes()


def fold(text: str) -> str:
    """``text`` as a case-insensitive match sees it: two characters the engine takes as equal
    are the same character here. ``str.lower`` lowers the dotted capital I to two characters
    where the engine's lowering gives one, so it is replaced first."""
    if text.isascii():
        return text.lower()
    return text.replace("\u0130", "i").lower().translate(_CASE_CLASSES)


# What the parser gives for a piece of a pattern: the strings it matches exactly when they are
# few (None otherwise), and strings one of which every match contains (None when unknown).
Found = tuple[set[str] | None, set[str] | None]

_ZERO_WIDTH = {sre_constants.AT, sre_constants.ASSERT, sre_constants.ASSERT_NOT}
_REPEATS = {sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT}


def required_literals(pattern: str) -> frozenset[str] | None:
    """Strings (folded, at most LITERAL_CHARS long) one of which every match of ``pattern``
    contains; None when the pattern has no such strings (it is then always run)."""
    try:
        items = list(sre_parse.parse(pattern, re.IGNORECASE))
    except (re.error, RecursionError):
        return None
    _, needed = _sequence(items)
    if not needed:
        return None
    return _without_longer(_cut(needed))


def _cut(strings: set[str]) -> set[str]:
    return {s[:LITERAL_CHARS] for s in strings}


def _without_longer(strings: set[str]) -> frozenset[str]:
    """The strings, less those that contain another of them (which then suffices)."""
    kept: list[str] = []
    for string in sorted(strings, key=len):
        if not any(shorter in string for shorter in kept):
            kept.append(string)
    return frozenset(kept)


def _best(candidates: list[set[str]]) -> set[str] | None:
    """Of several sets of strings a match must contain one of, the one that rules out the most
    texts: no short strings, few of them, then the longest."""

    def score(strings: set[str]) -> tuple[int, int, int]:
        cut = _cut(strings)
        shortest = min(map(len, cut))
        return min(shortest, 3), -len(cut), shortest

    return max(candidates, key=score) if candidates else None


def _sequence(items: list[Any]) -> Found:
    """A row of pattern items: runs of exactly known strings are joined (``could`` then
    ``n't`` or `` not``), and the best set any part needs is what the row needs."""
    run: set[str] = {""}
    exact = True
    candidates: list[set[str]] = []
    for op, value in items:
        strings, needed = _item(op, value)
        if needed:
            candidates.append(needed)
        if strings is not None and len(run) * len(strings) <= CROSS_PRODUCT:
            run = {a + b for a in run for b in strings}
            continue
        exact = False
        if "" not in run:
            candidates.append(run)
        run = strings if strings is not None else {""}
    if "" not in run:
        candidates.append(run)
    return (run if exact else None), _best(candidates)


def _item(op: Any, value: Any) -> Found:
    c = sre_constants
    if op is c.LITERAL:
        return {fold(chr(value))}, None
    if op in _ZERO_WIDTH:
        return {""}, None  # consumes nothing (a word boundary, a lookaround)
    if op is c.IN:
        chars: set[str] = set()
        for kind, item in value:
            if kind is c.LITERAL:
                chars.add(fold(chr(item)))
            elif kind is c.RANGE and item[1] - item[0] < _CLASS_RANGE:
                chars.update(fold(chr(code)) for code in range(item[0], item[1] + 1))
            else:
                return None, None  # a negated class, a category (\w, \s), a wide range
        return chars, None
    if op is c.SUBPATTERN:
        return _sequence(list(value[-1]))
    if op is c.ATOMIC_GROUP:
        return _sequence(list(value))
    if op is c.BRANCH:
        return _branch([_sequence(list(branch)) for branch in value[1]])
    if op in _REPEATS:
        least, most, body = value
        strings, needed = _sequence(list(body))
        if least == most == 1:
            return strings, needed
        if least == 0 and most == 1:
            return (strings | {""} if strings is not None else None), None
        if least >= 1:
            return None, needed or (strings if strings and "" not in strings else None)
    return None, None


def _branch(branches: list[Found]) -> Found:
    """Alternatives: a match contains what one of them needs."""
    exact: set[str] | None = set()
    needed: set[str] | None = set()
    for strings, need in branches:
        if exact is not None and strings is not None:
            exact |= strings
        else:
            exact = None
        own = need or (strings if strings and "" not in strings else None)
        if needed is not None and own:
            needed |= own
        else:
            needed = None
    if exact is not None and len(exact) > CROSS_PRODUCT:
        exact = None
    return exact, needed


def trie_pattern(strings: list[str]) -> str:
    """One alternation of ``strings`` shaped as a trie (``could``, ``couldn't`` and ``cannot``:
    ``c(?:annot|ould(?:n't)?)``): the engine tries a few first characters at each position
    instead of every string. The longest string that starts at a position is the one that
    matches there."""
    root: dict[str, Any] = {}
    for string in strings:
        node = root
        for char in string:
            node = node.setdefault(char, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        branches = [re.escape(char) + build(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"
        return f"(?:{body})?" if "" in node else body

    return build(root)


CACHED_TEXTS = 4096  # texts whose cue masks are kept (a reply's sentences are asked again)


class CueFilter:
    """The literals of a pack's cues, and for a text the cues (as bits, in pack order) whose
    literals it contains, or that have none. Worked out when first asked: most scans read
    replies in one or two of the packs."""

    def __init__(self, patterns: list[str]) -> None:
        self.patterns = patterns
        self.masks: dict[str, int] = {}
        self.always = 0
        self.bits: dict[str, int] = {}
        self.finder: re.Pattern[str] | None = None
        self.built = False

    def _build(self) -> None:
        needs = [required_literals(pattern) for pattern in self.patterns]
        self.always = sum(1 << bit for bit, need in enumerate(needs) if need is None)
        listed: dict[str, int] = {}  # the cues that list each literal
        for bit, need in enumerate(needs):
            for literal in need or ():
                listed[literal] = listed.get(literal, 0) | 1 << bit
        # A literal found at a position stands for every literal that is a prefix of it.
        for found in listed:
            bits = 0
            for end in range(1, len(found) + 1):
                bits |= listed.get(found[:end], 0)
            self.bits[found] = bits
        if listed:
            self.finder = re.compile(f"(?=({trie_pattern(sorted(listed))}))")
        self.built = True

    def mask(self, text: str) -> int:
        """The cues that may match ``text``, one bit each."""
        mask = self.masks.get(text)
        if mask is None:
            if not self.built:
                self._build()
            mask = self.always
            if self.finder is not None:
                bits = self.bits
                for found in self.finder.findall(fold(text)):
                    mask |= bits[found]
            if len(self.masks) >= CACHED_TEXTS:
                self.masks.clear()
            self.masks[text] = mask
        return mask
