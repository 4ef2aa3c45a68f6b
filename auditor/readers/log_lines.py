"""Log files that carry Claude Code stream-json events inside their log lines.

Runners that wrap ``claude -p --output-format stream-json`` (hive-mind's ``solve`` logs, for
one) write every line with a prefix, ``[2025-11-04T04:47:21.987Z] [INFO] text``, and put the
stream's events among their own messages in three shapes:

- one event on one line: ``[ts] [INFO] {"type":"assistant",...}``;
- pretty-printed: ``[ts] [INFO] {`` followed by unprefixed lines up to the closing ``}``;
- one long event cut by the logger into pieces, each piece on a prefixed line of its own;
  the pieces are joined back (without a line break) until the value closes.

An event's ``line`` is the log line its JSON starts on. The events go to the Claude Code event
reader (``claude_code.EventReader``): sessions, sub-agents and passed-over event types are
handled there. A value cut off before it closes (the next event starts, the pieces stop, or
the file ends) is rejected as ``truncated JSON in log``; one that cannot be JSON is rejected
as ``malformed JSON in log``. A JSON value found further inside a log line is read when it is
an event. Every other non-blank line is log text, passed over and counted.

JSON-RPC lines of MCP clients (Claude Desktop's ``mcp-server-*.log``) are not this reader's:
detection asks for a Claude Code event (``type`` user, assistant, system or result).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from auditor.model import Reject
from auditor.readers.claude_code import EventReader
from auditor.readers.json_stream import embedded_json
from auditor.readers.result import ReadResult, excerpt
from auditor.readers.sampling import Sample
from auditor.readers.streams import plain_name, read_text

NAME = "log_lines"
DESCRIPTION = "log lines ([timestamp] [LEVEL] ...) carrying Claude Code stream-json events"
READS_SPANS = False
looks_like = None  # recognised from the whole sample, by sniff

# ``[2025-11-04T04:47:21.987Z] [INFO] text``; the level is optional.
PREFIX = re.compile(
    r"^\[(?P<time>\d{4}-\d\d-\d\d[T ][0-9:.,]+(?:Z|[+-]\d\d:?\d\d)?)\]"
    r"[ \t]*(?:\[(?P<level>[A-Za-z]+)\][ \t]?)?(?P<text>.*)$"
)
EVENT_KINDS = ("user", "assistant", "system", "result")
# A compact event's start: ``{"type": "assistant"`` (type first, as the stream writes it).
_COMPACT_EVENT = re.compile(r'^\s*\{\s*"type"\s*:\s*"(?:' + "|".join(EVENT_KINDS) + r')"')
_PRETTY_TYPE = re.compile(r'^\s+"type"\s*:\s*"(?:' + "|".join(EVENT_KINDS) + r')"')
# A JSON value starting a line's text: ``{`` alone or before a key, ``[`` before a value.
_JSON_START = re.compile(r'^\s*(?:\{\s*(?:"|$)|\[\s*(?:[{\["\d-]|$))')
_NUMBER_START = re.compile(r"-?(?:\d+(?:\.\d*)?(?:[eE][+-]?\d*)?)?")
_DECODER = json.JSONDecoder()

LOG_TEXT = "log text without a transcript event"
NOT_EVENT = "JSON in log without a claude code event type"
TRUNCATED = "truncated JSON in log"


def sniff(sample: Sample) -> int:
    lines = sample.text.splitlines()
    prefixed = events = 0
    for index, line in enumerate(lines):
        match = PREFIX.match(line)
        if match is None:
            continue
        prefixed += 1
        text = match["text"]
        if _COMPACT_EVENT.match(text) or (
            text.strip() == "{" and index + 1 < len(lines) and _PRETTY_TYPE.match(lines[index + 1])
        ):
            events += 1
    if not events:
        return 0
    return 20 + min(events, 40) + min(prefixed // 10, 20)


def read(path: Path, source: str) -> ReadResult:
    result = ReadResult()
    text = read_text(path, source, result.rejects)
    if text is None:
        return result
    lines = [line.rstrip("\r") for line in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    # a log of a host's output can lose lines: a call without its result lost the result line
    events = EventReader(
        source, result, NAME, default_session=Path(plain_name(path)).stem, loses_lines=True
    )
    index = 0
    while index < len(lines):
        index = _read_at(lines, index, events, result, source)
    events.finish()
    return result


def _read_at(
    lines: list[str], index: int, events: EventReader, result: ReadResult, source: str
) -> int:
    """Read what starts at ``lines[index]``; return the index of the next unread line."""
    line = lines[index]
    if not line.strip():
        return index + 1
    match = PREFIX.match(line)
    body = match["text"] if match else line
    if match is not None and _JSON_START.match(body):
        value, last, problem = _collect(lines, index, body)
        if problem is not None:
            result.rejects.append(
                Reject(source=source, line=index + 1, reason=problem, excerpt=excerpt(body))
            )
        else:
            _take(value, index + 1, events, result)
        return last + 1
    found = embedded_json(body) if match is not None else None
    if found is not None and isinstance(found[0], dict) and isinstance(found[0].get("type"), str):
        _take(found[0], index + 1, events, result)
    else:
        result.pass_over(LOG_TEXT)
    return index + 1


def _take(value: Any, line: int, events: EventReader, result: ReadResult) -> None:
    if isinstance(value, dict) and isinstance(value.get("type"), str):
        events.feed(value, line)
    else:
        result.pass_over(NOT_EVENT)


def _collect(lines: list[str], index: int, body: str) -> tuple[Any, int, str | None]:
    """The JSON value starting at ``lines[index]`` (whose text is ``body``), the index of its
    last line, and None, or a reject reason instead of the value.

    Pretty-printed values (``{`` alone) continue on unprefixed lines; compact ones continue on
    prefixed lines that are pieces of the same line (not the start of another event).
    """
    pretty = body.strip() in ("{", "[")
    buffer = body
    last = index
    tried = False
    while True:
        if not tried:
            state, value = _decode(buffer)
            if state == "ok":
                return value, last, None
            if state != "incomplete":
                return None, last, f"malformed JSON in log: {state}"
        following = last + 1
        if following >= len(lines):
            return None, last, TRUNCATED
        match = PREFIX.match(lines[following])
        if pretty:
            if match is not None:
                return None, last, TRUNCATED
            buffer += "\n" + lines[following]
            # Decode only where the value can close: a bracket at the start of a line, or the
            # last line before the log resumes or the file ends.
            tried = not (
                lines[following][:1] in ("}", "]")
                or following + 1 >= len(lines)
                or PREFIX.match(lines[following + 1]) is not None
            )
        else:
            if match is None or _starts_event(match["text"]):
                return None, last, TRUNCATED
            buffer += match["text"]
            tried = False
        last = following


def _starts_event(text: str) -> bool:
    """The text of a log line opens a new event (so it is not a piece of the one before)."""
    return text.strip() in ("{", "[") or _COMPACT_EVENT.match(text) is not None


def _cut_short(rest: str) -> bool:
    """What is left where decoding stopped is the start of a value cut by the line's end:
    nothing, or a piece of a literal or a number (``nu``, ``-``, ``1.``)."""
    return (
        not rest
        or any(word.startswith(rest) for word in ("null", "true", "false"))
        or (_NUMBER_START.fullmatch(rest) is not None)
    )


def _decode(buffer: str) -> tuple[str, Any]:
    """``("ok", value)``, ``("incomplete", None)`` when the text stops before the value closes,
    or ``(message, None)`` when it cannot be JSON."""
    start = len(buffer) - len(buffer.lstrip())
    try:
        value, _ = _DECODER.raw_decode(buffer, start)
    except json.JSONDecodeError as exc:
        rest = buffer[exc.pos :].rstrip()
        if exc.msg.startswith("Unterminated string") or _cut_short(rest):
            return "incomplete", None
        return exc.msg, None
    return "ok", value
