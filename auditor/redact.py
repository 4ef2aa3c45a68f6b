"""Redacting secrets from everything the auditor writes: the excerpts of its tables (evidence,
reply sentences, reject excerpts and reasons) and the transcript text that ``show``, the reports
and the notebooks draw.

Transcripts carry whatever tools and people wrote, keys included. The patterns are
detect-secrets' (a plugin per kind of key: AWS, Stripe, Slack tokens and webhooks, GitHub,
GitLab, private keys, passwords in URLs, JWTs, Twilio, SendGrid, …), taken from every plugin it
ships, so that a newer detect-secrets brings its new kinds along; the auditor's own cover what
it lacks (Google API keys, private-key blocks whole, Authorization headers, bearer tokens,
OpenAI and Anthropic keys, ``password = …`` assignments). With ``entropy`` long random-looking
words are masked too (detect-secrets' entropy limits); that is off by default, since it masks
the hashes and ids a reviewer needs. Every excerpt goes through ``Redactor.apply`` unless the
user turns it off (``--no-redact``).
"""

from __future__ import annotations

import hashlib
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
from detect_secrets.filters.heuristic import (
    is_indirect_reference,
    is_not_alphanumeric_string,
    is_prefixed_with_dollar_sign,
    is_templated_secret,
)
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.high_entropy_strings import (
    Base64HighEntropyString,
    HexHighEntropyString,
)
from detect_secrets.plugins.ip_public import IPPublicDetector
from detect_secrets.plugins.keyword import DENYLIST as SECRET_KEYWORDS

MASK = "[redacted]"
EMAIL_PATTERN = r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"

# detect-secrets detectors that find something other than a secret.
NOT_SECRETS: tuple[type, ...] = (IPPublicDetector,)
# Key names whose value is masked (``password: …``): detect-secrets' list and the auditor's, but
# not ``pwd``, which in a transcript is the shell's working directory (``PWD=/home/…``).
KEYWORDS: tuple[str, ...] = tuple(
    dict.fromkeys(
        [
            r"api[_-]?key",
            r"secret",
            r"password",
            r"passwd",
            r"(?:access|auth|refresh)[_-]?token",
            *(k for k in SECRET_KEYWORDS if k != "pwd"),
        ]
    )
)
_KEYWORD = "|".join(KEYWORDS)
_PRIVATE_KEY = r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
_NOT_SPACE = re.compile(r"\S*")


class Pattern(NamedTuple):
    """One kind of secret: a name for people and the regex that finds it. Where the regex has a
    group, the mask starts at the last group that holds something (the value after a header's
    or key's name, a password after ``user:``), so the name stays readable.

    The auditor's own patterns are written for speed: ``lower`` ones are in lower case and run on
    the text in lower case (a case-insensitive regex is several times slower), and ``word_start``
    ones begin with their key's prefix, checked to start a word after the match (a ``\\b`` in the
    regex would cost it the fast search for the prefix). ``skip`` tells the matches that are no
    secret."""

    name: str
    regex: re.Pattern[str]
    lower: bool = False
    word_start: bool = False
    skip: Callable[[re.Match[str]], bool] | None = None


def _own(name: str, regex: str, flags: int = 0, **how: Any) -> Pattern:
    return Pattern(name, re.compile(regex, flags), **how)


def _reference(match: re.Match[str]) -> bool:
    """A key name's value that only refers to a secret, by detect-secrets' filters for its
    keyword plugin: a call or a lookup (``secret_key = generate_secret_key()``), a template
    (``<API_KEY>``, ``${TOKEN}``), a shell variable (``$PGPASSWORD``), no letter (``******``)."""
    value = match.group(1)
    rest = _NOT_SPACE.match(match.string, match.end())  # the value to its end: ``['key']``
    return (
        is_templated_secret(value)
        or is_prefixed_with_dollar_sign(value)
        or is_not_alphanumeric_string(value)
        or is_indirect_reference(match.group() + (rest.group() if rest else ""))
    )


OWN_PATTERNS: tuple[Pattern, ...] = (
    # The whole block, across lines (or what is left of it when the excerpt was cut short).
    _own(
        "private-key-block",
        _PRIVATE_KEY + rf"(?:.*?{_PRIVATE_KEY.replace('BEGIN', 'END')}|[\w+/=\s\\:,.-]*)",
        re.S,
    ),
    _own(
        "putty-private-key", r"PuTTY-User-Key-File-\d+:.*?(?:Private-MAC:\s*[0-9a-fA-F]+|\Z)", re.S
    ),
    _own(
        "authorization-header",
        r"authorization[\"']?\s*[:=]\s*([^\r\n,;]+)",
        lower=True,
    ),
    _own(
        "bearer-token",
        r"(?:bearer|token)\s+([a-z0-9\-._~+/]{12,}=*)",
        lower=True,
        word_start=True,
    ),
    _own(
        "key-assignment",
        rf"(?:{_KEYWORD})[\w-]*[\"']?\s*[:=]\s*[\"']?([^\s\"',;]{{6,}})",
        lower=True,
        skip=_reference,
    ),
    _own("openai-anthropic-key", r"sk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}", word_start=True),
    _own("github-token", r"gh[pousr]_[A-Za-z0-9]{20,}", word_start=True),
    _own("github-fine-grained-token", r"github_pat_[A-Za-z0-9_]{20,}", word_start=True),
    _own("slack-token", r"xox[abposr]-[A-Za-z0-9-]{10,}", word_start=True),
    _own("google-api-key", r"AIza[0-9A-Za-z_-]{35}", word_start=True),
)


def library_patterns() -> tuple[Pattern, ...]:
    """The regexes of every detect-secrets plugin that finds secrets by pattern (not the
    entropy ones, not public IP addresses), named after the plugin."""
    detectors = get_mapping_from_secret_type_to_class().values()
    return tuple(
        Pattern(detector.__name__, regex)
        for detector in sorted(detectors, key=lambda d: d.__name__)
        if issubclass(detector, RegexBasedDetector) and not issubclass(detector, NOT_SECRETS)
        for regex in detector.denylist
    )


SECRET_PATTERNS: tuple[Pattern, ...] = OWN_PATTERNS + library_patterns()

# The look every text gets before the patterns run, so that most text costs little. Every
# pattern needs a word of 16 or more key characters (every key the patterns describe in full is
# that long; slashes, which make paths long, are left out: a key with one has long runs between)
# or, in lower case, one of NAME_CLUES; or one of ASSIGNMENT_CLUES in a text with a ``:`` or
# ``=``, as the patterns for the value of a key name need. Every name in KEYWORDS holds a clue
# (tests/test_redact.py).
_LONG_WORD = re.compile(r"[A-Za-z0-9_+=-]{16}")
NAME_CLUES = ("bearer", "token", "xox", "private key")
ASSIGNMENT_CLUES = ("key", "pass", "secret", "authori", "contrase", "putty", "://")
_NAME_CLUE = re.compile("|".join(map(re.escape, NAME_CLUES)))
_ASSIGNMENT_CLUE = re.compile("|".join(map(re.escape, ASSIGNMENT_CLUES)))

_ENTROPY = (Base64HighEntropyString(), HexHighEntropyString())
_RANDOM_WORD = re.compile(rf"[{re.escape(_ENTROPY[0].charset)}]{{20,}}")
_HEX = frozenset(string.hexdigits)
_WORD_CHARS = frozenset(string.ascii_letters + string.digits + "_-")
_KEY_CHARS = _WORD_CHARS | frozenset("+/=")
_EDGE = " \t\r\n\"'=:@,;"


@dataclass(frozen=True)
class Redactor:
    """Replaces secrets (and, when asked, email addresses and random-looking words) with
    ``[redacted]``."""

    enabled: bool = True
    emails: bool = False
    entropy: bool = False

    def apply(self, text: str | None) -> str | None:
        if not text or not self.enabled or not _worth_a_look(text, self.emails, self.entropy):
            return text
        lower = text.lower()
        aligned = len(lower) == len(text)  # true but for a few letters (İ) lower case lengthens
        spans = []
        for pattern in _patterns(self.emails):
            if pattern.lower and not aligned:
                matches = _insensitive(pattern.regex).finditer(text)
            else:
                matches = pattern.regex.finditer(lower if pattern.lower else text)
            spans += [
                _widened(text, *_secret_span(match))
                for match in matches
                if not (pattern.word_start and _inside_word(text, match.start()))
                and not (pattern.skip and pattern.skip(match))
            ]
        if self.entropy:
            spans += [m.span() for m in _RANDOM_WORD.finditer(text) if _random(m.group())]
        return _masked(text, spans)


def _worth_a_look(text: str, emails: bool, entropy: bool) -> bool:
    if _LONG_WORD.search(text) or (emails and "@" in text):
        return True
    if entropy and _RANDOM_WORD.search(text):
        return True
    lower = text.lower()
    if _NAME_CLUE.search(lower):
        return True
    return ("=" in text or ":" in text) and _ASSIGNMENT_CLUE.search(lower) is not None


def _inside_word(text: str, at: int) -> bool:
    return at > 0 and (text[at - 1].isalnum() or text[at - 1] == "_")


@cache
def _insensitive(regex: re.Pattern[str]) -> re.Pattern[str]:
    """A lower-case pattern for text whose lower case is not the same length."""
    return re.compile(regex.pattern, regex.flags | re.I)


def _secret_span(match: re.Match[str]) -> tuple[int, int]:
    """The part of a match to mask: from the last group that holds something (a password after
    ``user:``, a value after ``key =``) to the end, unless that group is the key's prefix, as in
    detect-secrets' ``(ghp|gho|…)_…``; else all of it; either without the quotes, spaces and
    ``=:@`` some of detect-secrets' regexes take in around a key."""
    start, end = match.span()
    for group in range(match.re.groups, 0, -1):
        if match.group(group) and match.start(group) > start:
            start = match.start(group)
            break
    text = match.string
    while start < end and text[start] in _EDGE:
        start += 1
    while end > start and text[end - 1] in _EDGE:
        end -= 1
    return start, end


def _widened(text: str, start: int, end: int) -> tuple[int, int]:
    """A span grown over the word characters around it: a regex that knows a key's first 24
    characters must not leave the rest of a longer key in view."""
    if start == end:
        return start, end
    while start > 0 and text[start - 1] in _WORD_CHARS:
        start -= 1
    while end < len(text) and text[end] in _WORD_CHARS:
        end += 1
    return start, end


def _random(word: str) -> bool:
    """Random enough to be a key, by detect-secrets' limits (4.5 bits a character for base64,
    3.0 for hex)."""
    base64, hexadecimal = _ENTROPY
    if base64.calculate_shannon_entropy(word) > base64.entropy_limit:
        return True
    return _HEX.issuperset(word) and (
        hexadecimal.calculate_shannon_entropy(word) > hexadecimal.entropy_limit
    )


def _masked(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each span, or run of spans that overlap or touch, replaced by one mask."""
    pieces, at = [], 0
    for start, end in sorted(s for s in spans if s[1] > s[0]):
        if start <= at and pieces:
            at = max(at, end)  # within or right after the span just masked
            continue
        pieces += [text[at:start], MASK]
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


@cache
def _patterns(emails: bool) -> tuple[Pattern, ...]:
    return SECRET_PATTERNS + ((Pattern("email", re.compile(EMAIL_PATTERN)),) if emails else ())


def patterns_digest() -> str:
    """What the redaction of a row depends on besides the settings: the patterns and limits,
    which a newer detect-secrets can change (the nightly state is read again when it does)."""
    sha = hashlib.sha256()
    for pattern in SECRET_PATTERNS:
        sha.update(f"{pattern.name}\0{pattern.regex.pattern}\0{pattern.regex.flags}\0".encode())
    for plugin in _ENTROPY:
        sha.update(f"{type(plugin).__name__}\0{plugin.entropy_limit}\0".encode())
    return sha.hexdigest()


def shorten(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, an ellipsis marking the cut, without leaving
    the start of a key at the end: a cut key matches no pattern and would be written out as it
    is, so the run of key characters the cut falls in is left out (unless it is all there is)."""
    if len(text) <= limit:
        return text
    kept = text[: limit - 1]
    if text[limit - 1] in _KEY_CHARS:
        start = len(kept)
        while start > 0 and kept[start - 1] in _KEY_CHARS:
            start -= 1
        kept = kept[:start] or kept
    return kept.rstrip() + "…"
