"""What every reader shares: reading JSON records line by line, reporting what it cannot read."""

from __future__ import annotations

import io
import itertools
import json
import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson
import zstandard

from auditor.model import Conversation, Reject

EXCERPT_CHARS = 120
COMPRESSED = {".gz": "gzip", ".zst": "zstd"}
SAMPLE_BYTES = 256 << 10
SAMPLE_LINES = 60


def plain_name(path: Path) -> str:
    """The file name without a compression suffix (``a.jsonl.gz`` -> ``a.jsonl``)."""
    name = path.name
    for suffix in COMPRESSED:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def open_bytes(path: Path) -> IO[bytes]:
    """The decompressed bytes of a file: gzip and zstd are recognised by their magic bytes
    (so compressed standard input works too), other files are read as they are."""
    raw = open(path, "rb")  # noqa: SIM115 - returned to the caller, or closed with its reader
    magic = raw.peek(4)[:4] if isinstance(raw, io.BufferedReader) else b""
    if magic.startswith(GZIP_MAGIC):
        return io.BufferedReader(_GzipStream(raw))
    if magic.startswith(ZSTD_MAGIC):
        return io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(raw, closefd=True))
    return raw


class _GzipStream(io.RawIOBase):
    """Gzip decompression that hands out everything a damaged or cut-off file still holds
    before it raises ``EOFError`` (the standard ``gzip`` module raises before handing out the
    last part). Concatenated gzip members are read one after another."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._pending:
            chunk = self._inflate.unused_data or self._raw.read(64 << 10)
            if self._inflate.eof:
                if not chunk:
                    return 0
                self._inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
            elif not chunk:
                raise EOFError("compressed file ended before the end-of-stream marker")
            self._pending = self._inflate.decompress(chunk)
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size

    def close(self) -> None:
        self._raw.close()
        super().close()


# Errors a damaged compressed stream raises part way through.
STREAM_ERRORS = (EOFError, OSError, zlib.error, zstandard.ZstdError)


@dataclass
class Sample:
    """The start of a file, for readers to recognise their format from."""

    path: Path
    name: str  # file name without compression suffix
    head: bytes  # the first SAMPLE_BYTES of decompressed content
    lines: list[bytes]  # the first non-blank lines of ``head``
    records: list[Any]  # each of ``lines`` decoded as JSON (None where it is not)
    parsed: list[bool] = field(default_factory=list)  # which of ``lines`` are JSON values

    @property
    def suffix(self) -> str:
        return Path(self.name).suffix.lower()

    @property
    def text(self) -> str:
        return self.head.decode("utf-8", "replace")

    def looks_like_json_document(self) -> bool:
        """The file is one JSON value spread over lines (pretty-printed or a single big line)."""
        stripped = self.head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if stripped[:1] not in (b"{", b"["):
            return False
        if len(self.lines) <= 1:
            return True
        # Pretty-printed: the first line is no JSON value of its own and few others are. A JSONL
        # file whose first line is broken still has whole values on most of its lines.
        parsed = self.parsed or [record is not None for record in self.records]
        return not parsed[0] and sum(parsed) < len(self.lines) // 2


def take_sample(path: Path) -> Sample:
    chunks: list[bytes] = []
    with open_bytes(path) as handle:
        try:  # read in pieces, so a damaged compressed stream still yields its sound start
            while sum(map(len, chunks)) < SAMPLE_BYTES and (chunk := handle.read(16 << 10)):
                chunks.append(chunk)
        except STREAM_ERRORS:
            pass
    head = b"".join(chunks)[:SAMPLE_BYTES]
    lines = [line for line in head.splitlines() if line.strip()][:SAMPLE_LINES]
    if len(head) == SAMPLE_BYTES and lines and not head.endswith(b"\n"):
        # The last line may be cut by the sample's end; a single long line is read whole.
        lines = lines[:-1] if len(lines) > 1 else [_first_line(path) or lines[0]]
    records: list[Any] = []
    parsed: list[bool] = []
    for line in lines:
        try:
            records.append(orjson.loads(line.lstrip(b"\xef\xbb\xbf")))
            parsed.append(True)
        except orjson.JSONDecodeError:
            records.append(None)
            parsed.append(False)
    return Sample(
        path=path, name=plain_name(path), head=head, lines=lines, records=records, parsed=parsed
    )


def _first_line(path: Path) -> bytes:
    """The first non-blank line of a file however long it is (one conversation of many MB)."""
    with open_bytes(path) as handle:
        try:
            for line in handle:
                if line.strip():
                    return line.rstrip(b"\r\n")
        except STREAM_ERRORS:
            pass
    return b""


def read_bytes(path: Path, source: str, rejects: list[Reject]) -> bytes | None:
    """A whole (decompressed) file, or None with a reject when it cannot be read."""
    try:
        with open_bytes(path) as handle:
            return handle.read()
    except STREAM_ERRORS as exc:
        rejects.append(Reject(source=source, line=1, reason=f"unreadable compressed stream: {exc}"))
        return None


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


def excerpt(raw: Any, limit: int = EXCERPT_CHARS) -> str:
    """A short, printable piece of a bad record for the rejects list: text and bytes as they
    are, any other value as its JSON."""
    if isinstance(raw, bytes):
        text = raw.decode("utf-8", "replace")
    elif isinstance(raw, str):
        text = raw
    else:
        text = _as_json(raw)
    text = text.strip().replace("\r", " ").replace("\n", " ")
    return text if len(text) <= limit else text[:limit] + "…"


@dataclass
class ReadResult:
    """Conversations and rejects from one file, in file order; ``skipped`` says why a file that
    is not a transcript (a licence, a labels file) was passed over."""

    conversations: list[Conversation] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    skipped: str | None = None
    # Lines or records read and deliberately not audited (log text around the events, events
    # that carry no conversation): reason -> how many. The summary counts them.
    passed_over: dict[str, int] = field(default_factory=dict)

    def pass_over(self, reason: str, count: int = 1) -> None:
        self.passed_over[reason] = self.passed_over.get(reason, 0) + count


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
                if not line.strip():
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
            rejects.append(
                Reject(
                    source=source,
                    line=number + 1,
                    offset=next_offset,
                    reason=f"unreadable compressed stream: {exc}",
                )
            )


def _span_lines(path: Path, span: Span) -> IO[bytes]:
    """The bytes of one span of a plain file, as a stream of lines."""
    with open(path, "rb") as handle:
        handle.seek(span.start)
        return io.BytesIO(handle.read(span.end - span.start))


def read_conversations(
    path: Path,
    source: str,
    format_name: str,
    parse: Callable[[dict[str, Any], Conversation, str, list[Reject]], None],
    span: Span | None = None,
) -> ReadResult:
    """Read conversations stored one per line (JSONL), or as a ``.json`` document holding one
    conversation, an array of them, or an object with a list of them. ``parse(record,
    conversation, pointer, rejects)`` fills each conversation; ``pointer`` locates the record.
    With a ``span``, only the lines of that part of a JSONL file are read."""
    result = ReadResult()
    sample = take_sample(path)
    if span is not None:
        records = ((n, "", r) for n, r in json_lines(path, source, result.rejects, span))
    elif sample.looks_like_json_document():
        records = list(_document_records(path, source, result.rejects))
        if not records and not result.rejects:
            result.rejects.append(
                Reject(
                    source=source,
                    line=1,
                    reason="JSON document holds no conversations",
                    excerpt=excerpt(sample.head),
                )
            )
    else:
        records = ((n, "", r) for n, r in json_lines(path, source, result.rejects))
    for number, pointer, record in records:
        if not is_conversation(record):
            result.rejects.append(
                Reject(
                    source=source,
                    line=number,
                    reason="no messages list",
                    excerpt=excerpt(record),
                )
            )
            continue
        conversation = Conversation(
            id=conversation_id(record, sample.name, number),
            source=source,
            format=format_name,
            line=number,
        )
        parse(record, conversation, pointer, result.rejects)
        result.conversations.append(conversation)
    return result


def sniff_conversations(sample: Sample, looks_like: Callable[[Any], int]) -> int:
    """Score a sample with a per-record ``looks_like``: the records of a JSONL file, or the
    conversations at the start of a JSON document (which the sample may cut short)."""
    if not sample.looks_like_json_document() or sample.records[:1] != [None]:
        found: list[Any] = []
        for record in sample.records:
            if isinstance(record, list):  # a line holding an array of conversations
                found.extend(record[:20])
            elif isinstance(record, dict) and not is_conversation(record):
                key = conversation_list_key(record)  # a line holding an export object
                found.extend(record[key][:20] if key else [record])
            elif record is not None:
                found.append(record)
        return sum(looks_like(record) for record in found[:SAMPLE_LINES])
    text = sample.text.lstrip("\ufeff")
    ignored: list[Reject] = []
    if text.lstrip().startswith("["):
        items = json_items(text, sample.name, ignored)
    else:
        try:
            whole = orjson.loads(text)
        except orjson.JSONDecodeError:
            whole = None
        if whole is not None and is_conversation(whole):
            return looks_like(whole)
        match = re.search(r'"([^"\\]{1,64})"\s*:\s*\[\s*\{', text)
        items = json_items(text, sample.name, ignored, match.group(1)) if match else iter(())
    return sum(looks_like(item) for _, _, item in itertools.islice(items, 20))


def is_conversation(record: Any) -> bool:
    return isinstance(record, dict) and isinstance(record.get("messages"), list)


def conversation_list_key(document: Any) -> str | None:
    """The key of a document object whose value is a list of conversations, if there is one."""
    if not isinstance(document, dict):
        return None
    for key, value in document.items():
        if isinstance(value, list) and value and all(is_conversation(v) for v in value[:20]):
            return key
    return None


def _document_records(
    path: Path, source: str, rejects: list[Reject]
) -> Iterator[tuple[int, str, Any]]:
    text = read_text(path, source, rejects)
    if text is None:
        return
    document = parse_document(text, source, rejects)
    if document is None:
        return
    if is_conversation(document):
        yield 1, "", document
    elif isinstance(document, list):
        yield from json_items(text, source, rejects)
    elif (key := conversation_list_key(document)) is not None:
        yield from json_items(text, source, rejects, key)
    else:
        yield 1, "", document


_DECODER = json.JSONDecoder()


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


def read_text(path: Path, source: str, rejects: list[Reject]) -> str | None:
    """A whole (decompressed) file as text, or None with a reject when it cannot be read."""
    data = read_bytes(path, source, rejects)
    return None if data is None else data.decode("utf-8", "replace").lstrip("\ufeff")


def json_items(
    text: str, source: str, rejects: list[Reject], key: str | None = None
) -> Iterator[tuple[int, str, Any]]:
    """``(line, pointer, item)`` for the items of a JSON array in a document, with the line each
    item starts on: the top-level array, or the array under ``key`` of the top-level object.
    A break in the document is a reject naming its line; the items before it are kept."""
    document = array_items(text, source, rejects, (key,) if key is not None else ())
    for index, line, item in document.records:
        yield line, f"{document.pointer}/{index}", item


def as_text(value: Any) -> str:
    """Text of a content value: a string, or the text blocks of a content list."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = []
        for block in value:
            if isinstance(block, str):
                texts.append(block)
            elif isinstance(block, dict) and isinstance(block.get("text"), str):
                texts.append(block["text"])
        return "\n".join(texts)
    return ""


def decode_arguments(raw: Any) -> Any:
    """Tool arguments as a value: JSON strings are decoded, bad JSON is kept as the string."""
    if isinstance(raw, str):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            return raw
    return raw


def conversation_id(record: dict[str, Any], source_name: str, line: int) -> str:
    """The spec's conversation id: conversation_id, id, session_id or sessionId, else file:line."""
    for key in ("conversation_id", "id", "session_id", "sessionId"):
        value = record.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
            return str(value)
    return f"{source_name}:{line}"


# Detection scores, on one scale for every reader: a format's own structure is sure evidence;
# its markers in the sample, when the structure lies beyond it, are likely evidence. Readers
# that score records one by one (``looks_like``) stay well below.
SURE = 100
LIKELY = 80


def is_scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _as_json(value: Any) -> str:
    """A value as JSON text, whatever the document held (big integers included)."""
    try:
        return orjson.dumps(value, default=str).decode()
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(value, default=str)[:1000]


# ----------------------------------------------------------------------------- JSON documents
_SPACE = re.compile(r"[ \t\n\r]*")


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


# ----------------------------------------------------------------------------- JSON values in text
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
    while position < len(text) and text[position] in " \t\r\n\ufeff":
        position += 1
    return position


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


def first_element(text: str) -> Any:
    """The first record of a JSON document's start (None when it cannot be decoded there)."""
    position = skip_blank(text, 0)
    if text.startswith("[", position):
        position = skip_blank(text, position + 1)
    try:
        return _DECODER.raw_decode(text, position)[0]
    except ValueError:
        return None


def json_records(text: str, source: str, rejects: list[Reject]) -> Iterator[tuple[int, Any]]:
    """(line, value) of each record of a text: a JSON document's values, or one per line."""
    if text.lstrip()[:1] in ("[", "{") and not first_line_is_json(text):
        return document_values(text, source, rejects)
    return text_lines(text, source, rejects)
