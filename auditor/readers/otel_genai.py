"""OpenTelemetry GenAI and MCP spans in OTLP/JSON: tool calls, their results, and the messages.

A line holds one span, or one export batch ``{"resourceSpans": [{"scopeSpans": [{"spans":
[...]}]}]}`` (the collector's file exporter writes one batch per line); a pretty-printed document
of either is read too. Attributes are OTLP lists ``[{key, value: {stringValue | intValue |
boolValue | doubleValue | arrayValue | kvlistValue}}]`` or plain objects; ids are hex (or base64),
timestamps nanoseconds (or ISO strings), ``status.code`` ``2`` / ``STATUS_CODE_ERROR`` is an error.

- ``execute_tool`` spans (``gen_ai.operation.name``) and MCP spans whose ``mcp.method.name`` is
  ``tools/call`` are tool calls: ``gen_ai.tool.name``, ``gen_ai.tool.call.id`` (else
  ``jsonrpc.request.id``, else the span id), ``gen_ai.tool.call.arguments`` and
  ``gen_ai.tool.call.result`` when recorded. ``error.type = "tool_error"`` is the tool's own
  failure flag; another ``error.type`` (a JSON-RPC code such as ``"-32602"``, an exception name)
  or an error status without a result means no result came back (``returned=False``, with the
  code and the status description). A tool span nested in another one of the same tool (an MCP
  client span under the agent's ``execute_tool`` span, a server span under its client span) is
  the same call: the outer span is kept, the inner one fills what it lacks.
- Inference spans carry ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (JSON strings of
  ``[{role, parts: [{type: "text", content} | {type: "tool_call", id, name, arguments} |
  {type: "tool_call_response", id, response}]}]``): the person's requests, the assistant's
  text, and calls and results that no tool span recorded.

Spans are grouped into conversations by ``gen_ai.conversation.id`` (on any span of a trace),
else by trace id, and ordered by time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from auditor.model import Conversation, Message, Reject, TextPart, ToolCall, ToolResult
from auditor.readers import stamps
from auditor.readers.conversations import decode_arguments
from auditor.readers.lines import json_records
from auditor.readers.result import ReadResult, excerpt
from auditor.readers.sampling import Sample
from auditor.readers.streams import plain_name, read_text

NAME = "otel_genai"
DESCRIPTION = "OpenTelemetry GenAI / MCP spans in OTLP JSON (execute_tool, tools/call, messages)"
READS_SPANS = False
looks_like = None  # recognised from the whole sample, by sniff

BATCH_KEYS = ("resourceSpans", "resource_spans")
SCOPE_KEYS = ("scopeSpans", "scope_spans", "instrumentationLibrarySpans")
VALUE_KINDS = {
    "stringValue": "s",
    "string_value": "s",
    "intValue": "i",
    "int_value": "i",
    "boolValue": "b",
    "bool_value": "b",
    "doubleValue": "d",
    "double_value": "d",
    "arrayValue": "a",
    "array_value": "a",
    "kvlistValue": "k",
    "kvlist_value": "k",
    "bytesValue": "s",
    "bytes_value": "s",
}
AGENT_OPERATIONS = frozenset({"invoke_agent", "create_agent", "invoke_workflow"})
DETAILS_EVENT = "gen_ai.client.inference.operation.details"
_JSONRPC_CODE = re.compile(r"^-?\d+$")
_GENAI = (b"gen_ai.", b"mcp.method.name")

PASSED_OVER = "OpenTelemetry span that is neither a tool call nor carries messages"


# ----------------------------------------------------------------------------- values
def any_value(value: Any) -> Any:
    """An OTLP ``AnyValue`` as a plain Python value."""
    if not isinstance(value, dict):
        return value
    for key, kind in VALUE_KINDS.items():
        if key not in value:
            continue
        raw = value[key]
        if kind == "i":
            try:
                return int(raw)
            except (TypeError, ValueError):
                return raw
        if kind == "a":
            values = raw.get("values") if isinstance(raw, dict) else None
            return [any_value(v) for v in values] if isinstance(values, list) else []
        if kind == "k":
            values = raw.get("values") if isinstance(raw, dict) else None
            return {
                str(kv.get("key")): any_value(kv.get("value"))
                for kv in (values if isinstance(values, list) else [])
                if isinstance(kv, dict)
            }
        return raw
    return value or None


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def read_attributes(raw: Any, pointer: str) -> dict[str, tuple[Any, str]]:
    """``key -> (value, JSON pointer of the stored value)`` for OTLP lists and plain objects."""
    found: dict[str, tuple[Any, str]] = {}
    if isinstance(raw, list):
        for index, item in enumerate(raw):
            if not isinstance(item, dict) or not isinstance(item.get("key"), str):
                continue
            value = item.get("value")
            kind = next((k for k in VALUE_KINDS if isinstance(value, dict) and k in value), None)
            where = f"{pointer}/{index}/value" + (f"/{kind}" if kind else "")
            found[item["key"]] = (any_value(value), where)
    elif isinstance(raw, dict):
        for key, value in raw.items():
            found[str(key)] = (value, f"{pointer}/{_escape(str(key))}")
    return found


def _nanos(value: Any) -> int | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return int(value)
    if isinstance(value, str):
        if value.isdigit():
            return int(value)
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return int(moment.timestamp() * 1_000_000_000)
    return None


def _status(span: dict) -> tuple[str, str | None, str]:
    """(``error`` / ``ok`` / ``unset``, description, pointer of the description)."""
    status = span.get("status")
    if not isinstance(status, dict):
        return "unset", None, ""
    code = status.get("code", status.get("status_code"))
    text = str(code).upper() if code is not None else ""
    state = "unset"
    if code == 2 or text in ("2", "ERROR", "STATUS_CODE_ERROR", "STATUSCODE.ERROR"):
        state = "error"
    elif code == 1 or text in ("1", "OK", "STATUS_CODE_OK", "STATUSCODE.OK"):
        state = "ok"
    for key in ("message", "description"):
        if isinstance(status.get(key), str) and status[key]:
            return state, status[key], f"status/{key}"
    return state, None, ""


# ----------------------------------------------------------------------------- spans
@dataclass
class Span:
    """One span, normalised, with where it sits in the file."""

    raw: dict
    line: int
    pointer: str  # JSON pointer of the span inside its line's record
    order: int
    trace: str
    span_id: str
    parent: str | None
    name: str
    start: int | None
    end: int | None
    attrs: dict[str, tuple[Any, str]]
    status: str
    status_message: str | None
    status_pointer: str
    inner: list[Span] = field(default_factory=list)  # nested spans of the same tool call

    def get(self, key: str) -> Any:
        found = self.attrs.get(key)
        return found[0] if found else None

    def where(self, key: str) -> str:
        """Pointer of an attribute's value from the line's record root, without the first '/'."""
        return f"{self.pointer}{self.attrs[key][1]}".lstrip("/")

    @property
    def operation(self) -> str | None:
        value = self.get("gen_ai.operation.name")
        return value if isinstance(value, str) else None

    @property
    def is_tool(self) -> bool:
        return self.operation == "execute_tool" or self.get("mcp.method.name") == "tools/call"

    @property
    def tool_name(self) -> str:
        name = self.get("gen_ai.tool.name")
        if isinstance(name, str) and name:
            return name
        for prefix in ("execute_tool ", "tools/call "):
            if self.name.startswith(prefix):
                return self.name[len(prefix) :].strip()
        return ""

    @property
    def call_id(self) -> str:
        for key in ("gen_ai.tool.call.id", "jsonrpc.request.id"):
            value = self.get(key)
            if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
                return str(value)
        return self.span_id

    def exception(self) -> tuple[str | None, str | None]:
        """(exception.type, exception.message) of the span's first ``exception`` event."""
        events = self.raw.get("events")
        for event in events if isinstance(events, list) else []:
            if isinstance(event, dict) and event.get("name") == "exception":
                attrs = read_attributes(event.get("attributes"), "")
                kind = attrs.get("exception.type", (None, ""))[0]
                message = attrs.get("exception.message", (None, ""))[0]
                return (
                    str(kind) if kind else None,
                    str(message) if message else None,
                )
        return None, None


def _id(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def make_span(raw: dict, line: int, pointer: str, order: int, fallback_trace: str) -> Span:
    context = raw.get("context") if isinstance(raw.get("context"), dict) else {}
    attrs = read_attributes(raw.get("attributes"), "/attributes")
    events = raw.get("events")
    for index, event in enumerate(events if isinstance(events, list) else []):
        if isinstance(event, dict) and event.get("name") == DETAILS_EVENT:
            for key, value in read_attributes(
                event.get("attributes"), f"/events/{index}/attributes"
            ).items():
                attrs.setdefault(key, value)
    status, message, status_pointer = _status(raw)
    span_id = _id(raw.get("spanId")) or _id(raw.get("span_id")) or _id(context.get("span_id"))
    return Span(
        raw=raw,
        line=line,
        pointer=pointer,
        order=order,
        trace=_id(raw.get("traceId"))
        or _id(raw.get("trace_id"))
        or _id(context.get("trace_id"))
        or fallback_trace,
        span_id=span_id or f"{fallback_trace}{pointer}",
        parent=_id(raw.get("parentSpanId"))
        or _id(raw.get("parent_span_id"))
        or _id(raw.get("parent_id")),
        name=raw.get("name") if isinstance(raw.get("name"), str) else "",
        start=_nanos(raw.get("startTimeUnixNano", raw.get("start_time_unix_nano")))
        or _nanos(raw.get("start_time")),
        end=_nanos(raw.get("endTimeUnixNano", raw.get("end_time_unix_nano")))
        or _nanos(raw.get("end_time")),
        attrs=attrs,
        status=status,
        status_message=message,
        status_pointer=status_pointer,
    )


def _is_span(record: Any) -> bool:
    return (
        isinstance(record, dict)
        and isinstance(record.get("name"), str)
        and (
            "traceId" in record
            or "trace_id" in record
            or "spanId" in record
            or "span_id" in record
            or isinstance(record.get("context"), dict)
        )
    )


def _batch_key(record: Any) -> str | None:
    if isinstance(record, dict):
        for key in BATCH_KEYS:
            if isinstance(record.get(key), list):
                return key
    return None


def spans_of(record: Any) -> list[tuple[dict, str]] | None:
    """(span, pointer) for each span of a record, None when the record holds no spans."""
    key = _batch_key(record)
    if key is not None:
        found = []
        for i, resource in enumerate(record[key]):
            if not isinstance(resource, dict):
                continue
            for scope_key in SCOPE_KEYS:
                scopes = resource.get(scope_key)
                for j, scope in enumerate(scopes if isinstance(scopes, list) else []):
                    spans = scope.get("spans") if isinstance(scope, dict) else None
                    for k, span in enumerate(spans if isinstance(spans, list) else []):
                        if isinstance(span, dict):
                            found.append((span, f"/{key}/{i}/{scope_key}/{j}/spans/{k}"))
        return found
    if _is_span(record):
        return [(record, "")]
    if isinstance(record, list) and record and all(_is_span(r) for r in record):
        return [(span, f"/{index}") for index, span in enumerate(record)]
    return None


# ----------------------------------------------------------------------------- detection
def sniff(sample: Sample) -> int:
    score = 0
    for raw, record in zip(sample.lines, sample.records, strict=False):
        if record is None:
            continue
        if _batch_key(record) or _is_span(record):
            score += 4 if any(marker in raw for marker in _GENAI) else 2
    if score == 0 and sample.records and sample.records[0] is None:
        head = sample.head
        if sample.looks_like_json_document() and (
            any(key.encode() in head for key in BATCH_KEYS)
            or ((b'"traceId"' in head or b'"trace_id"' in head) and b'"name"' in head)
        ):
            score = 5 if any(marker in head for marker in _GENAI) else 2
    return score


# ----------------------------------------------------------------------------- reading
def read(path: Path, source: str) -> ReadResult:
    result = ReadResult()
    name = plain_name(path)
    text = read_text(path, source, result.rejects)
    if text is None:
        return result
    records = json_records(text, source, result.rejects)
    spans: list[Span] = []
    for line, record in records:
        found = spans_of(record)
        if found is None:
            result.rejects.append(
                Reject(
                    source=source,
                    line=line,
                    reason="not an OpenTelemetry span or OTLP export",
                    excerpt=excerpt(record),
                )
            )
            continue
        for raw, pointer in found:
            spans.append(make_span(raw, line, pointer, len(spans), f"{name}:{line}"))
    result.conversations = build_conversations(spans, source, result)
    return result


def build_conversations(spans: list[Span], source: str, result: ReadResult) -> list[Conversation]:
    conversation_of_trace: dict[str, str] = {}
    for span in spans:
        value = span.get("gen_ai.conversation.id")
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
            conversation_of_trace.setdefault(span.trace, str(value))
    groups: dict[str, list[Span]] = {}
    for span in spans:
        key = conversation_of_trace.get(span.trace, span.trace)
        groups.setdefault(key, []).append(span)
    conversations = []
    for key, members in groups.items():
        conversation = Conversation(
            id=key, source=source, format=NAME, line=min(s.line for s in members)
        )
        Timeline(conversation, members, result).build()
        conversations.append(conversation)
    return sorted(conversations, key=lambda c: c.line)


def _merge_nested_tools(spans: list[Span]) -> list[Span]:
    """Tool spans that are not part of an outer span of the same tool call."""
    by_id = {(s.trace, s.span_id): s for s in spans}
    kept = []
    for span in spans:
        if not span.is_tool:
            continue
        outer = None
        parent = by_id.get((span.trace, span.parent or ""))
        seen = 0
        while parent is not None and seen < 100:
            if parent.is_tool and parent.tool_name in (span.tool_name, ""):
                outer = parent
            parent = by_id.get((parent.trace, parent.parent or ""))
            seen += 1
        if outer is None or not span.tool_name:
            kept.append(span)
        else:
            outer.inner.append(span)
    return kept


def _messages(span: Span, key: str) -> tuple[list, str]:
    """The chat messages of an attribute, decoded, and the pointer of the stored value."""
    if key not in span.attrs:
        return [], ""
    value = span.get(key)
    if isinstance(value, str):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return [], ""
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        value = value["messages"]
    return (value if isinstance(value, list) else []), span.where(key)


class Timeline:
    """Puts a conversation's spans in time order and turns them into messages."""

    def __init__(self, conversation: Conversation, spans: list[Span], result: ReadResult):
        self.conversation = conversation
        self.spans = spans
        self.result = result
        self.users: list[str] = []  # person texts emitted, in order
        self.assistant_texts: set[str] = set()
        self.called: set[str] = set()
        self.answered: set[str] = set()
        self.span_calls: set[str] = set()  # call ids a tool span will answer
        self.unclaimed: list[tuple[str, str]] = []  # (id, name) of message calls no span took
        self.call_of: dict[int, str] = {}  # tool span -> the call id it answers
        self.now: datetime | None = None  # time of the span event being turned into messages

    def build(self) -> None:
        tools = _merge_nested_tools(self.spans)
        kept = {id(tool) for tool in tools}
        nested = {id(inner) for tool in tools for inner in tool.inner}
        self.span_calls = {_call_id(tool) for tool in tools if _explicit_id(tool)}
        timed = all(s.start is not None for s in self.spans)
        events: list[tuple[int, int, int, str, Span]] = []
        for span in self.spans:
            start = span.start if timed and span.start is not None else span.order * 2
            end = span.end if timed and span.end is not None else start + 1
            if span.is_tool and id(span) in nested:
                continue
            if id(span) in kept:
                if end <= start:
                    events.append((start, 1, span.order, "tool", span))
                else:
                    events.append((start, 1, span.order, "call", span))
                    events.append((end, 2, span.order, "result", span))
            elif "gen_ai.input.messages" in span.attrs or "gen_ai.output.messages" in span.attrs:
                if end <= start:
                    events.append((start, 3, span.order, "inference", span))
                else:
                    events.append((start, 3, span.order, "input", span))
                    events.append((end, 0, span.order, "output", span))
            else:
                self.result.pass_over(PASSED_OVER)
        for moment, _, _, kind, span in sorted(events, key=lambda e: e[:3]):
            self.now = stamps.moment(moment) if timed else None
            if kind in ("input", "inference"):
                self.system(span)
                self.input(span)
            if kind in ("output", "inference"):
                self.output(span)
            if kind in ("call", "tool"):
                self.tool_call(span)
            if kind in ("result", "tool"):
                self.tool_result(span)

    # ------------------------------------------------------------------ messages
    def add(self, message: Message) -> None:
        message.timestamp = message.timestamp or self.now
        self.conversation.messages.append(message)

    def system(self, span: Span) -> None:
        value = span.get("gen_ai.system_instructions")
        if isinstance(value, str) and value.strip() and not self.conversation.messages:
            text = _instructions_text(value)
            self.add(
                Message(role="system", line=span.line, parts=[TextPart(text=text, line=span.line)])
            )

    def input(self, span: Span) -> None:
        messages, pointer = _messages(span, "gen_ai.input.messages")
        person = [i for i, m in enumerate(messages) if _role(m) == "user" and _text(m)]
        texts = [_text(messages[i]) for i in person]
        seen = len(self.users)
        if texts[:seen] == self.users:
            new = person[seen:]
        elif texts and (not self.users or texts[-1] != self.users[-1]):
            new = person[-1:]
        else:
            new = []
        for index, message in enumerate(messages):
            if not isinstance(message, dict):
                continue
            if index in new:
                text = _text(message)
                self.users.append(text)
                self.add(
                    Message(
                        role="user",
                        line=span.line,
                        from_person=True,
                        parts=[TextPart(text=text, line=span.line)],
                    )
                )
            if _role(message) == "assistant":
                self.assistant(span, message, index, pointer, history=True)
            self.responses(span, message, index, pointer)

    def output(self, span: Span) -> None:
        messages, pointer = _messages(span, "gen_ai.output.messages")
        history = span.operation in AGENT_OPERATIONS
        for index, message in enumerate(messages):
            if isinstance(message, dict) and _role(message) in ("assistant", None):
                self.assistant(span, message, index, pointer, history=history)

    def assistant(
        self, span: Span, message: dict, index: int, pointer: str, *, history: bool
    ) -> None:
        parts: list = []
        for position, part in enumerate(_parts(message)):
            kind = part.get("type")
            if kind == "text" and isinstance(part.get("content"), str):
                text = part["content"]
                if history and text in self.assistant_texts:
                    continue
                self.assistant_texts.add(text)
                parts.append(TextPart(text=text, line=span.line))
            elif kind == "tool_call":
                call_id = part.get("id")
                call_id = str(call_id) if call_id else f"{span.span_id}:{index}:{position}"
                if call_id in self.called:
                    continue
                self.called.add(call_id)
                name = part.get("name")
                self.unclaimed.append((call_id, name if isinstance(name, str) else ""))
                parts.append(
                    ToolCall(
                        id=call_id,
                        name=name if isinstance(name, str) else "",
                        arguments=decode_arguments(part.get("arguments")),
                        line=span.line,
                    )
                )
        if parts:
            self.add(
                Message(
                    role="assistant",
                    line=span.line,
                    parts=parts,
                    message_id=f"{span.span_id}:{index}",
                )
            )

    def responses(self, span: Span, message: dict, index: int, pointer: str) -> None:
        """Results carried by ``tool_call_response`` parts that no tool span answers."""
        for position, part in enumerate(_parts(message)):
            if part.get("type") != "tool_call_response" or not part.get("id"):
                continue
            call_id = str(part["id"])
            if call_id in self.answered or call_id in self.span_calls:
                continue
            self.answered.add(call_id)
            self.unclaimed = [c for c in self.unclaimed if c[0] != call_id]
            key = "response" if "response" in part else "result"
            result = ToolResult(
                call_id=call_id,
                line=span.line,
                content=part.get(key),
                content_key=f"{pointer}/{index}/parts/{position}/{key}",
            )
            self.add(Message(role="tool", line=span.line, parts=[result]))

    # ------------------------------------------------------------------ tool spans
    def tool_call(self, span: Span) -> None:
        call_id = _call_id(span)
        if not _explicit_id(span):
            # A span without the model's call id (an MCP client span keeps the JSON-RPC id)
            # answers the earliest call of its tool the model asked for and no span took.
            match = next((c for c in self.unclaimed if c[1] == span.tool_name), None)
            call_id = match[0] if match else call_id
        self.call_of[id(span)] = call_id
        self.unclaimed = [c for c in self.unclaimed if c[0] != call_id]
        if call_id in self.called:
            return
        self.called.add(call_id)
        arguments = _first(span, "gen_ai.tool.call.arguments")
        self.add(
            Message(
                role="assistant",
                line=span.line,
                parts=[
                    ToolCall(
                        id=call_id,
                        name=span.tool_name,
                        arguments=decode_arguments(arguments[0]) if arguments else None,
                        line=span.line,
                    )
                ],
            )
        )

    def tool_result(self, span: Span) -> None:
        call_id = self.call_of.get(id(span), _call_id(span))
        if call_id in self.answered:
            return
        self.answered.add(call_id)
        self.add(Message(role="tool", line=span.line, parts=[span_result(span, call_id)]))


def _call_id(span: Span) -> str:
    """The call id of a tool span: the model's id, recorded on it or a nested span of the
    same call, else the span's own JSON-RPC or span id."""
    found = _first(span, "gen_ai.tool.call.id")
    if found is not None and isinstance(found[0], (str, int)) and not isinstance(found[0], bool):
        return str(found[0])
    return span.call_id


def _explicit_id(span: Span) -> bool:
    """The span (or a nested span of the same call) records the model's tool call id."""
    return _first(span, "gen_ai.tool.call.id") is not None


def _first(span: Span, key: str) -> tuple[Any, Span] | None:
    """An attribute from the span, else from the nested spans of the same call."""
    for candidate in (span, *span.inner):
        if key in candidate.attrs and candidate.get(key) not in (None, ""):
            return candidate.get(key), candidate
    return None


def result_content(value: Any, key: str) -> dict[str, Any]:
    """``ToolResult`` content fields for a recorded tool result.

    MCP instrumentations record the ``CallToolResult`` (or its content blocks) as a JSON
    string: it is unpacked, the pointers stepping through the string into its JSON.
    """
    decoded = value
    if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        try:
            decoded = orjson.loads(value)
        except orjson.JSONDecodeError:
            decoded = value
    if (
        isinstance(decoded, list)
        and decoded
        and all(isinstance(b, dict) and isinstance(b.get("type"), str) for b in decoded)
    ):
        return {"content": decoded, "content_key": key}
    if isinstance(decoded, dict) and isinstance(decoded.get("content"), list):
        fields: dict[str, Any] = {"content": decoded["content"], "content_key": f"{key}/content"}
        if "structuredContent" in decoded:
            fields.update(
                structured=decoded["structuredContent"],
                has_structured=True,
                structured_key=f"{key}/structuredContent",
            )
        return fields
    return {"content": value, "content_key": key}


def span_result(span: Span, call_id: str) -> ToolResult:
    """What a tool span (and the nested spans of the same call) says came back."""
    candidates = (span, *span.inner)
    errors = [(c.get("error.type"), c) for c in candidates if c.get("error.type") not in (None, "")]
    chosen = next((e for e in errors if e[0] == "tool_error"), None)
    chosen = chosen or next((e for e in errors if _JSONRPC_CODE.match(str(e[0]))), None)
    chosen = chosen or (errors[0] if errors else None)
    status_error = next((c for c in candidates if c.status == "error"), None)
    found = _first(span, "gen_ai.tool.call.result")
    content_kwargs: dict[str, Any] = {}
    if found is not None:
        value, holder = found
        content_kwargs = result_content(value, holder.where("gen_ai.tool.call.result"))
    error_type, holder = chosen if chosen else (None, status_error)
    if error_type == "tool_error" or (error_type is None and status_error and found):
        assert holder is not None
        if not content_kwargs and holder.status_message:
            content_kwargs = {
                "content": holder.status_message,
                "content_key": f"{holder.pointer}/{holder.status_pointer}".lstrip("/"),
            }
        flag = (
            holder.where("error.type")
            if error_type
            else f"{holder.pointer}/status/code".lstrip("/")
        )
        return ToolResult(
            call_id=call_id, line=span.line, is_error=True, flag_key=flag, **content_kwargs
        )
    if error_type is not None or status_error is not None:
        assert holder is not None
        exception_type, exception_text = holder.exception()
        description = holder.status_message or exception_text
        error_type = error_type or exception_type
        code = None
        if error_type is not None and _JSONRPC_CODE.match(str(error_type)):
            code = int(str(error_type))
        else:
            status_code = holder.get("rpc.response.status_code")
            if status_code is not None and _JSONRPC_CODE.match(str(status_code)):
                code = int(str(status_code))
        if code is not None:
            message = description or str(error_type)
        elif error_type and description and str(error_type) not in description:
            message = f"{error_type}: {description}"
        else:
            message = description or str(error_type or "span status ERROR")
        rpc_error: dict[str, Any] = {"code": code, "message": message}
        if code is None:
            rpc_error.pop("code")
        if error_type is not None:
            rpc_error["type"] = str(error_type)
        return ToolResult(
            call_id=call_id, line=span.line, returned=False, rpc_error=rpc_error, **content_kwargs
        )
    return ToolResult(call_id=call_id, line=span.line, is_error=False, **content_kwargs)


def _instructions_text(value: str) -> str:
    try:
        decoded = orjson.loads(value)
    except orjson.JSONDecodeError:
        return value
    if isinstance(decoded, list):
        return "\n".join(
            p["content"]
            for p in decoded
            if isinstance(p, dict) and isinstance(p.get("content"), str)
        )
    return value


def _role(message: Any) -> str | None:
    role = message.get("role") if isinstance(message, dict) else None
    return role if isinstance(role, str) else None


def _parts(message: dict) -> list[dict]:
    parts = message.get("parts")
    if isinstance(parts, list):
        return [p for p in parts if isinstance(p, dict)]
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "content": content}]
    return []


def _text(message: Any) -> str:
    if not isinstance(message, dict):
        return ""
    return "\n".join(
        p["content"]
        for p in _parts(message)
        if p.get("type") == "text" and isinstance(p.get("content"), str)
    ).strip()
