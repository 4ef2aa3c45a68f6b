"""Words and tokens of text, shared by recovery and the claim reader: crude stems, the
words of tool names and argument values, and the data a result returned, as text."""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

_WORD = re.compile(r"[^\W_][\w\-./@#']*[^\W_]|[^\W_]", re.UNICODE)


_SUBWORD = re.compile(r"[-_./@#']+")


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


# A thousands separator between digits ("1,250"). The separator comes first and the digit before
# it is looked behind for: the engine then skips to the separators, instead of trying each digit.
GROUPED_NUMBER = re.compile(r"[,\u202f\u00a0](?<=\d[,\u202f\u00a0])(?=\d{3}\b)")


_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_NO_CENTS = re.compile(r"[.,]0+$")  # a decimal part that says nothing


_SUFFIX = re.compile(r"(?:ing|ed|s)$")


_DOUBLE_END = re.compile(r"([b-df-hj-np-tv-z])\1$")


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
        for word in _WORD.findall(GROUPED_NUMBER.sub("", text))
        if (token := word.lower().strip("'"))
    ]


def written_words(text: str) -> list[str]:
    """The words and ids of a text as written (``words`` lower-cases them)."""
    return _WORD.findall(GROUPED_NUMBER.sub("", text))


def tokens(text: str, stopwords: frozenset[str]) -> set[str]:
    """Distinctive tokens of a text: words, their parts (ids split at - _ . / and camelCase)
    and stems; no stop words, no tiny words."""
    if len(text) <= SHORT_TEXT:
        return set(short_tokens(text, stopwords))
    return set(token_list(text, stopwords))


SHORT_TEXT = 200  # the tokens of texts this short are cached


@functools.lru_cache(maxsize=16384)
def short_tokens(text: str, stopwords: frozenset[str]) -> frozenset[str]:
    """Tool names, argument values and sentences recur: their tokens are worked out once."""
    return frozenset(token_list(text, stopwords))


class LazyTokens:
    """The ``tokens`` of a text that is made, and tokenised, only when first asked about: for
    long texts (what earlier turns returned) that few sentences ever need."""

    __slots__ = ("_make", "_stopwords", "_tokens")

    def __init__(self, make: Callable[[], str], stopwords: frozenset[str]) -> None:
        self._make, self._stopwords = make, stopwords
        self._tokens: set[str] | None = None

    def __contains__(self, token: object) -> bool:
        if self._tokens is None:
            self._tokens = tokens(self._make(), self._stopwords)
        return token in self._tokens


def first_tokens(text: str, stopwords: frozenset[str], limit: int) -> list[str]:
    """The first ``limit`` distinct tokens of a text, in order."""
    return list(dict.fromkeys(token_list(text, stopwords)))[:limit]


def word_tokens(text: str, stopwords: frozenset[str]) -> list[frozenset[str]]:
    """The tokens of each word of a text that has any, in order (to find words said side by
    side)."""
    found: list[frozenset[str]] = []
    known = _known_words(stopwords)
    before = len(known)
    for word in _WORD.findall(GROUPED_NUMBER.sub("", text)):
        found_here = known.get(word)
        if found_here is None:
            found_here = known[word] = _word_tokens(word, stopwords)
        if found_here:
            found.append(frozenset(found_here))
    _forget_words(len(known) - before)
    return found


def token_list(text: str, stopwords: frozenset[str]) -> list[str]:
    """The tokens of ``tokens`` in text order (with repeats), so that caps are deterministic.
    A plain loop over the words, not a generator: result data has millions of words."""
    found: list[str] = []
    extend = found.extend
    known = _known_words(stopwords)
    get = known.get
    before = len(known)
    for word in _WORD.findall(GROUPED_NUMBER.sub("", text)):
        found_here = get(word)
        if found_here is None:
            found_here = known[word] = _word_tokens(word, stopwords)
        extend(found_here)
    _forget_words(len(known) - before)
    return found


def _known_words(stopwords: frozenset[str]) -> dict[str, tuple[str, ...]]:
    known = _KNOWN_WORDS.get(stopwords)
    if known is None:
        known = _KNOWN_WORDS[stopwords] = {}
    return known


def _forget_words(added: int) -> None:
    """Count the words just kept; past ``KNOWN_WORDS`` of them, forget them all."""
    _KEPT[0] += added
    if _KEPT[0] > KNOWN_WORDS:
        _KNOWN_WORDS.clear()
        _KEPT[0] = 0


# Words recur (data holds the same names and values again and again): the tokens of each are
# kept, per list of stop words, in a plain dict (a look-up is cheaper than a cached call).
_KNOWN_WORDS: dict[frozenset[str], dict[str, tuple[str, ...]]] = {}
_KEPT = [0]  # words kept in all of them
KNOWN_WORDS = 65536  # words kept at most (after the text that passes it); then all are forgotten


def _word_tokens(word: str, stopwords: frozenset[str]) -> tuple[str, ...]:
    """The tokens of one word: itself, its parts and stems (words recur, so this is cached)."""
    raw = word.strip("'")
    if _NUMBER.fullmatch(raw):
        # "40.0" in a call's arguments is the "€40" of the reply, "65,00" the 65
        whole = _NO_CENTS.sub("", raw)
        return (raw,) if whole == raw else (raw, whole)
    pieces = [raw, *_SUBWORD.split(raw)]
    pieces += [
        part for piece in pieces if piece.isalpha() for part in _CAMEL.sub(" ", piece).split()
    ]
    found = []
    for piece in dict.fromkeys(pieces):
        piece = piece.lower()
        if not piece or piece in stopwords:
            continue
        digits = has_digit(piece)
        if len(piece) < (2 if digits else 3) or (piece.isdigit() and len(piece) < 2):
            continue
        found.append(stem(piece))
    return tuple(found)


def has_digit(text: str) -> bool:
    """Does the text hold a digit (``str.isdigit``) anywhere? (Looked at in C, not a generator.)"""
    return any(map(str.isdigit, text))


def names_a_thing(value: str) -> bool:
    """A short argument value that names something (an id, a code, a title), not prose."""
    return len(value) <= 60 and len(value.split()) <= 4 and "://" not in value


def is_specific(token: str) -> bool:
    """A token specific enough to name one thing: an id, a code, a name; not a small number."""
    if token.isdigit():
        return len(token) >= 3 and not (len(token) == 4 and token.startswith(("19", "20")))
    return len(token) >= 4 or has_digit(token)


def name_words(name: str) -> str:
    return " ".join(_SUBWORD.split(_CAMEL.sub(" ", name.replace("__", " "))))


def argument_strings(value: Any, limit: int = 2000) -> Iterable[str]:
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
