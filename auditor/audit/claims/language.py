"""Language: which cue pack reads a reply, told by the common words of each language."""

from __future__ import annotations

from typing import Any

from auditor.audit.words import written_words
from auditor.rules_loader import RuleSet

LANGUAGE_MIN_SCORE = 2.0  # marker weight a text needs before its language is named


LANGUAGE_LEAD = 1.5  # how far the best language must lead the next


LANGUAGE_SAMPLE_CHARS = 4000  # enough text to tell a language by its common words


def detect_language(text: str, rules: RuleSet, fallback: str | None = None) -> str | None:
    """The language of a text by its common words, among the packs and the known profiles.

    A marker word shared by several languages ("de", "la", "en") counts for each of them in
    proportion; the best language must clearly lead, else ``fallback``.
    """
    weights = rules.marker_weights
    if not weights:
        return fallback
    # ``words(text)``, each word's markers looked up once per process as it is written (the
    # weights are added in the order of the words, as before: the sums are the same floats)
    found = _found_markers(weights)
    scores = dict.fromkeys(rules.languages, 0.0)
    seen = False
    for word in written_words(text[:LANGUAGE_SAMPLE_CHARS]):
        markers = found.get(word)
        if markers is None:
            if len(found) >= KNOWN_WORDS:
                found.clear()
            token = word.lower().strip("'")
            markers = found[word] = (bool(token), tuple(weights.get(token, ())))
        seen = seen or markers[0]
        for language, weight in markers[1]:
            scores[language] += weight
    if not seen:
        return fallback
    ranked = sorted(scores.values(), reverse=True)
    best = max(scores, key=lambda k: scores[k])
    runner_up = ranked[1] if len(ranked) > 1 else 0.0
    if scores[best] >= LANGUAGE_MIN_SCORE and scores[best] >= LANGUAGE_LEAD * runner_up:
        return best
    return fallback


KNOWN_WORDS = 65536  # written words whose markers are kept at most; then all are forgotten


_FOUND: list[Any] = [None, {}]  # the marker weights the words were looked up in, and the words


def _found_markers(
    weights: dict[str, list[tuple[str, float]]],
) -> dict[str, tuple[bool, tuple[tuple[str, float], ...]]]:
    """Per word as written: is it a word once lower-cased (``words`` keeps it), and its
    markers' languages and weights; kept for one set of rules at a time."""
    if _FOUND[0] is not weights:
        _FOUND[0], _FOUND[1] = weights, {}
    return _FOUND[1]
