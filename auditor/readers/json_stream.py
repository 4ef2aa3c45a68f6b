"""Whole JSON documents read value by value: each record keeps the line it starts on, and a
document broken or cut off part way still yields the records before the break."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from auditor.model import Reject
from auditor.readers.result import excerpt
from auditor.readers.streams import read_bytes, read_text

_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def parse_document(data: bytes | str, source: str, rejects: list[Reject]) -> Any | None:
    """``data`` as one JSON value, or None with a reject naming the line where it breaks."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        newline = b"\n" if isinstance(data, bytes) else "\n"
        rejects.append(
            Reject(
                source=source,
                line=data.count(newline, 0, exc.pos) + 1,
                reason=f"malformed JSON document: {exc.msg}",
                excerpt=excerpt(data[max(0, exc.pos - 40) : exc.pos + 40]),
            )
        )
        return None


def load_document(path: Path, source: str, rejects: list[Reject]) -> Any | None:
    """A whole file as one JSON value, or None (with a reject) when it is not valid JSON."""
    data = read_bytes(path, source, rejects)
    return None if data is None else parse_document(data.lstrip(b"\xef\xbb\xbf"), source, rejects)


@dataclass
class ArrayDocument:
    """The records of the array a reader wants from a whole-JSON document."""

    pointer: str | None = None  # JSON pointer of the array ("" for a top-level array), None: none
    records: list[tuple[int, int, Any]] = field(default_factory=list)  # (index, line, value)
    malformed: bool = False  # the document is not valid JSON (a reject says where)


class _Malformed(Exception):
    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.message, self.position = message, position


def array_records(
    path: Path, source: str, rejects: list[Reject], keys: tuple[str, ...] = ()
) -> ArrayDocument:
    """``array_items`` of a whole (decompressed) file."""
    text = read_text(path, source, rejects)
    if text is None:
        return ArrayDocument(malformed=True)
    return array_items(text, source, rejects, keys)


def array_items(
    text: str, source: str, rejects: list[Reject], keys: tuple[str, ...] = ()
) -> ArrayDocument:
    """The elements of a document's top-level array, or of the array under the first of
    ``keys`` found in a top-level object, each with the 1-based line where it starts.

    The document is decoded element by element (``json.JSONDecoder.raw_decode``), so the line of
    each record costs only a count of newlines, and a document cut off or broken part way
    through still yields every complete record before the break; the break is a reject that
    names its line.
    """
    document = ArrayDocument()
    found: list[tuple[int, Any]] = []
    try:
        position = _skip(text, 1 if text.startswith("\ufeff") else 0)
        _expect(text, position, "[{")
        if text[position] == "[":
            document.pointer = ""
            position = _elements(text, position, found)
        else:
            position = _members(text, position, keys, found, document)
        position = _skip(text, position)
        if position < len(text):
            raise _Malformed("extra data after the document", position)
    except _Malformed as exc:
        document.malformed = True
        rejects.append(
            Reject(
                source=source,
                line=text.count("\n", 0, exc.position) + 1,
                reason=f"malformed JSON document: {exc.message}"
                + (f" ({len(found)} complete record(s) before it were read)" if found else ""),
                excerpt=excerpt(text[max(0, exc.position - 40) : exc.position + 40]),
            )
        )
    line, last = 1, 0
    for index, (offset, value) in enumerate(found):
        line += text.count("\n", last, offset)
        last = offset
        document.records.append((index, line, value))
    return document


def json_items(
    text: str, source: str, rejects: list[Reject], key: str | None = None
) -> Iterator[tuple[int, str, Any]]:
    """``(line, pointer, item)`` for the items of a JSON array in a document, with the line each
    item starts on: the top-level array, or the array under ``key`` of the top-level object.
    A break in the document is a reject naming its line; the items before it are kept."""
    document = array_items(text, source, rejects, (key,) if key is not None else ())
    for index, line, item in document.records:
        yield line, f"{document.pointer}/{index}", item


def _skip(text: str, position: int) -> int:
    match = _SPACE.match(text, position)
    return match.end() if match else position


def _expect(text: str, position: int, allowed: str) -> None:
    if position >= len(text):
        raise _Malformed("unexpected end of document", position)
    if text[position] not in allowed:
        wanted = " or ".join(repr(char) for char in allowed)
        raise _Malformed(f"expected {wanted}", position)


def _value(text: str, position: int) -> tuple[Any, int]:
    try:
        return _DECODER.raw_decode(text, position)
    except json.JSONDecodeError as exc:
        raise _Malformed(exc.msg, exc.pos) from None
    except RecursionError:
        raise _Malformed("nested too deeply", position) from None


def _elements(text: str, position: int, found: list[tuple[int, Any]]) -> int:
    """Decode the array at ``position``, appending ``(offset, value)`` per element."""
    position = _skip(text, position + 1)
    if text.startswith("]", position):
        return position + 1
    while True:
        value, end = _value(text, position)
        found.append((position, value))
        position = _skip(text, end)
        _expect(text, position, ",]")
        if text[position] == "]":
            return position + 1
        position = _skip(text, position + 1)


def _members(
    text: str,
    position: int,
    keys: tuple[str, ...],
    found: list[tuple[int, Any]],
    document: ArrayDocument,
) -> int:
    """Walk the object at ``position``; descend into the array of the first key of ``keys``
    (its pointer is set before the descent, so a break inside keeps the records before it)."""
    position = _skip(text, position + 1)
    if text.startswith("}", position):
        return position + 1
    while True:
        _expect(text, position, '"')
        key, position = _value(text, position)
        position = _skip(text, position)
        _expect(text, position, ":")
        position = _skip(text, position + 1)
        if document.pointer is None and key in keys and text.startswith("[", position):
            document.pointer = "/" + key.replace("~", "~0").replace("/", "~1")
            position = _elements(text, position, found)
        else:
            _, position = _value(text, position)
        position = _skip(text, position)
        _expect(text, position, ",}")
        if text[position] == "}":
            return position + 1
        position = _skip(text, position + 1)


def document_values(text: str, source: str, rejects: list[Reject]) -> Iterator[tuple[int, Any]]:
    """(start line, value) of each record of a JSON document: the elements of a top-level array,
    or each top-level value when the file holds one or several (concatenated) values.

    Decoded element by element with ``raw_decode``, so each record keeps the line it starts
    on; a syntax error is one reject at its line and ends the document.
    """
    line, counted = 1, 0
    position = skip_blank(text, 0)

    def line_at(index: int) -> int:
        nonlocal line, counted
        line += text.count("\n", counted, index)
        counted = index
        return line

    def fail(index: int, why: str) -> None:
        rejects.append(
            Reject(
                source=source,
                line=line_at(index),
                reason=f"malformed JSON document: {why}",
                excerpt=excerpt(text[max(0, index - 40) : index + 40]),
            )
        )

    in_array = text.startswith("[", position)
    if in_array:
        position = skip_blank(text, position + 1)
        if text.startswith("]", position):
            return
    while position < len(text):
        try:
            value, end = _DECODER.raw_decode(text, position)
        except ValueError as exc:
            fail(getattr(exc, "pos", position), str(getattr(exc, "msg", exc)))
            return
        yield line_at(position), value
        position = skip_blank(text, end)
        if not in_array:
            continue
        if text.startswith(",", position):
            position = skip_blank(text, position + 1)
        elif text.startswith("]", position):
            rest = skip_blank(text, position + 1)
            if rest < len(text):
                fail(rest, "text after the end of the array")
            return
        else:
            fail(position, "expected ',' or ']' between array elements")
            return
    if in_array:
        fail(len(text), "the array is not closed")


def skip_blank(text: str, position: int) -> int:
    """The position of the first character at or after ``position`` that is not blank."""
    while position < len(text) and text[position] in " \t\r\n\ufeff":
        position += 1
    return position


def first_element(text: str) -> Any:
    """The first record of a JSON document's start (None when it cannot be decoded there)."""
    position = skip_blank(text, 0)
    if text.startswith("[", position):
        position = skip_blank(text, position + 1)
    try:
        return _DECODER.raw_decode(text, position)[0]
    except ValueError:
        return None


def embedded_json(text: str, start: int = 0) -> tuple[Any, int, int] | None:
    """The first JSON object or array inside a text line, as ``(value, begin, end)``.

    Log lines carry JSON after a prefix and sometimes before a suffix
    (``... Message from server: {...} { metadata: undefined }``): the value is cut out by
    decoding from the first brace, never by parsing to the end of the line.
    """
    position = start
    while True:
        brace = min(
            (i for i in (text.find("{", position), text.find("[", position)) if i >= 0), default=-1
        )
        if brace < 0:
            return None
        try:
            value, end = _DECODER.raw_decode(text, brace)
            return value, brace, end
        except RecursionError:
            return None  # nested too deeply to be an event: the line is text
        except ValueError:
            position = brace + 1


# ----------------------------------------------------------------------------- indented documents
_DIGITS = bytes(48 if 48 <= byte <= 57 else 32 for byte in range(256))  # digits stay, others: " "
_LONG_RUN = b"0" * 19
_RUN = re.compile(b"0*")
_BYTES_SPACE = re.compile(b"[ \t\n\r]*")
_BOM = b"\xef\xbb\xbf"


def _forth(data: bytes, position: int) -> int:
    """``position`` moved on over the JSON whitespace at it."""
    return _BYTES_SPACE.match(data, position).end()  # type: ignore[union-attr]


def _back(data: bytes, position: int) -> int:
    """``position`` moved back over the JSON whitespace before it."""
    while position > 0 and data[position - 1] in b" \t\r\n":
        position -= 1
    return position


def _indent(data: bytes, position: int) -> int | None:
    """How many spaces open the line of ``position`` before it, None when anything else does
    (the value does not begin its line)."""
    start = data.rfind(b"\n", 0, position) + 1
    if start == 0 or data[start:position].strip(b" "):
        return None
    return position - start


def _integer_as_float(data: bytes) -> bool:
    """Might orjson read a number of ``data`` as a float where the standard library reads an
    integer? It does for integers beyond 64 bits: a run of 20 digits or more, or a negative
    one of 19 below -2**63 (the digits of a fraction, after a ``.``, are no integer). Runs
    inside strings are counted too: reading the slow way costs only time."""
    digits = data.translate(_DIGITS)
    found = digits.find(_LONG_RUN)
    while found >= 0:
        end = _RUN.match(digits, found).end()  # type: ignore[union-attr]
        before = data[found - 1 : found]
        if before != b"." and (
            end - found > 19 or (before == b"-" and int(data[found:end]) > 2**63)
        ):
            return True
        found = digits.find(_LONG_RUN, end)
    return False


def _pieces(data: bytes, first: int, close: int, starts: list[int]) -> list[tuple[int, int]] | None:
    """``(start, end)`` of the values beginning at ``first`` and at each of ``starts``, before
    ``close``: each but the last ends in a comma (left out), whitespace around them."""
    found = []
    for start, after in zip([first, *starts], [*starts, close], strict=True):
        end = _back(data, after)
        if after != close:
            if data[end - 1 : end] != b",":
                return None
            end = _back(data, end - 1)
        found.append((start, end))
    return found


def indented_document(
    data: bytes, key: str
) -> tuple[dict[str, Any], list[tuple[int, int, Any]]] | None:
    """A JSON object written one member a line, its array under ``key`` last and one element
    a line (as ``JSON.stringify(value, null, 2)`` and ``json.dumps(value, indent=2)`` write
    them), read piece by piece with orjson from the file's bytes: the object, and ``(index,
    line, value)`` of that array's elements, as a whole parse and ``array_items`` give them,
    at a fraction of their cost.

    The pieces are cut where a line begins as the first member's or the first element's does
    (the same indentation, the same first character: a JSON text breaks lines only between
    tokens, never inside a string), and each must read as one whole value. A text written
    any other way, invalid (in its UTF-8 too), or holding a number orjson reads differently
    from the standard library gives None: the caller reads it the slow way."""
    if _integer_as_float(data):
        return None
    begin = 0
    while data.startswith(_BOM, begin):
        begin += len(_BOM)
    begin = _forth(data, begin)
    close = _back(data, len(data)) - 1
    if not data.startswith(b"{", begin) or close <= begin or data[close] != ord("}"):
        return None
    start = _forth(data, begin + 1)
    indent = _indent(data, start)
    if indent is None or not data.startswith(b'"', start):
        return None
    name = orjson.dumps(key)
    member = b"\n" + b" " * indent + b'"'
    document: dict[str, Any] = {}
    while not data.startswith(name, start):  # the members before the array, one by one
        after = data.find(member, start, close)
        if after < 0:
            return None
        end = _back(data, after)
        if data[end - 1 : end] != b",":
            return None
        try:
            document.update(orjson.loads(b"{" + data[start : _back(data, end - 1)] + b"}"))
        except orjson.JSONDecodeError:
            return None
        start = after + indent + 1
    elements = _indented_elements(data, start + len(name), _back(data, close), indent)
    if elements is None or key in document:
        return None
    document[key] = [value for _, _, value in elements]
    return document, elements


def _indented_elements(
    data: bytes, position: int, end: int, indent: int
) -> list[tuple[int, int, Any]] | None:
    """The elements of the array that is the rest of a member (``position`` after its name,
    ``end`` after its value), one a line at an indentation deeper than ``indent``."""
    colon = _forth(data, position)
    opening = _forth(data, colon + 1)
    close = end - 1
    if not data.startswith(b":", colon) or not data.startswith(b"[", opening):
        return None
    if close <= opening or data[close] != ord("]"):
        return None
    first = _forth(data, opening + 1)
    if first == close:
        return []
    inner = _indent(data, first)
    if inner is None or inner <= indent:
        return None
    needle = b"\n" + b" " * inner + data[first : first + 1]
    starts = []
    at = data.find(needle, first, close)
    while at >= 0:
        starts.append(at + inner + 1)
        at = data.find(needle, at + inner + 2, close)
    pieces = _pieces(data, first, close, starts)
    if pieces is None:
        return None
    found: list[tuple[int, int, Any]] = []
    line, counted = 1, 0
    loads, bad_json = orjson.loads, orjson.JSONDecodeError
    for index, (start, stop) in enumerate(pieces):
        try:
            element = loads(data[start:stop])
        except bad_json:
            return None
        line += data.count(b"\n", counted, start)
        counted = start
        found.append((index, line, element))
    return found
