"""What every reader shares: reading JSON records line by line, reporting what it cannot read."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from auditor.model import Conversation, Reject

EXCERPT_CHARS = 120


def excerpt(raw: bytes | str, limit: int = EXCERPT_CHARS) -> str:
    """A short, printable piece of a bad record for the rejects list."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    text = text.strip().replace("\r", " ").replace("\n", " ")
    return text if len(text) <= limit else text[:limit] + "…"


@dataclass
class ReadResult:
    """Conversations and rejects from one file, in file order."""

    conversations: list[Conversation] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    lines: int = 0


def json_lines(path: Path, source: str, rejects: list[Reject]) -> Iterator[tuple[int, Any]]:
    """Yield (line number, decoded JSON) for each non-blank line; bad lines go to ``rejects``."""
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, 1):
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            if not raw.strip():
                continue
            try:
                yield number, orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                reason = "truncated JSON" if not raw.endswith(b"\n") else f"malformed JSON: {exc}"
                rejects.append(
                    Reject(source=source, line=number, reason=reason, excerpt=excerpt(raw))
                )


def read_conversation_lines(
    path: Path,
    source: str,
    format_name: str,
    parse: Callable[[dict[str, Any], Conversation], None],
) -> ReadResult:
    """Read a one-conversation-per-line file: ``parse`` fills each line's conversation."""
    result = ReadResult()
    for number, record in json_lines(path, source, result.rejects):
        if not isinstance(record, dict) or not isinstance(record.get("messages"), list):
            result.rejects.append(
                Reject(
                    source=source,
                    line=number,
                    reason="no messages list",
                    excerpt=excerpt(orjson.dumps(record)),
                )
            )
            continue
        conversation = Conversation(
            id=conversation_id(record, path.name, number),
            source=source,
            format=format_name,
            line=number,
        )
        parse(record, conversation)
        result.conversations.append(conversation)
    return result


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
