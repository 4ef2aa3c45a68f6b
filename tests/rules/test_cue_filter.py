"""A cue is run only on texts that hold one of the literals every match of it contains; these
tests hold that the filter never passes over a text the cue matches."""

from __future__ import annotations

import re
import sys
from re import _casefix

from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.cue_filter import CueFilter, fold, required_literals
from auditor.rules_loader import load_rules

RULES = load_rules()
CUES = [cue for pack in RULES.packs.values() for cue in pack.cues]
VOCABULARY = sorted({word for cue in CUES for word in re.findall(r"[^\W\d_]{2,}", cue.pattern)})


def sentence() -> st.SearchStrategy[str]:
    word = (
        st.sampled_from(VOCABULARY).map(str.lower)
        | st.sampled_from(VOCABULARY).map(str.title)
        | st.sampled_from(VOCABULARY).map(str.upper)
        | st.sampled_from(["İ", "ı", "ſ", "ẞ", "Σ", "K", "✅", "❌", "@", "0", "42", "I'm", "Jana"])
    )
    gap = st.sampled_from([" ", " ", " ", ", ", ". ", "'", "’", " — ", "\n", ": ", "? "])
    return st.lists(st.tuples(word, gap), min_size=1, max_size=14).map(
        lambda pairs: "".join(w + g for w, g in pairs)
    )


@settings(max_examples=300, deadline=None)
@given(text=sentence())
def test_every_shipped_cue_finds_through_the_filter_what_its_pattern_finds(text: str) -> None:
    for cue in CUES:
        written = re.compile(cue.pattern, re.IGNORECASE)
        assert [m.span() for m in cue.finditer(text)] == [
            m.span() for m in written.finditer(text)
        ], cue.id
        assert (cue.search(text) is None) == (written.search(text) is None), cue.id
        assert cue.sub(" ", text) == written.sub(" ", text), cue.id


@settings(max_examples=100, deadline=None)
@given(text=sentence())
def test_the_cues_of_a_kind_that_may_match_a_text_hold_every_one_that_does(text: str) -> None:
    for pack in RULES.packs.values():
        for kind in {cue.kind for cue in pack.cues}:
            matching = [
                cue
                for cue in pack.of_kind(kind)
                if re.search(cue.pattern, text, re.IGNORECASE) is not None
            ]
            kept = pack.of_kind(kind, text)
            assert all(cue in kept for cue in matching), kind
            assert kept == [cue for cue in pack.of_kind(kind) if cue in kept]  # in pack order


def test_folding_takes_as_equal_every_two_characters_the_engine_takes_as_equal() -> None:
    import _sre

    extra = _casefix._EXTRA_CASES
    for code in range(sys.maxunicode + 1):
        if 0xD800 <= code < 0xE000:
            continue
        lowered = _sre.unicode_tolower(code)
        same = {code, lowered, *extra.get(lowered, ())}
        assert len({fold(chr(c)) for c in same}) == 1, hex(code)
        assert len(fold(chr(code))) == 1, hex(code)


def test_a_cue_needs_the_words_of_its_alternatives() -> None:
    assert required_literals(r"\b(?:could ?n[o'’]?t|unable to)\b") == {
        "couldnt",
        "couldn't",
        "couldn’t",
        "couldnot",
        "could nt",
        "could n'",
        "could n’",
        "could no",
        "unable t",  # literals are cut to their first eight characters
    }
    assert required_literals(r"[\w.+-]+@[\w-]+") == {"@"}
    assert required_literals(r"\bI(?:'ve| have) \w+ed") == {"i've ", "i have "}


def test_a_cue_with_an_alternative_of_no_literal_is_always_run() -> None:
    assert required_literals(r"\bfailed\b|\w+\b") is None
    assert required_literals(r"(?:not )?") is None
    pattern_filter = CueFilter([r"\bfailed\b|\w+\b", r"\bdone\b"])
    assert pattern_filter.mask("nothing here") == 0b01
    assert pattern_filter.mask("ALL DONE") == 0b11


def test_a_literal_found_stands_for_the_shorter_literals_it_begins_with() -> None:
    pattern_filter = CueFilter([r"\bfail", r"\bfailed to\b", r"\bto\b"])
    assert pattern_filter.mask("It FAILED TO start") == 0b111
    assert pattern_filter.mask("it fails") == 0b001
