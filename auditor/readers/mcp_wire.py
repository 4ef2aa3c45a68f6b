"""MCP wire logs: the JSON-RPC messages between an MCP client and a server, as clients log them.

Four shapes are read, each message paired with its answer by JSON-RPC id:

- one JSON-RPC message per line (requests ``{jsonrpc, id, method, params}``, responses
  ``{jsonrpc, id, result}`` / ``{jsonrpc, id, error}``, notifications), or a JSON-RPC batch (an
  array of messages, protocol 2025-03-26) on a line; a line may also wrap the message as
  ``{"message": {...}, "origin"?, "sessionId"?, "server"?}``;
- the MCP Inspector v2 protocol export: a pretty-printed JSON array of
  ``{id, timestamp, direction, origin?, message, response?, duration?, clientError?}``, where the
  Inspector has already attached each request's ``response``;
- Claude Desktop ``mcp-server-<name>.log`` / ``mcp.log`` lines:
  ``<ts> [server] [level] Message from client: {...}`` (or ``[level] [server]``), sometimes with a
  trailing `` { metadata: undefined }``, raw server stderr between them, and the payload-free
  summaries of newer builds (``Message from client: method="tools/call" id=1 params``).

Each ``tools/call`` request is one tool call. Its response gives the result: ``result`` ->
``content`` / ``structuredContent`` / ``isError``; ``error`` -> ``returned=False`` with the
JSON-RPC error; a ``clientError`` (the Inspector rejected a response, e.g. failing the output
schema) -> ``returned=False``. A ``notifications/cancelled`` for the request, or no response at
all, leaves the call without a result (the audit makes it ``transport_error``). Ids are kept per
requester (client or server) and per session, and a string id never matches a number id.

There is no assistant text in these logs, so every claim is ``none``: the outcomes feed failure
rates per tool and server. One conversation per file, or one per server name or
``Mcp-Session-Id`` when a file mixes several. Every other message or line (other methods,
notifications, log text, stderr, redacted summaries) is passed over and counted by reason.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from auditor.model import Conversation, Message, Reject, ToolCall, ToolResult
from auditor.readers.json_stream import document_values, first_element, skip_blank
from auditor.readers.lines import first_line_is_json
from auditor.readers.result import ReadResult, excerpt
from auditor.readers.sampling import Sample
from auditor.readers.stamps import moment, record_moment
from auditor.readers.streams import plain_name, read_text

NAME = "mcp_wire"
DESCRIPTION = (
    "MCP JSON-RPC wire logs: a message or batch per line, Claude Desktop mcp-server-*.log, "
    "MCP Inspector protocol export"
)
READS_SPANS = False
looks_like = None  # recognised from the whole sample, by sniff

# Reasons for what is read and deliberately not audited (counted in the summary).
OTHER_REQUEST = "MCP request other than tools/call"
OTHER_RESPONSE = "MCP response to a request other than tools/call"
NOTIFICATION = "MCP notification"
UNMATCHED_RESPONSE = "MCP response to no logged request"
NO_ID_RESPONSE = "MCP response without a usable id"
AFTER_CANCEL = "MCP response after its request was cancelled"
NOT_JSONRPC = "JSON that is not a JSON-RPC message"
REDACTED = "MCP log summary line without payload (redacted)"
LOG_TEXT = "MCP client log text"
STDERR = "server stderr or other text without a log prefix"

LEVELS = frozenset(
    {"trace", "debug", "info", "notice", "warn", "warning", "error", "fatal", "critical", "log"}
)
# Requests a server sends to its client; every other method is sent by the client.
SERVER_METHODS = frozenset({"sampling/createMessage", "elicitation/create", "roots/list"})
SESSION_KEYS = ("Mcp-Session-Id", "mcp-session-id", "mcpSessionId", "sessionId", "session_id")
SERVER_KEYS = ("server", "serverName", "server_name", "serverId")

_PREFIX = re.compile(
    r"^(?P<ts>\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)"
    r"\s+\[(?P<a>[^\]\s][^\]]*)\](?:\s+\[(?P<b>[^\]\s][^\]]*)\])?\s*(?P<rest>.*)$",
    re.S,
)
_MESSAGE = re.compile(r"^Message from (?P<who>client|server):\s*(?P<payload>.*)$", re.S)
_SERVER_LOG_NAME = re.compile(r"^mcp-server-(?P<server>.+)\.log$", re.I)
_CLIENT_LOG_NAME = re.compile(r"^mcp(?:-server-.+)?\d*\.log$", re.I)
_INSPECTOR_NAME = re.compile(r"^inspector-protocol-(?P<server>.+?)-\d{4}-\d{2}-\d{2}T.*\.json$")
_DECODER = json.JSONDecoder()


# ----------------------------------------------------------------------------- detection
def is_jsonrpc(record: Any) -> bool:
    return (
        isinstance(record, dict)
        and record.get("jsonrpc") == "2.0"
        and ("method" in record or "result" in record or "error" in record)
    )


def _is_entry(record: Any) -> bool:
    """An Inspector ``MessageEntry`` or a log line that wraps one JSON-RPC message."""
    if not isinstance(record, dict) or "jsonrpc" in record:
        return False
    message = record.get("message")
    if isinstance(message, list):
        return bool(message) and all(is_jsonrpc(m) for m in message)
    return is_jsonrpc(message)


def _is_wire_record(record: Any) -> bool:
    if isinstance(record, list):
        return bool(record) and all(is_jsonrpc(m) or _is_entry(m) for m in record)
    return is_jsonrpc(record) or _is_entry(record)


def _log_line(text: str) -> tuple[str | None, str | None, str] | None:
    """(server, level, rest) of a Claude Desktop log line, None for text without the prefix."""
    match = _PREFIX.match(text)
    if match is None:
        return None
    first, second = match.group("a").strip(), match.group("b")
    if second is None:
        if first.lower() in LEVELS:
            return None, first, match.group("rest")
        return first, None, match.group("rest")
    second = second.strip()
    if first.lower() in LEVELS and second.lower() not in LEVELS:
        return second, first, match.group("rest")
    return first, second, match.group("rest")


def sniff(sample: Sample) -> int:
    score = 0
    prefixed = 0
    for raw, record in zip(sample.lines, sample.records, strict=False):
        if record is not None:
            score += 3 if _is_wire_record(record) else 0
            continue
        parsed = _log_line(raw.decode("utf-8", "replace").strip())
        if parsed is not None:
            prefixed += 1
            if _MESSAGE.match(parsed[2].strip()):
                score += 3
    if score == 0 and prefixed and _CLIENT_LOG_NAME.match(sample.name):
        score = 2  # a Claude Desktop log with lifecycle lines only
    if sample.records and sample.records[0] is None and sample.looks_like_json_document():
        first = first_element(sample.text)
        if _is_wire_record(first) or _is_wire_record([first]):
            score = max(score, 8)
        elif '"jsonrpc"' in sample.text and re.search(
            r'"direction"\s*:\s*"(?:request|response|notification)"', sample.text
        ):
            score = max(score, 4)
    return score


# ----------------------------------------------------------------------------- reading state
@dataclass
class Pending:
    """A request that is waiting for its response."""

    method: str
    call: int | None = None  # index of the tool call it answers, in its session
    cancelled: bool = False


@dataclass
class Session:
    """The traffic of one server or session inside a file."""

    key: str | None
    line: int
    server: str | None = None  # from the log prefix, the file name or initialize's serverInfo
    calls: list[ToolCall] = field(default_factory=list)
    results: dict[int, ToolResult] = field(default_factory=dict)
    open: dict[tuple[Any, ...], Pending] = field(default_factory=dict)
    tasks: dict[str, int] = field(default_factory=dict)  # taskId -> call index
    cancelled: dict[str, dict[str, Any]] = field(default_factory=dict)
    times: dict[tuple[str, int], datetime | None] = field(default_factory=dict)  # (call|result, i)


@dataclass
class Frame:
    """One JSON-RPC message as found in the file, with what the log says around it."""

    message: Any
    line: int
    pointer: str  # JSON pointer of the message inside the line's record
    session: str | None = None
    origin: str | None = None  # "client" or "server": who sent it
    server: str | None = None
    response: Any = None  # the Inspector's attached response
    response_pointer: str = "/response"
    client_error: str | None = None
    time: datetime | None = None  # the log line's or the Inspector entry's timestamp


def _id_key(value: Any) -> tuple[str, Any] | None:
    """The id as a pairing key: a string and a number never match."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, (int, float)):
        return ("n", value)
    return None


def _id_text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _other_side(origin: str | None) -> str | None:
    return {"client": "server", "server": "client"}.get(origin or "")


def _looks_like_call_result(message: dict) -> bool:
    result = message.get("result")
    if "error" in message:
        return True
    return isinstance(result, dict) and (
        isinstance(result.get("content"), list)
        or "structuredContent" in result
        or "isError" in result
        or isinstance(result.get("task"), dict)
    )


class WireReader:
    """Turns frames into sessions of tool calls and results."""

    def __init__(self, path: Path, source: str, result: ReadResult):
        self.path = path
        self.source = source
        self.result = result
        self.sessions: dict[str | None, Session] = {}
        self.name = plain_name(path)
        match = _SERVER_LOG_NAME.match(self.name) or _INSPECTOR_NAME.match(self.name)
        self.file_server = match.group("server") if match else None

    # ------------------------------------------------------------------ frames
    def frame(self, frame: Frame) -> None:
        message = frame.message
        if isinstance(message, list):  # a JSON-RPC batch
            for index, item in enumerate(message):
                self.frame(
                    Frame(
                        item,
                        frame.line,
                        f"{frame.pointer}/{index}",
                        frame.session,
                        frame.origin,
                        frame.server,
                        time=frame.time,
                    )
                )
            return
        if not isinstance(message, dict):
            self.result.pass_over(NOT_JSONRPC)
            return
        method = message.get("method")
        has_id = message.get("id") is not None
        if isinstance(method, str) and has_id:
            self.request(frame, method)
        elif isinstance(method, str):
            self.notification(frame, method)
        elif "result" in message or "error" in message:
            self.response(message, frame, frame.pointer, frame.origin, frame.client_error)
        else:
            self.result.pass_over(NOT_JSONRPC)

    def entry(self, record: Any, line: int, pointer: str = "", **context: Any) -> None:
        """One record of a JSON-lines file or an Inspector export."""
        if isinstance(record, list) and not is_jsonrpc(record):
            if record and all(_is_entry(item) for item in record):
                for index, item in enumerate(record):
                    self.entry(item, line, f"{pointer}/{index}", **context)
                return
            self.frame(Frame(record, line, pointer, **context))
            return
        if not _is_entry(record):
            self.frame(Frame(record, line, pointer, **context))
            return
        origin = next(
            (
                record[key]
                for key in ("origin", "from", "sender")
                if record.get(key) in ("client", "server")
            ),
            None,
        )
        if origin is None and record.get("direction") == "response":
            origin = "server"  # the Inspector tracks the responses it receives
        session = _first_text(record, SESSION_KEYS)
        headers = record.get("headers")
        if session is None and isinstance(headers, dict):
            session = _first_text(headers, SESSION_KEYS)
        client_error = record.get("clientError")
        self.frame(
            Frame(
                record["message"],
                line,
                f"{pointer}/message",
                session=session or context.get("session"),
                origin=origin,
                server=_first_text(record, SERVER_KEYS) or context.get("server"),
                response=record.get("response"),
                response_pointer=f"{pointer}/response",
                client_error=client_error if isinstance(client_error, str) else None,
                time=record_moment(record),
            )
        )

    # ------------------------------------------------------------------ sessions
    def session(self, frame: Frame) -> Session:
        key = frame.session or frame.server
        found = self.sessions.get(key)
        if found is None:
            found = Session(key=key, line=frame.line, server=frame.server or self.file_server)
            self.sessions[key] = found
        return found

    def request(self, frame: Frame, method: str) -> None:
        message = frame.message
        session = self.session(frame)
        requester = frame.origin or ("server" if method in SERVER_METHODS else "client")
        if method == "ping" and frame.origin is None:
            requester = None
        key = _id_key(message.get("id"))
        if key is None:
            self.reject(frame, "JSON-RPC request with an id that is neither string nor number")
            return
        if method == "initialize" and requester == "client":
            session.open.clear()  # a new session: ids start again
        pending = Pending(method)
        params = message.get("params")
        rejected = False
        if method == "tools/call":
            name = params.get("name") if isinstance(params, dict) else None
            if not isinstance(name, str) or not name:
                self.reject(frame, "tools/call request without params.name")
                rejected = True
            else:
                session.calls.append(
                    ToolCall(
                        id=_id_text(message["id"]),
                        name=name,
                        arguments=params.get("arguments"),
                        server=frame.server or session.server,
                        line=frame.line,
                    )
                )
                pending.call = len(session.calls) - 1
                session.times["call", pending.call] = frame.time
        elif method == "tasks/result" and isinstance(params, dict):
            task = session.tasks.get(str(params.get("taskId")))
            if task is not None:
                pending.call = task
        if pending.call is None and not rejected:
            self.result.pass_over(OTHER_REQUEST)
        session.open[(requester, *key)] = pending
        if frame.response is not None:
            self.response(
                frame.response,
                frame,
                frame.response_pointer,
                _other_side(requester),
                frame.client_error,
            )

    def notification(self, frame: Frame, method: str) -> None:
        session = self.session(frame)
        params = frame.message.get("params")
        if method == "notifications/cancelled" and isinstance(params, dict):
            key = _id_key(params.get("requestId"))
            found = self.find(session, key, frame.origin, prefer_call=True) if key else None
            if found is not None and session.open[found].call is not None:
                pending = session.open[found]
                pending.cancelled = True
                call = session.calls[pending.call]
                reason = params.get("reason")
                session.cancelled[call.id] = {
                    "line": frame.line,
                    "reason": reason if isinstance(reason, str) else None,
                }
                return
        self.result.pass_over(NOTIFICATION)

    def find(
        self, session: Session, key: tuple[str, Any], requester: str | None, prefer_call: bool
    ) -> tuple[Any, ...] | None:
        """The open request a response (or a cancellation) with this id belongs to."""
        sides = [requester, None] if requester else ["client", "server", None]
        found = [(side, *key) for side in sides if (side, *key) in session.open]
        if not found:
            return None
        preferred = [k for k in found if (session.open[k].call is not None) == prefer_call]
        return (preferred or found)[0]

    def response(
        self,
        message: Any,
        frame: Frame,
        pointer: str,
        origin: str | None,
        client_error: str | None,
    ) -> None:
        if not isinstance(message, dict):
            self.result.pass_over(NOT_JSONRPC)
            return
        session = self.session(frame)
        key = _id_key(message.get("id"))
        if key is None:
            self.result.pass_over(NO_ID_RESPONSE)
            return
        found = self.find(session, key, _other_side(origin), _looks_like_call_result(message))
        if found is None:
            self.result.pass_over(UNMATCHED_RESPONSE)
            return
        pending = session.open.pop(found)
        if pending.cancelled:
            self.result.pass_over(AFTER_CANCEL)
            return
        result = message.get("result")
        if pending.call is None:
            if pending.method == "initialize" and isinstance(result, dict):
                info = result.get("serverInfo")
                if isinstance(info, dict) and isinstance(info.get("name"), str):
                    session.server = session.server or info["name"]
            self.result.pass_over(OTHER_RESPONSE)
            return
        task = result.get("task") if isinstance(result, dict) else None
        if isinstance(task, dict) and "content" not in result and "error" not in message:
            # A task-augmented call: the tool's result comes later from tasks/result.
            session.tasks[str(task.get("taskId"))] = pending.call
            return
        call = session.calls[pending.call]
        session.times["result", pending.call] = frame.time
        session.results[pending.call] = tool_result(
            call.id, message, frame.line, pointer, client_error
        )

    def reject(self, frame: Frame, reason: str) -> None:
        self.result.rejects.append(
            Reject(
                source=self.source,
                line=frame.line,
                reason=reason,
                excerpt=excerpt(frame.message),
            )
        )

    # ------------------------------------------------------------------ output
    def conversations(self) -> list[Conversation]:
        sessions = sorted(self.sessions.values(), key=lambda s: s.line)
        out = []
        for session in sessions:
            if len(sessions) == 1 or session.key is None:
                conversation_id = self.name
            else:
                conversation_id = f"{self.name}#{session.key}"
            conversation = Conversation(
                id=conversation_id,
                source=self.source,
                format=NAME,
                line=session.line,
                metadata={"server": session.server, "cancelled": session.cancelled},
            )
            for index, call in enumerate(session.calls):
                if call.server is None and session.server:
                    call.server = session.server
                conversation.messages.append(
                    Message(
                        role="assistant",
                        line=call.line,
                        parts=[call],
                        timestamp=session.times.get(("call", index)),
                    )
                )
                found = session.results.get(index)
                if found is not None:
                    conversation.messages.append(
                        Message(
                            role="tool",
                            line=found.line,
                            parts=[found],
                            timestamp=session.times.get(("result", index)),
                        )
                    )
            out.append(conversation)
        return out


def _first_text(record: dict, keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = record.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
            return str(value)
    return None


def tool_result(
    call_id: str, message: dict, line: int, pointer: str, client_error: str | None = None
) -> ToolResult:
    """A JSON-RPC response to ``tools/call`` as a tool result, both failure axes kept apart."""
    error = message.get("error")
    result = message.get("result")
    if error is not None or client_error:
        if client_error:
            rpc_error: dict[str, Any] = {"message": f"client rejected the response: {client_error}"}
        elif isinstance(error, dict):
            rpc_error = dict(error)
        else:
            rpc_error = {"message": str(error)}
        return ToolResult(
            call_id=call_id,
            line=line,
            pointer=pointer,
            returned=False,
            rpc_error=rpc_error,
            content=result.get("content") if isinstance(result, dict) else None,
        )
    if not isinstance(result, dict):
        return ToolResult(
            call_id=call_id, line=line, pointer=pointer, content=result, content_key="result"
        )
    flag = result.get("isError", False)
    return ToolResult(
        call_id=call_id,
        line=line,
        pointer=pointer,
        is_error=flag if isinstance(flag, bool) else None,
        content=result.get("content"),
        structured=result.get("structuredContent"),
        has_structured="structuredContent" in result,
        content_key="result/content",
        structured_key="result/structuredContent",
        flag_key="result/isError",
    )


# ----------------------------------------------------------------------------- reading
def read(path: Path, source: str) -> ReadResult:
    result = ReadResult()
    text = read_text(path, source, result.rejects)
    if text is None:
        return result
    reader = WireReader(path, source, result)
    stripped = text.lstrip()
    log_file = Path(reader.name).suffix.lower() in (".log", ".txt")
    if stripped[:1] in ("[", "{") and not log_file and not first_line_is_json(text):
        for line, record in document_values(text, source, result.rejects):
            reader.entry(record, line)
    else:
        _read_lines(text, source, reader)
    result.conversations = reader.conversations()
    return result


def _read_lines(text: str, source: str, reader: WireReader) -> None:
    result = reader.result
    log_file = Path(reader.name).suffix.lower() in (".log", ".txt")
    lines = text.split("\n")
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            continue
        parsed = _log_line(line)
        if parsed is not None:
            log_file = True
            prefix = _PREFIX.match(line)
            _log_message(
                parsed, number, source, reader, moment(prefix.group("ts") if prefix else None)
            )
            continue
        if line[0] in "{[" or not log_file:
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                if log_file or line[0] not in "{[":
                    result.pass_over(STDERR)  # a server's own output, not a message
                    continue
                last = number == len(lines) and not text.endswith("\n")
                result.rejects.append(
                    Reject(
                        source=source,
                        line=number,
                        reason="truncated JSON" if last else f"malformed JSON: {exc}",
                        excerpt=excerpt(line),
                    )
                )
                continue
            reader.entry(record, number)
            continue
        result.pass_over(STDERR)


def _log_message(
    parsed: tuple[str | None, str | None, str],
    number: int,
    source: str,
    reader: WireReader,
    time: datetime | None = None,
) -> None:
    server, _level, rest = parsed
    match = _MESSAGE.match(rest.strip())
    if match is None:
        reader.result.pass_over(LOG_TEXT)
        return
    payload = match.group("payload")
    start = skip_blank(payload, 0)
    if not payload.startswith(("{", "["), start):
        reader.result.pass_over(REDACTED)
        return
    try:
        message, _ = _DECODER.raw_decode(payload, start)
    except ValueError as exc:
        reader.result.rejects.append(
            Reject(
                source=source,
                line=number,
                reason=f"malformed JSON in log line: {getattr(exc, 'msg', exc)}",
                excerpt=excerpt(payload),
            )
        )
        return
    reader.frame(
        Frame(
            message,
            number,
            "",
            origin=match.group("who"),
            server=server or reader.file_server,
            time=time,
        )
    )
