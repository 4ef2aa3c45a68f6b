"""What readers of chat-shaped conversations share: finding the conversations of a JSONL file or
JSON document, their ids, and the text and tool arguments of their messages."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from auditor.model import Conversation, Reject
from auditor.readers.json_stream import json_items, parse_document
from auditor.readers.lines import Span, json_lines
from auditor.readers.result import ReadResult, excerpt
from auditor.readers.sampling import SAMPLE_LINES, Sample, take_sample
from auditor.readers.streams import read_text

# The chat shapes stored one conversation per line (OpenAI Chat, Anthropic Messages): each
# reader registers its shape, so that a file mixing them reads every line with the reader of
# its own shape instead of the one detected for the file.
Parse = Callable[[dict[str, Any], Conversation, str, list[Reject]], None]
_SHAPES: dict[str, tuple[Callable[[Any], int], Parse]] = {}


def register_shape(format_name: str, looks_like: Callable[[Any], int], parse: Parse) -> None:
    """Make a one-conversation-per-line chat shape known to ``read_conversations``."""
    _SHAPES[format_name] = (looks_like, parse)


def _shape_of(record: dict[str, Any], format_name: str, parse: Parse) -> tuple[str, Parse]:
    """The shape a record is in: the file's own, unless it does not look like it and another
    registered shape does (an Anthropic line in a file of OpenAI chats)."""
    own = _SHAPES.get(format_name)
    if own is None or own[0](record) > 0:
        return format_name, parse
    scored = [(looks(record), name, other) for name, (looks, other) in _SHAPES.items()]
    best = max(scored, key=lambda item: item[0], default=(0, format_name, parse))
    return (best[1], best[2]) if best[0] > 0 else (format_name, parse)


def read_conversations(
    path: Path,
    source: str,
    format_name: str,
    parse: Parse,
    span: Span | None = None,
) -> ReadResult:
    """Read conversations stored one per line (JSONL), or as a ``.json`` document holding one
    conversation, an array of them, or an object with a list of them. ``parse(record,
    conversation, pointer, rejects)`` fills each conversation; ``pointer`` locates the record.
    With a ``span``, only the lines of that part of a JSONL file are read. A record in another
    registered chat shape is read as that shape (``register_shape``)."""
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
        shape, parse_shape = _shape_of(record, format_name, parse)
        conversation = Conversation(
            conversation_id(record, sample.name, number), source, shape, number
        )
        parse_shape(record, conversation, pointer, result.rejects)
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
    """A record holding a conversation: an object with a ``messages`` list."""
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
    """``(line, pointer, record)`` of the conversations of a whole JSON document."""
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


def conversation_id(record: dict[str, Any], source_name: str, line: int) -> str:
    """The spec's conversation id: conversation_id, id, session_id or sessionId, else file:line."""
    for key in ("conversation_id", "id", "session_id", "sessionId"):
        value = record.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
            return str(value)
    return f"{source_name}:{line}"


def text_or_none(value: Any) -> str | None:
    """A field that should be a string (a record's ``type``), or None: a list or an object
    there is never hashed or compared, so one odd record cannot stop its file."""
    return value if isinstance(value, str) else None


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


def is_scalar(value: Any) -> bool:
    """A string or a number (booleans are not), as ids and simple values are."""
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


_CALL_RESULT_START = re.compile(r'\s*\{\s*"(?:content|isError|is_error|structuredContent|_meta)"')


def serialised_call_result(content: Any) -> dict[str, Any] | None:
    """An MCP ``CallToolResult`` a host passed on as the text of a tool message
    (``'{"content": [...], "isError": true}'``): the object, or None when ``content`` is not
    one. Its flag is the server's own, as if the host had kept the fields."""
    text = content if isinstance(content, str) else None
    if (
        isinstance(content, list)
        and len(content) == 1
        and isinstance(content[0], dict)
        and content[0].get("type") == "text"
    ):
        text = content[0].get("text")
    # Only an object whose first key is one of a CallToolResult's is parsed: tool texts are
    # often large JSON answers, and parsing each of them here would double the readers' work.
    if not isinstance(text, str) or not _CALL_RESULT_START.match(text):
        return None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if (
        isinstance(value, dict)
        and isinstance(value.get("content"), list)
        and all(isinstance(block, dict) and "type" in block for block in value["content"])
        and isinstance(value.get("isError", value.get("is_error", False)), bool)
        and set(value) <= {"content", "isError", "is_error", "structuredContent", "_meta"}
    ):
        return value
    return None
