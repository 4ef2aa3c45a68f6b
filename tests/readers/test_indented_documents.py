"""Indented JSON documents read piece by piece (``indented_document``): the same object and the
same records, on the same lines, as a whole parse and ``array_items`` give, or None (the slow
way) whenever the text is written otherwise, broken, or holds what orjson reads differently."""

import json
import re

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.readers.json_stream import array_items, indented_document

values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)
documents = st.fixed_dictionaries(
    {"trace": st.dictionaries(st.text(max_size=6), values, max_size=3)},
    optional={"after": values, "observations": st.lists(values, max_size=5)},
)


def slow(text: str, key: str):
    """What a reader gets without the fast path: the whole document, and the array's items."""
    document = orjson.loads(text)
    items = array_items(text, "t", [], (key,)).records
    return document, items


def same(text: str, key: str = "observations") -> bool:
    """``indented_document`` gives None or exactly what the slow way gives; True when not None."""
    fast = indented_document(text.encode("utf-8", "surrogatepass"), key)
    if fast is None:
        return False
    document, items = slow(text, key)
    assert repr(fast[0]) == repr(document)
    assert repr(fast[1]) == repr(items)
    return True


@settings(max_examples=300, deadline=None)
@given(
    document=documents,
    indent=st.sampled_from([1, 2, 4]),
    ascii_only=st.booleans(),
    cut=st.integers(min_value=0, max_value=10_000),
    change=st.sampled_from(["", " ", ",", "}", "]", "\n", '"', "1", "\t", "\n  ", "\u00a0"]),
)
def test_indented_documents_read_as_the_slow_way_or_not_at_all(
    document, indent, ascii_only, cut, change
):
    text = json.dumps(document, indent=indent, ensure_ascii=ascii_only)
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        return  # orjson cannot read it: the reader rejects it before asking for its items
    taken = same(text)
    observations = document.get("observations")
    objects = bool(observations) and all(isinstance(o, dict) for o in observations)
    if objects and list(document)[-1] == "observations" and not re.search(r"\d{19}", text):
        assert taken  # an indented export, its objects last, no long numbers: the fast way
    # Damaged or re-written anywhere: read the same, or left to the slow way.
    at = cut % (len(text) + 1)
    changed = text[:at] + change + text[at:]
    try:
        orjson.loads(changed)
    except orjson.JSONDecodeError:
        assert indented_document(changed.encode("utf-8", "surrogatepass"), "observations") is None
        return
    same(changed)


def test_integers_beyond_64_bits_and_other_layouts_go_the_slow_way():
    assert same('{\n  "trace": {},\n  "observations": [\n    {"a": 1},\n    {}\n  ]\n}')
    mixed = '{\n  "trace": {},\n  "observations": [\n    {"a": 1},\n    2\n  ]\n}'
    assert not same(mixed)  # the elements are found by the first one's first character
    big = '{\n  "trace": {},\n  "observations": [\n    {"a": 123456789012345678901}\n  ]\n}'
    assert not same(big)  # orjson would read a float
    negative = '{\n  "trace": {},\n  "observations": [\n    -9223372036854775809\n  ]\n}'
    assert not same(negative)
    fraction = '{\n  "trace": {},\n  "observations": [\n    0.123456789012345678901\n  ]\n}'
    assert same(fraction)
    assert not same('{"trace": {}, "observations": [{"a": 1}]}')  # not indented
    two = '{\n  "trace": {},\n  "observations": [\n    {"a": 1}, {"b": 2}\n  ]\n}'
    assert not same(two)  # two elements on a line
    twice = '{\n  "observations": [],\n  "trace": {},\n  "observations": [\n    1\n  ]\n}'
    assert not same(twice)
    bom = '\ufeff{\n  "trace": {},\n  "observations": [\n    {"b": "\u00e9"}\n  ]\n}'
    fast = indented_document(bom.encode(), "observations")
    assert fast is not None and fast[1] == [(0, 4, {"b": "\u00e9"})]
    broken = '{\n  "trace": {},\n  "observations": [\n    {"b": "\u00e9"}\n  ]\n}'.encode()
    assert indented_document(broken.replace(b"\xc3", b"\xff"), "observations") is None
    nested = '{\n  "trace": {"observations": [\n    1\n  ]},\n  "observations": [\n    2\n  ]\n}'
    assert same(nested)
    before = '{\n  "observations": [\n    2\n  ],\n  "trace": {}\n}'
    assert not same(before)  # the array is not the last member
