"""Language: which cue pack reads a reply, told by the common words of each language."""

from __future__ import annotations

from auditor.audit.words import words
from auditor.rules_loader import RuleSet

LANGUAGE_MIN_SCORE = 2.0  # marker weight a text needs before its language is named


LANGUAGE_LEAD = 1.5  # how far the best language must lead the next


LANGUAGE_SAMPLE_CHARS = 4000  # enough text to tell a language by its common words


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
