"""JSON lines: one record per line of a file (or of one ``Span`` of it) or of a text, bad lines
reported as rejects with their line."""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from auditor.model import Reject
from auditor.readers.json_stream import document_values
from auditor.readers.result import excerpt
from auditor.readers.streams import STREAM_ERRORS, broken_stream, open_bytes


@dataclass(frozen=True)
class Span:
    """A part of a plain (uncompressed) file cut at line boundaries: the bytes ``start`` to
    ``end`` beginning at line ``first_line``. Large one-record-per-line files are read in
    spans, so that workers share them and memory stays bounded."""

    start: int
    end: int
    first_line: int


def json_lines(
    path: Path, source: str, rejects: list[Reject], span: Span | None = None
) -> Iterator[tuple[int, Any]]:
    """Yield (line number, decoded JSON) for each non-blank line (of ``span`` when given);
    bad lines go to ``rejects``."""
    first = span.first_line if span else 1
    number = first - 1
    offset = next_offset = span.start if span else 0
    with open_bytes(path) if span is None else _span_lines(path, span) as handle:
        try:
            for number, raw in enumerate(handle, first):
                offset, next_offset = next_offset, next_offset + len(raw)
                line = raw[3:] if number == 1 and raw.startswith(b"\xef\xbb\xbf") else raw
                if line.isspace() or not line:  # blank (without copying the line to strip it)
                    continue
                try:
                    yield number, orjson.loads(line)
                except orjson.JSONDecodeError as exc:
                    cut = not line.endswith(b"\n")
                    reason = "truncated JSON" if cut else f"malformed JSON: {exc}"
                    rejects.append(
                        Reject(
                            source=source,
                            line=number,
                            offset=offset,
                            reason=reason,
                            excerpt=excerpt(line),
                        )
                    )
        except STREAM_ERRORS as exc:
            rejects.append(broken_stream(source, number + 1, exc, next_offset))


def bad_line(
    source: str, number: int, offset: int, line: bytes, error: orjson.JSONDecodeError
) -> Reject:
    """The reject of a line that is not JSON, as ``json_lines`` makes it (for readers that
    walk a file's lines themselves)."""
    cut = not line.endswith(b"\n")
    return Reject(
        source=source,
        line=number,
        offset=offset,
        reason="truncated JSON" if cut else f"malformed JSON: {error}",
        excerpt=excerpt(line),
    )


def _span_lines(path: Path, span: Span) -> IO[bytes]:
    """The bytes of one span of a plain file, as a stream of lines."""
    with open(path, "rb") as handle:
        handle.seek(span.start)
        return io.BytesIO(handle.read(span.end - span.start))


def text_lines(text: str, source: str, rejects: list[Reject]) -> Iterator[tuple[int, Any]]:
    """(line number, decoded JSON) for each non-blank line of a text; bad lines are rejects."""
    lines = text.split("\n")
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            yield number, orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            last = number == len(lines) and not text.endswith("\n")
            rejects.append(
                Reject(
                    source=source,
                    line=number,
                    reason="truncated JSON" if last else f"malformed JSON: {exc}",
                    excerpt=excerpt(raw),
                )
            )


def first_line_is_json(text: str) -> bool:
    """The first non-blank line is a complete JSON value (a JSON-lines file)."""
    for line in text.splitlines():
        if line.strip():
            try:
                orjson.loads(line)
                return True
            except orjson.JSONDecodeError:
                return False
    return False


def json_records(text: str, source: str, rejects: list[Reject]) -> Iterator[tuple[int, Any]]:
    """(line, value) of each record of a text: a JSON document's values, or one per line."""
    if text.lstrip()[:1] in ("[", "{") and not first_line_is_json(text):
        return document_values(text, source, rejects)
    return text_lines(text, source, rejects)
