"""Looking inside a tool result: the texts it carries and the JSON values hidden in them.

A failure can sit in ``structuredContent``, in a text block as JSON (sometimes encoded twice),
or in the plain content. Every value found comes with a JSON pointer relative to the result
record; a pointer step through a string means "the JSON inside this string".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from auditor.model import ToolResult
from auditor.redact import shorten

MAX_DECODE_DEPTH = 3
EVIDENCE_CHARS = 200


@dataclass(frozen=True)
class Text:
    text: str
    pointer: str


@dataclass(frozen=True)
class Value:
    value: Any
    pointer: str


@dataclass
class Payload:
    """The texts of a result and the JSON values found in it, each with its pointer."""

    texts: list[Text]  # every text as stored
    values: list[Value]  # structuredContent, JSON content, and JSON decoded from texts
    plain: list[Text]  # texts that are not JSON: prose, logs, error reports


def decode_json_text(text: str) -> tuple[bool, Any]:
    """(True, value) when the text is JSON (decoding strings inside strings up to 3 times)."""
    value: Any = text
    decoded = False
    for _ in range(MAX_DECODE_DEPTH):
        if not isinstance(value, str):
            break
        stripped = value.strip()
        if not stripped or (stripped[0] not in '{["' and stripped not in ("null", "true", "false")):
            break
        try:
            value = orjson.loads(stripped)
        except orjson.JSONDecodeError:
            break
        decoded = True
    return decoded, value


def read_payload(result: ToolResult) -> Payload:
    texts: list[Text] = []
    values: list[Value] = []
    if result.has_structured:
        values.append(Value(result.structured, f"/{result.structured_key}"))
    content = result.content
    base = f"/{result.content_key}"
    if isinstance(content, str):
        texts.append(Text(content, base))
    elif isinstance(content, list):
        for index, block in enumerate(content):
            if isinstance(block, str):
                texts.append(Text(block, f"{base}/{index}"))
            elif isinstance(block, dict):
                if isinstance(text := block.get("text"), str):
                    texts.append(Text(text, f"{base}/{index}/text"))
                resource = block.get("resource")
                if isinstance(resource, dict) and isinstance(resource.get("text"), str):
                    texts.append(Text(resource["text"], f"{base}/{index}/resource/text"))
    elif isinstance(content, (dict, bool, int, float)):
        values.append(Value(content, base))
    plain: list[Text] = []
    for text in texts:
        decoded, value = decode_json_text(text.text)
        if decoded and not isinstance(value, str):
            values.append(Value(value, text.pointer))
        elif decoded:
            plain.append(Text(value, text.pointer))
        else:
            plain.append(text)
    return Payload(texts=texts, values=values, plain=plain)


def clip(text: str, limit: int = EVIDENCE_CHARS) -> str:
    """One line of evidence, short enough for a table cell, never cut inside a key (``shorten``)."""
    return shorten(" ".join(str(text).split()), limit)
