"""Gemini CLI: saved chats (``session-*.json``) and ``gemini -p … -o stream-json`` output.

**Saved chats** (``~/.gemini/tmp/<project hash>/chats/session-*.json``): one JSON object
``{"sessionId", "projectHash", "startTime", "lastUpdated", "messages": [...]}``, one
conversation per file. ``messages[].type`` is ``user`` (the person's prompt), ``gemini`` (the
model's turn) or ``info`` / ``error`` / ``warning`` (the CLI's own notices, passed over and
counted). A ``gemini`` message holds its text in ``content``, its reasoning in ``thoughts``
(not the reply, not read) and its tool calls in ``toolCalls[]``. Each entry holds the call
*and* its result: ``{"id", "name", "args", "result": [{"functionResponse": {"id", "name",
"response": {"output" | "error": …}}}], "status", "resultDisplay", …}``. The reader splits it
into the call (in the assistant message) and its result (in a tool message after it):

- ``status: "error"`` is the format's failure flag (``ToolResult.is_error``), and so is
  ``"cancelled"`` (the call did not run); ``"success"`` is ``is_error=False``. A call still
  ``validating``, ``scheduled``, ``awaiting_approval`` or ``executing`` when the file was
  written has no result yet.
- the result's text is ``response.output`` (``response.error`` for a failure); the pointer
  is ``/messages/<i>/toolCalls/<k>`` and the content key names the path below it.

Newer CLI versions keep the same chat as JSON lines (``session-*.jsonl``): a metadata line
``{"sessionId", "projectHash", "startTime", …}``, then each message record appended whenever it
changes (the same ``id`` again, e.g. once its tool calls finish: the last copy counts, in the
place of the first), ``{"$rewindTo": <id>}`` (that message and all later ones were undone) and
``{"$set": {…}}`` metadata updates, whose ``messages`` list, when present, replaces the
messages recorded so far. Superseded copies, rewound messages and metadata records are passed
over and counted; ``line`` is the line of the copy that counts, and result pointers are
relative to it (``/toolCalls/<k>``).

``logs.json`` beside the chats is the CLI's log of the person's prompts (a JSON array of
``{"sessionId", "messageId", "type": "user", "message", "timestamp"}``): the same prompts are in
the saved chats, with the calls, so its entries are passed over and counted, not read as
conversations of their own.

**stream-json output**: one event per line, ``{"type": "init" | "message" | "tool_use" |
"tool_result" | "error" | "result", "timestamp", …}``, often saved with the console lines
around it (the shell prompt, ``YOLO mode is enabled…``, ``Loaded cached credentials.``): those
are passed over and counted, and so are ``init``, ``error`` (the CLI's warnings) and ``result``
(a run's statistics) events. Each run (from ``init`` to ``result``) is one conversation; a file
can hold several runs, also of the same session resumed with ``-r``.

- ``message`` with ``role: "user"`` is the person's prompt; ``role: "assistant"`` chunks with
  ``delta: true`` are joined into one text until another event comes between them;
- ``tool_use`` ``{"tool_id", "tool_name", "parameters"}`` is a call and ``tool_result``
  ``{"tool_id", "status", "output", "error": {"type", "message"}}`` its result:
  ``status: "error"`` is the failure flag; the text is ``output``, else the error's message.

- conversation id: the chat's ``sessionId`` (the file name without it); a run's ``session_id``,
  with ``#2``, ``#3``, … for further runs of the same session in one file;
- ``line``: 1 for a saved chat (one JSON document); the line of each event in a stream.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from auditor.model import Conversation, Message, Reject, TextPart, ToolCall, ToolResult
from auditor.readers.conversations import as_text, decode_arguments, is_scalar
from auditor.readers.json_stream import load_document
from auditor.readers.lines import json_lines
from auditor.readers.protocol import LIKELY, SURE
from auditor.readers.result import ReadResult, excerpt
from auditor.readers.sampling import Sample
from auditor.readers.stamps import record_moment
from auditor.readers.streams import STREAM_ERRORS, broken_stream, open_bytes, plain_name

NAME = "gemini_cli"
DESCRIPTION = (
    "Gemini CLI saved chats (session-*.json: toolCalls with status) and -o stream-json output"
)
READS_SPANS = False
looks_like = None  # recognised from the whole sample, by sniff

# Statuses of a finished call, and whether each is a failure.
FINISHED = {"success": False, "error": True, "cancelled": True}
NOTICE = "gemini cli {} message (the CLI's notice, not the model's)"
PROMPT_LOG = "gemini cli prompt log entry (logs.json; the prompt is in the saved chat)"
CONSOLE = "console text around gemini stream-json events"
NO_CONTENT = "gemini stream-json event without conversation content: {}"
NOT_EVENT = "JSON line without a gemini stream-json event type"
SESSION_METADATA = "gemini cli session metadata record (first line, $set, $rewindTo)"
SUPERSEDED = "gemini cli message record rewritten by a later copy"
REWOUND = "gemini cli message record rewound ($rewindTo)"

_CHAT_KEYS = (
    re.compile(r'"sessionId"\s*:\s*"'),
    re.compile(r'"projectHash"\s*:\s*"'),
    re.compile(r'"messages"\s*:\s*\['),
)
_PROMPT_LOG_KEYS = ('"sessionId"', '"messageId"', '"message"')


# ----------------------------------------------------------------------------- detection
def sniff(sample: Sample) -> int:
    if sample.looks_like_json_document():
        first = sample.records[0] if sample.records else None
        if first is not None:
            if _is_chat(first) or (
                isinstance(first, list) and first and all(_is_prompt(e) for e in first[:20])
            ):
                return SURE
            if not (isinstance(first, dict) and first.get("type") == "init"):
                return 0
        else:
            text = sample.text.lstrip("\ufeff \t\r\n")
            if text.startswith("{") and all(key.search(text) for key in _CHAT_KEYS):
                return SURE
            if text.startswith("[") and all(key in text for key in _PROMPT_LOG_KEYS):
                return LIKELY
            return 0
    if sample.records and _is_session_header(sample.records[0]):
        return SURE
    sure = score = 0
    for record in sample.records:
        points = _event_score(record)
        score += points
        sure += points >= 10
    return min(score, SURE) if sure else 0


def _is_chat(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("messages"), list)
        and "sessionId" in value
        and ("projectHash" in value or "startTime" in value)
    )


def _is_prompt(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and "sessionId" in value
        and "messageId" in value
        and isinstance(value.get("message"), str)
    )


def _event_score(record: Any) -> int:
    """How strongly one line looks like a Gemini CLI stream-json event."""
    if not isinstance(record, dict):
        return 0
    kind = record.get("type")
    if kind == "init" and "session_id" in record and "model" in record:
        return 10
    if kind == "tool_use" and "tool_id" in record and "tool_name" in record:
        return 10
    if kind == "tool_result" and "tool_id" in record and "status" in record:
        return 10
    if kind == "message" and record.get("role") in ("user", "assistant") and "content" in record:
        return 2
    if kind == "result" and "stats" in record and "session_id" not in record:
        return 2
    return 0


# ----------------------------------------------------------------------------- reading
def read(path: Path, source: str) -> ReadResult:
    with open_bytes(path) as handle:
        start = handle.read(1 << 16).lstrip(b"\xef\xbb\xbf \t\r\n")
    if start.startswith((b"{", b"[")):
        first_line = start.split(b"\n", 1)[0]
        try:
            first = orjson.loads(first_line)
        except orjson.JSONDecodeError:
            first = None  # a pretty-printed document
        if _is_session_header(first):
            return _read_session_lines(path, source)
        if not (isinstance(first, dict) and "type" in first):
            return _read_document(path, source)
    return _read_stream(path, source)


# -- saved chats
def _read_document(path: Path, source: str) -> ReadResult:
    result = ReadResult()
    document = load_document(path, source, result.rejects)
    if document is None:
        return result
    if isinstance(document, list):
        for index, entry in enumerate(document):
            if _is_prompt(entry):
                result.pass_over(PROMPT_LOG)
            else:
                result.rejects.append(
                    Reject(
                        source=source,
                        line=1,
                        reason=f"not a gemini cli prompt log entry at /{index}",
                        excerpt=excerpt(entry),
                    )
                )
        return result
    if not isinstance(document, dict) or not isinstance(document.get("messages"), list):
        result.rejects.append(
            Reject(
                source=source,
                line=1,
                reason="not a gemini cli saved chat (no messages list)",
                excerpt=excerpt(document, 200),
            )
        )
        return result
    session = document.get("sessionId")
    conversation = Conversation(
        id=str(session) if is_scalar(session) and str(session) else Path(plain_name(path)).stem,
        source=source,
        format=NAME,
        line=1,
        timestamp=record_moment(document),
    )
    entries = ((1, m, f"/messages/{i}") for i, m in enumerate(document["messages"]))
    _chat_messages(entries, conversation, result)
    result.conversations.append(conversation)
    return result


def _chat_messages(
    entries: Iterable[tuple[int, Any, str]], conversation: Conversation, result: ReadResult
) -> None:
    """Fill a chat's conversation from its message records, each ``(line, record, pointer)``."""
    source = conversation.source
    for line, message, where in entries:

        def reject(reason: str, value: Any, line: int = line) -> None:
            result.rejects.append(
                Reject(source=source, line=line, reason=reason, excerpt=excerpt(value))
            )

        if not isinstance(message, dict):
            reject(f"message is not an object at {where or '/'}", message)
            continue
        kind = message.get("type")
        if kind == "user":
            conversation.messages.append(
                Message(
                    role="user",
                    line=line,
                    from_person=True,
                    parts=[TextPart(text=_text(message.get("content")), line=line)],
                    timestamp=record_moment(message),
                )
            )
        elif kind == "gemini":
            model = message.get("model")
            if isinstance(model, str) and model:
                conversation.metadata.setdefault("model", model)
            _gemini_turn(message, line, where, conversation, reject)
        elif kind in ("info", "error", "warning"):
            result.pass_over(NOTICE.format(kind))
        else:
            reject(f"message with unknown type {kind!r} at {where or '/'}", message)


def _gemini_turn(
    message: dict[str, Any], line: int, where: str, conversation: Conversation, reject: Any
) -> None:
    """A model turn: its text and calls, then a tool message with the results that came back."""
    moment = record_moment(message)
    parts: list[TextPart | ToolCall] = []
    text = _text(message.get("content"))
    if text.strip():
        parts.append(TextPart(text=text, line=line))
    results: list[ToolResult] = []
    calls = message.get("toolCalls")
    if calls is not None and not isinstance(calls, list):
        reject(f"toolCalls is not a list at {where}/toolCalls", calls)
        calls = None
    for position, entry in enumerate(calls or []):
        call_where = f"{where}/toolCalls/{position}"
        if not isinstance(entry, dict):
            reject(f"tool call is not an object at {call_where}", entry)
            continue
        call_id = entry.get("id")
        if not is_scalar(call_id) or str(call_id) == "":
            reject(f"tool call without an id at {call_where}", entry)
            continue
        parts.append(
            ToolCall(
                id=str(call_id),
                name=str(entry.get("name") or ""),
                arguments=decode_arguments(entry.get("args")),
                line=line,
            )
        )
        found = _call_result(entry, str(call_id), line, call_where)
        if found is not None:
            results.append(found)
    message_id = message.get("id")
    conversation.messages.append(
        Message(
            role="assistant",
            line=line,
            parts=parts,
            message_id=str(message_id) if is_scalar(message_id) else None,
            timestamp=moment,
        )
    )
    if results:
        conversation.messages.append(
            Message(role="tool", line=line, parts=results, timestamp=moment)
        )


def _call_result(entry: dict[str, Any], call_id: str, line: int, where: str) -> ToolResult | None:
    """The result a ``toolCalls[]`` entry holds, or None while the call has not finished."""
    status = entry.get("status")
    if not isinstance(status, str) or status not in FINISHED:
        return None
    content, key = _response(entry)
    return ToolResult(
        call_id=call_id,
        line=line,
        pointer=where,
        is_error=FINISHED[status],
        content=content,
        content_key=key,
        flag_key="status",
    )


def _response(entry: dict[str, Any]) -> tuple[Any, str]:
    """The text that came back, and its path below the entry: the ``functionResponse``'s
    ``output`` (or ``error``), else the result's text parts, else ``resultDisplay``."""
    parts = entry.get("result")
    if isinstance(parts, (dict, str)):
        parts = [parts]
    texts: list[str] = []
    for index, part in enumerate(parts if isinstance(parts, list) else []):
        if isinstance(part, str):
            texts.append(part)
            continue
        if not isinstance(part, dict):
            continue
        response = part.get("functionResponse")
        if isinstance(response, dict):
            base = f"result/{index}/functionResponse/response"
            answer = response.get("response")
            if isinstance(answer, dict):
                for key in ("output", "error"):
                    if key in answer:
                        return answer[key], f"{base}/{key}"
            return answer, base
        if isinstance(part.get("text"), str):
            texts.append(part["text"])
    if texts:
        return "\n".join(texts), "result"
    display = entry.get("resultDisplay")
    if isinstance(display, str):
        return display, "resultDisplay"
    return None, "result"


def _text(content: Any) -> str:
    """A message's text: a string, or its text parts (``[{"text": …}]``)."""
    if isinstance(content, dict):
        content = [content]
    return as_text(content)


def _is_session_header(value: Any) -> bool:
    """The first line of a session file the newer CLI writes as JSON lines."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("sessionId"), str)
        and "projectHash" in value
        and "messages" not in value
        and "type" not in value
    )


def _read_session_lines(path: Path, source: str) -> ReadResult:
    """A session the newer CLI keeps as JSON lines: a metadata line, then message records
    appended as they change (a rewritten message repeats its ``id``; the last copy counts, in
    the first one's place), ``{"$rewindTo": id}`` (that message and every later one are
    dropped) and ``{"$set": {...}}`` metadata updates, whose ``messages`` list, when there is
    one, replaces the messages recorded before it."""
    result = ReadResult()
    header: dict[str, Any] = {}
    records: dict[str, tuple[int, dict[str, Any], str]] = {}
    for number, record in json_lines(path, source, result.rejects):
        if not isinstance(record, dict):
            result.rejects.append(
                Reject(
                    source=source,
                    line=number,
                    reason="session record is not an object",
                    excerpt=excerpt(record),
                )
            )
        elif isinstance(record.get("$rewindTo"), str):
            result.pass_over(SESSION_METADATA)
            order = list(records)
            target = record["$rewindTo"]
            for key in order[order.index(target) :] if target in records else order:
                del records[key]
                result.pass_over(REWOUND)
        elif isinstance(record.get("id"), str) and "type" in record:
            if record["id"] in records:
                result.pass_over(SUPERSEDED)
            records[record["id"]] = (number, record, "")
        elif isinstance(record.get("$set"), dict):
            result.pass_over(SESSION_METADATA)
            replaced = record["$set"].get("messages")
            if isinstance(replaced, list) and replaced:
                result.pass_over(SUPERSEDED, len(records))
                records = {}
                for index, message in enumerate(replaced):
                    key = message.get("id") if isinstance(message, dict) else None
                    where = f"/$set/messages/{index}"
                    records[key if isinstance(key, str) else f"#{number}/{index}"] = (
                        number,
                        message,
                        where,
                    )
        elif _is_session_header(record):
            header = header or record
            result.pass_over(SESSION_METADATA)
        else:
            result.rejects.append(
                Reject(
                    source=source,
                    line=number,
                    reason="not a gemini cli session record",
                    excerpt=excerpt(record),
                )
            )
    session = header.get("sessionId")
    conversation = Conversation(
        id=str(session) if is_scalar(session) and str(session) else Path(plain_name(path)).stem,
        source=source,
        format=NAME,
        line=1,
        timestamp=record_moment(header),
    )
    _chat_messages(records.values(), conversation, result)
    result.conversations.append(conversation)
    return result


# -- stream-json output
def _read_stream(path: Path, source: str) -> ReadResult:
    result = ReadResult()
    stream = _Stream(source, result, Path(plain_name(path)).stem)
    number = console = 0
    with open_bytes(path) as handle:
        try:
            for number, raw in enumerate(handle, 1):
                line = raw.strip()
                if number == 1:
                    line = line.removeprefix(b"\xef\xbb\xbf")
                if not line:
                    continue
                if not line.startswith(b"{"):
                    console += 1
                    continue
                try:
                    event = orjson.loads(line)
                except orjson.JSONDecodeError as exc:
                    cut = not raw.endswith(b"\n")
                    result.rejects.append(
                        Reject(
                            source=source,
                            line=number,
                            reason="truncated JSON" if cut else f"malformed JSON: {exc}",
                            excerpt=excerpt(line),
                        )
                    )
                    continue
                stream.feed(event, number)
        except STREAM_ERRORS as exc:
            result.rejects.append(broken_stream(source, number + 1, exc))
    stream.end_text()
    if console:
        result.pass_over(CONSOLE, console)
    return result


class _Stream:
    """stream-json events, fed one at a time, into one conversation per run."""

    def __init__(self, source: str, result: ReadResult, default_id: str):
        self.source = source
        self.result = result
        self.default_id = default_id
        self.current: Conversation | None = None
        self.runs: dict[str, int] = {}  # session id -> runs seen in this file
        self.text: TextPart | None = None  # the assistant text that deltas extend
        self.chunks: list[str] = []  # its pieces, joined when another event comes

    def feed(self, event: Any, line: int) -> None:
        kind = event.get("type") if isinstance(event, dict) else None
        if not isinstance(kind, str) or not kind:
            self.result.pass_over(NOT_EVENT)
            return
        if kind == "message" and event.get("role") == "assistant":
            self._assistant_text(event, line)
            return
        self.end_text()
        if kind == "init":
            session = event.get("session_id")
            started = self._start(
                str(session) if is_scalar(session) and str(session) else None, line
            )
            started.timestamp = record_moment(event)
            if isinstance(event.get("model"), str) and event["model"]:
                started.metadata["model"] = event["model"]
            self.result.pass_over(NO_CONTENT.format(kind))
        elif kind == "message" and event.get("role") == "user":
            self._conversation(line).messages.append(
                Message(
                    role="user",
                    line=line,
                    from_person=True,
                    parts=[TextPart(text=_text(event.get("content")), line=line)],
                    timestamp=record_moment(event),
                )
            )
        elif kind == "tool_use":
            self._tool_use(event, line)
        elif kind == "tool_result":
            self._tool_result(event, line)
        else:
            if kind == "result":
                self.current = None  # the run ended; what follows is another run
            self.result.pass_over(NO_CONTENT.format(kind))

    def _start(self, session: str | None, line: int) -> Conversation:
        base = session or self.default_id
        runs = self.runs[base] = self.runs.get(base, 0) + 1
        self.current = Conversation(
            id=base if runs == 1 else f"{base}#{runs}",
            source=self.source,
            format=NAME,
            line=line,
        )
        self.result.conversations.append(self.current)
        return self.current

    def _conversation(self, line: int) -> Conversation:
        return self.current if self.current is not None else self._start(None, line)

    def _last_assistant(self, line: int, event: dict[str, Any]) -> Message:
        conversation = self._conversation(line)
        if conversation.messages and conversation.messages[-1].role == "assistant":
            return conversation.messages[-1]
        message = Message(role="assistant", line=line, timestamp=record_moment(event))
        conversation.messages.append(message)
        return message

    def _assistant_text(self, event: dict[str, Any], line: int) -> None:
        chunk = _text(event.get("content"))
        if self.text is not None and event.get("delta") is True:
            self.chunks.append(chunk)
            return
        self.end_text()
        conversation = self._conversation(line)
        last = conversation.messages[-1] if conversation.messages else None
        if (
            last is None
            or last.role != "assistant"
            or any(isinstance(p, ToolCall) for p in last.parts)
        ):
            last = Message(role="assistant", line=line, timestamp=record_moment(event))
            conversation.messages.append(last)
        text = TextPart(text=chunk, line=line)
        last.parts.append(text)
        if event.get("delta") is True:
            self.text, self.chunks = text, [chunk]
        # else a whole message: the next one is a text of its own

    def end_text(self) -> None:
        """Join the delta chunks of the text being streamed into it."""
        if self.text is not None:
            if len(self.chunks) > 1:
                self.text.text = "".join(self.chunks)
            self.text, self.chunks = None, []

    def _tool_use(self, event: dict[str, Any], line: int) -> None:
        call_id = event.get("tool_id")
        if not is_scalar(call_id) or str(call_id) == "":
            self._reject(line, "tool_use event without a tool_id", event)
            return
        message = self._last_assistant(line, event)
        message.parts.append(
            ToolCall(
                id=str(call_id),
                name=str(event.get("tool_name") or ""),
                arguments=decode_arguments(event.get("parameters")),
                line=line,
            )
        )

    def _tool_result(self, event: dict[str, Any], line: int) -> None:
        call_id = event.get("tool_id")
        if not is_scalar(call_id) or str(call_id) == "":
            self._reject(line, "tool_result event without a tool_id", event)
            return
        status = event.get("status")
        error = event.get("error")
        content: Any = event.get("output")
        key = "output"
        if (
            content in (None, "")
            and isinstance(error, dict)
            and isinstance(error.get("message"), str)
        ):
            content, key = error["message"], "error/message"
        failed = FINISHED.get(status) if isinstance(status, str) else None
        if failed is None and isinstance(error, dict):
            failed = True
        self._conversation(line).messages.append(
            Message(
                role="tool",
                line=line,
                parts=[
                    ToolResult(
                        call_id=str(call_id),
                        line=line,
                        is_error=failed,
                        content=content,
                        content_key=key,
                        flag_key="status",
                    )
                ],
            )
        )

    def _reject(self, line: int, reason: str, value: Any) -> None:
        self.result.rejects.append(
            Reject(source=self.source, line=line, reason=reason, excerpt=excerpt(value))
        )
