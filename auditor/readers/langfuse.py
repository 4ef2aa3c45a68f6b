"""Langfuse trace exports: the ``{trace, observations[]}`` JSON a trace downloads as.

Langfuse traces runs of many frameworks (LangGraph, OpenAI Agents, CrewAI, pydantic-ai, Vercel
AI SDK, Google ADK, Claude Agent SDK, Microsoft Agent Framework, …), each writing its own
shapes into the same record. One file is one trace, read as one conversation (id: the trace's
``id``; ``userId``, ``sessionId`` and ``timestamp`` kept). Its observations ``{id, type, name,
startTime, input, output, level, statusMessage, metadata}`` are read in ``startTime`` order:

- ``GENERATION``: a model call. Its ``input`` is the history sent to the model and its
  ``output`` the model's answer. Messages are read in the shapes frameworks write: OpenAI chat
  (``tool_calls``, ``role: tool`` with ``tool_call_id``), Anthropic content blocks
  (``tool_use``, ``tool_result`` with ``is_error``), OpenTelemetry GenAI ``parts``
  (``tool_call``, ``tool_call_response``), Gemini ``contents`` / ``candidates``
  (``function_call``, ``function_response``), OpenAI Responses items (``function_call``,
  ``function_call_output``), chat-completion ``choices``, Vercel AI SDK tool-call lists,
  LangChain message dumps (``{type: human | ai | tool, tool_call_id, status}`` and the
  ``{lc, type: constructor, kwargs}`` form), and plain ``role: text`` transcripts. Histories
  repeat: a text, call or result already read from an earlier observation is not read again;
- ``TOOL``, and a span that is a tool run (OpenInference ``span.kind`` TOOL,
  ``gen_ai.operation.name`` execute_tool, a ``gen_ai.tool.call.id``, or an output that is a
  LangChain ``ToolMessage``): a tool call with its result. The call id comes from the
  metadata (``gen_ai.tool.call.id``, ``ai.toolCall.id``) or the ``ToolMessage``; a run
  without one answers the oldest call of that name still open (the same arguments first);
  a run matching no call the model made is a call of its own.

The same exchange often shows twice, as a ``TOOL`` observation and as a tool message in the
next generation's input: it is read once (first seen wins). A tool message without a call id
(Koog, LangChain.js, a ``role: text`` transcript) answers the oldest open call, or is such a
repeat when none is open.

Failure: ``level: ERROR`` on a tool observation (``is_error``, with ``statusMessage`` as its
text); a LangChain ``ToolMessage`` with ``status: error``; an Anthropic ``is_error``. Other
levels are no failure flag (``is_error`` false), and the outcome rules still read the text.
``input`` / ``output`` are JSON strings, plain text, objects, arrays or null: JSON strings are
decoded, other text is text.

Passed over and counted: spans, agents, chains and events that are no tool run (framework
steps), tool spans with neither input nor output (BeeAI's start and finish events), and
generations with neither. ``line`` is the line where the observation starts in the file.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from auditor.model import Conversation, Message, Reject, TextPart, ToolCall, ToolResult
from auditor.readers.json_stream import array_items, indented_document, parse_document
from auditor.readers.protocol import LIKELY, SURE
from auditor.readers.result import ReadResult, excerpt
from auditor.readers.sampling import Sample
from auditor.readers.stamps import moment
from auditor.readers.streams import plain_name, read_bytes

NAME = "langfuse"
DESCRIPTION = "Langfuse trace exports ({trace, observations}): TOOL observations, model messages"
READS_SPANS = False
looks_like = None  # recognised from the whole sample, by sniff

FRAMEWORK_STEP = "langfuse {} observation (a framework step: no model call, no tool run)"
EMPTY_TOOL = "langfuse tool observation without input or output (a start or finish event)"
EMPTY_GENERATION = "langfuse GENERATION without input or output"
NO_OBSERVATIONS = "langfuse trace without observations"

_TRACE_START = re.compile(r'^\s*\{\s*"trace"\s*:\s*\{')
_OBSERVATIONS = re.compile(r'"observations"\s*:\s*\[')
_OBSERVATION_TYPE = re.compile(r'"type"\s*:\s*"(?:GENERATION|SPAN|TOOL|AGENT|CHAIN|EVENT)"')
_ROLE_LINE = re.compile(r"^(system|developer|user|human|assistant|ai|model|tool|function): ?(.*)$")
_LIFECYCLE = re.compile(r"\.(?:start|finish|success|error)-\d+$")
_NAME_PREFIXES = ("execute_tool ", "running tool: ", "tool.")

ROLES = {
    "user": "user",
    "human": "user",
    "humanmessage": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "aimessage": "assistant",
    "aimessagechunk": "assistant",
    "model": "assistant",
    "system": "system",
    "developer": "system",
    "systemmessage": "system",
    "tool": "tool",
    "toolmessage": "tool",
    "function": "tool",
}
CALL_ID_KEYS = ("gen_ai.tool.call.id", "ai.toolCall.id", "tool_call.id", "tool.call.id")
TOOL_NAME_KEYS = ("gen_ai.tool.name", "tool.name", "ai.toolCall.name")
# Where OpenInference and Google ADK keep a tool's output when the observation's is empty.
OUTPUT_KEYS = ("gcp.vertex.agent.tool_response", "output.value")
TOOL_ARGS_KEYS = ("tool.parameters", "tool_arguments", "gcp.vertex.agent.tool_call_args")


# ----------------------------------------------------------------------------- detection
def sniff(sample: Sample) -> int:
    if not sample.looks_like_json_document():
        return 0
    first = sample.records[0] if sample.records else None
    if isinstance(first, dict):
        return SURE if _is_export(first) else 0
    head = sample.text.lstrip("\ufeff \t\r\n")
    if _TRACE_START.match(head) and _OBSERVATIONS.search(head):
        return SURE
    if head.startswith("{") and _OBSERVATIONS.search(head) and _OBSERVATION_TYPE.search(head):
        return LIKELY
    return 0


def _is_export(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("observations"), list)
        and isinstance(value.get("trace"), dict)
    )


# ----------------------------------------------------------------------------- messages
@dataclass
class _Call:
    id: str | None
    name: str
    arguments: Any


@dataclass
class _Result:
    call_id: str | None
    content: Any
    is_error: bool | None = None
    name: str | None = None


@dataclass
class _Msg:
    role: str
    texts: list[str] = field(default_factory=list)
    calls: list[_Call] = field(default_factory=list)
    results: list[_Result] = field(default_factory=list)


def _decode(value: Any) -> Any:
    """A JSON string as its value (once or twice encoded); other values as they are."""
    for _ in range(2):
        if not isinstance(value, str):
            return value
        stripped = value.strip()
        if not stripped or stripped[0] not in '[{"':
            return value
        try:
            value = orjson.loads(stripped)
        except orjson.JSONDecodeError:
            return value
    return value


def _id(value: Any) -> str | None:
    if isinstance(value, list) and value and all(isinstance(v, (str, int)) for v in value):
        return "/".join(str(v) for v in value)
    if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
        return str(value)
    return None


def messages_of(value: Any, default_role: str = "user") -> list[_Msg]:
    """The messages a generation's input or output holds, in any of the shapes read."""
    value = _decode(value)
    if value is None:
        return []
    if isinstance(value, str):
        return _transcript(value, default_role)
    if isinstance(value, list):
        found: list[_Msg] = []
        for item in value:
            item = _decode(item)
            if isinstance(item, dict):
                found.extend(_from_dict(item, default_role))
        return found
    if isinstance(value, dict):
        return _from_dict(value, default_role)
    return []


def _transcript(text: str, default_role: str) -> list[_Msg]:
    """Plain text: ``role: text`` lines (a flattened transcript), else one message."""
    lines = text.split("\n")
    if not _ROLE_LINE.match(lines[0]):
        empty = text.strip() in ("", "None", "null")
        return [] if empty else [_Msg(default_role, texts=[text])]
    found: list[_Msg] = []
    for line in lines:
        match = _ROLE_LINE.match(line)
        if match:
            found.append(_Msg(ROLES[match[1]], texts=[match[2]]))
        else:
            found[-1].texts[-1] += "\n" + line
    for message in found:
        if message.role == "tool":
            message.results.append(_Result(None, message.texts.pop()))
        elif message.texts and message.texts[0].strip() in ("", "None"):
            message.texts = []
    return found


def _from_dict(value: dict[str, Any], default_role: str) -> list[_Msg]:
    kind = value.get("type")
    if value.get("lc") == 1 and kind == "constructor" and isinstance(value.get("kwargs"), dict):
        names = value.get("id")
        name = names[-1] if isinstance(names, list) and names else ""
        inner = dict(value["kwargs"])
        inner.setdefault("type", str(name))
        return _from_dict(inner, default_role)
    for key in ("messages", "contents"):
        if key in value and not _is_message(value):
            inner = value[key]
            if isinstance(inner, str):
                return [_Msg("user", texts=[inner])] if inner.strip() else []
            return messages_of(inner, default_role)
    if isinstance(value.get("choices"), list):
        return messages_of(
            [c.get("message") for c in value["choices"] if isinstance(c, dict)], "assistant"
        )
    if isinstance(value.get("candidates"), list):
        return messages_of(
            [c.get("content") for c in value["candidates"] if isinstance(c, dict)], "assistant"
        )
    if isinstance(value.get("output"), list) and value.get("object") == "response":
        return messages_of(value["output"], "assistant")
    if isinstance(value.get("message"), dict) and "index" in value:
        return messages_of(value["message"], "assistant")
    if isinstance(value.get("content"), dict) and "parts" in value["content"]:
        return messages_of(value["content"], "assistant")
    if _is_message(value):
        return [_message(value, default_role)]
    if isinstance(value.get("prompt"), str):
        found = []
        if isinstance(value.get("system"), str) and value["system"].strip():
            found.append(_Msg("system", texts=[value["system"]]))
        found.append(_Msg("user", texts=[value["prompt"]]))
        return found
    args = value.get("args")
    if isinstance(args, list) and args and all(isinstance(a, str) for a in args):
        return [_Msg(default_role, texts=[a for a in args if a.strip()])]
    return []


def _is_message(value: dict[str, Any]) -> bool:
    kind = value.get("type")
    return (
        "role" in value
        or (isinstance(kind, str) and kind.lower() in ROLES)
        or kind in ("function_call", "function_call_output", "message")
        or ("toolCallId" in value and "toolName" in value)
    )


def _role(value: dict[str, Any], default_role: str) -> tuple[str, str | None]:
    """The message's role, and a tool name when a role names the tool (LangChain.js)."""
    for key in ("role", "type"):
        raw = value.get(key)
        if isinstance(raw, str) and raw.lower() in ROLES:
            return ROLES[raw.lower()], None
    raw = value.get("role")
    if isinstance(raw, str) and raw:
        return "tool", raw
    return default_role, None


def _message(value: dict[str, Any], default_role: str) -> _Msg:
    kind = value.get("type")
    if kind == "function_call":
        call = _Call(
            _id(value.get("call_id")), str(value.get("name") or ""), value.get("arguments")
        )
        return _Msg("assistant", calls=[_arguments(call)])
    if kind == "function_call_output":
        return _Msg("tool", results=[_Result(_id(value.get("call_id")), value.get("output"))])
    if "toolCallId" in value and "toolName" in value:
        call = _Call(_id(value["toolCallId"]), str(value["toolName"]), value.get("input"))
        return _Msg("assistant", calls=[_arguments(call)])
    role, tool_name = _role(value, default_role)
    message = _Msg(role)
    content = value.get("content")
    parts = value.get("parts")
    if role == "tool":
        call_id = _id(value.get("tool_call_id") or value.get("toolCallId"))
        status = value.get("status")
        if isinstance(content, dict) and content.get("type") == "function":
            return message  # a tool definition sent under role tool, not a result
        if isinstance(content, str) and _openai_calls(content):
            return message  # Koog repeats the model's tool calls under role tool
        if (
            content is not None
            and not isinstance(parts, list)
            and not (isinstance(content, list) and _has_blocks(content))
        ):
            name = value.get("name")
            message.results.append(
                _Result(
                    call_id,
                    content,
                    True if status == "error" else (False if status == "success" else None),
                    name if isinstance(name, str) else tool_name,
                )
            )
            return message
    blocks = parts if isinstance(parts, list) else content
    if isinstance(blocks, str):
        calls = _openai_calls(blocks) if role == "assistant" else None
        if calls:
            message.calls.extend(calls)
        elif blocks.strip():
            message.texts.append(blocks)
    elif isinstance(blocks, list):
        for block in blocks:
            _block(block, message)
    tool_calls = value.get("tool_calls")
    extra = value.get("additional_kwargs")
    if not tool_calls and isinstance(extra, dict):
        tool_calls = extra.get("tool_calls")
    for call in tool_calls if isinstance(tool_calls, list) else []:
        if isinstance(call, dict):
            parsed = _chat_call(call)
            if parsed is not None and not any(c.id == parsed.id for c in message.calls):
                message.calls.append(parsed)
    return message


def _has_blocks(content: list[Any]) -> bool:
    return any(isinstance(b, dict) and "type" in b for b in content)


def _chat_call(call: dict[str, Any]) -> _Call | None:
    function = call.get("function")
    if isinstance(function, dict):
        return _arguments(
            _Call(_id(call.get("id")), str(function.get("name") or ""), function.get("arguments"))
        )
    if isinstance(call.get("name"), str):
        arguments = call.get("args", call.get("arguments", call.get("input")))
        return _arguments(_Call(_id(call.get("id")), call["name"], arguments))
    return None


def _openai_calls(text: str) -> list[_Call] | None:
    """Text that is a JSON list of OpenAI tool calls (Koog writes its calls so)."""
    stripped = text.strip()
    if not stripped.startswith("[{"):
        return None
    try:
        value = orjson.loads(stripped)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(value, list) or not value:
        return None
    calls = [_chat_call(v) for v in value if isinstance(v, dict) and "function" in v]
    return [c for c in calls if c is not None] if len(calls) == len(value) else None


def _arguments(call: _Call) -> _Call:
    call.arguments = _decode(call.arguments)
    return call


def _block(block: Any, message: _Msg) -> None:
    if isinstance(block, str):
        if block.strip():
            message.texts.append(block)
        return
    if not isinstance(block, dict):
        return
    kind = block.get("type")
    if kind in ("text", "output_text", "input_text") or (kind is None and "text" in block):
        text = block.get("text", block.get("content"))
        if isinstance(text, str) and text.strip():
            message.texts.append(text)
    elif kind in ("tool_use", "tool_call", "function_call") and isinstance(block.get("name"), str):
        arguments = block.get("input", block.get("arguments", block.get("args")))
        message.calls.append(_arguments(_Call(_id(block.get("id")), block["name"], arguments)))
    elif kind in ("tool_result", "tool_call_response"):
        call_id = _id(block.get("tool_use_id") or block.get("id"))
        flag = block.get("is_error")
        content = block.get("content", block.get("response"))
        message.results.append(_Result(call_id, content, flag if isinstance(flag, bool) else None))
    elif isinstance(block.get("function_call"), dict):
        call = block["function_call"]
        name = str(call.get("name") or "")
        message.calls.append(_Call(_id(call.get("id")), name, call.get("args")))
    elif isinstance(block.get("function_response"), dict):
        response = block["function_response"]
        name = response.get("name") if isinstance(response.get("name"), str) else None
        message.results.append(
            _Result(_id(response.get("id")), response.get("response"), None, name)
        )


# ----------------------------------------------------------------------------- reading
def read(path: Path, source: str) -> ReadResult:
    result = ReadResult()
    data = read_bytes(path, source, result.rejects)
    if data is None:
        return result
    # Exports are written indented: read piece by piece, each observation once, with orjson.
    indented = indented_document(data, "observations")
    text: str | None = None
    items: list[tuple[int, int, Any]] | None = None
    if indented is not None:
        document, items = indented
    else:
        text = _text(data)
        document = parse_document(text, source, result.rejects)
        if document is None:
            return result
    if not _is_export(document):
        text = _text(data) if text is None else text
        result.rejects.append(
            Reject(
                source=source,
                line=1,
                reason="not a Langfuse trace export (expected {trace, observations})",
                excerpt=excerpt(text[:200]),
            )
        )
        return result
    if items is None:
        assert text is not None
        ignored: list[Reject] = []
        items = array_items(text, source, ignored, ("observations",)).records
        if len(items) != len(document["observations"]):  # the array is not the top-level one
            items = [(i, 1, o) for i, o in enumerate(document["observations"])]
    trace = document["trace"]
    trace_id = _id(trace.get("id")) or plain_name(path)
    conversation = Conversation(
        id=trace_id,
        source=source,
        format=NAME,
        line=1,
        timestamp=moment(trace.get("timestamp")),
        user_id=_id(trace.get("userId")),
    )
    for key in ("name", "sessionId"):
        if _id(trace.get(key)):
            conversation.metadata[key] = trace[key]
    if not items:
        result.pass_over(NO_OBSERVATIONS)
        return result
    trace_reader = _Trace(conversation, result)
    # A generation's input is read when it starts and its output when it ends, so that a
    # framework's nested generations (one call seen at two layers) keep their order.
    steps: list[tuple[str, int, int, int, Any]] = []
    for index, line, observation in items:
        if not isinstance(observation, dict):
            result.rejects.append(
                Reject(
                    source=source,
                    line=line,
                    reason=f"observation is not an object at /observations/{index}",
                    excerpt=excerpt(observation),
                )
            )
            continue
        start = _time(observation, "startTime")
        if observation.get("type") == "GENERATION":
            end = _time(observation, "endTime") or start
            steps.append((start, 0, index, line, observation))
            steps.append((max(start, end), 1, index, line, observation))
        else:
            steps.append((start, 0, index, line, observation))
    for _, phase, _, line, observation in sorted(steps, key=lambda step: step[:3]):
        trace_reader.observation(observation, line, phase)
    result.conversations.append(conversation)
    return result


def _text(data: bytes) -> str:
    """A file's bytes as ``read_text`` gives them."""
    return data.decode("utf-8", "replace").lstrip("\ufeff")


def _time(observation: dict[str, Any], key: str) -> str:
    value = observation.get(key)
    return value if isinstance(value, str) else ""


def _attributes(observation: dict[str, Any]) -> dict[str, Any]:
    metadata = _decode(observation.get("metadata"))
    if not isinstance(metadata, dict):
        return {}
    attributes = metadata.get("attributes")
    return attributes if isinstance(attributes, dict) else metadata


def _tool_message(value: Any) -> dict[str, Any] | None:
    """A LangChain ``ToolMessage`` dump (plain or ``lc`` constructor form), as its fields."""
    if not isinstance(value, dict):
        return None
    if value.get("lc") == 1 and isinstance(value.get("kwargs"), dict):
        names = value.get("id")
        if isinstance(names, list) and names and names[-1] == "ToolMessage":
            return value["kwargs"]
        return None
    if value.get("type") == "tool" and "tool_call_id" in value:
        return value
    return None


class _Trace:
    """One trace's observations into one conversation, each exchange once."""

    def __init__(self, conversation: Conversation, result: ReadResult):
        self.conversation = conversation
        self.result = result
        self.calls: dict[str, ToolCall] = {}
        self.open: list[str] = []  # ids of calls without a result, oldest first
        self.results: dict[str, ToolResult] = {}  # call id -> the result read for it
        self.seen: Counter[tuple[str, str]] = Counter()  # (role, text) already read
        self.made = 0
        self.unnamed: set[str] = set()  # ids made for calls the model made without one
        self.runs: set[str] = set()  # ids made for tool runs that named no call

    # -- observations
    def observation(self, observation: dict[str, Any], line: int, phase: int = 0) -> None:
        """Read one observation; a generation in two phases, its input (0), its output (1)."""
        kind = observation.get("type")
        if kind == "GENERATION":
            if observation.get("input") is None and observation.get("output") is None:
                if phase == 0:
                    self.result.pass_over(EMPTY_GENERATION)
            elif phase == 0:
                stamp = moment(observation.get("startTime"))
                self._messages(messages_of(observation.get("input"), "user"), line, stamp)
            else:  # a time is never false: the start time only stands in for a missing end
                end = moment(observation.get("endTime")) or moment(observation.get("startTime"))
                self._messages(messages_of(observation.get("output"), "assistant"), line, end)
            return
        attributes = _attributes(observation)
        output = _decode(observation.get("output"))
        dump = _tool_message(output)
        tool_run = (
            kind == "TOOL"
            or dump is not None
            or str(attributes.get("openinference.span.kind", "")).upper() == "TOOL"
            or attributes.get("gen_ai.operation.name") == "execute_tool"
            or any(_id(attributes.get(key)) for key in CALL_ID_KEYS)
        )
        if not tool_run:
            self.result.pass_over(FRAMEWORK_STEP.format(kind or "(no type)"))
            return
        if (
            observation.get("input") is None
            and observation.get("output") is None
            and observation.get("level") != "ERROR"
        ):
            self.result.pass_over(EMPTY_TOOL)
            return
        arguments = _decode(observation.get("input"))
        if arguments is None:
            arguments = next(
                (_decode(attributes[k]) for k in TOOL_ARGS_KEYS if attributes.get(k) is not None),
                None,
            )
        failed = observation.get("level") == "ERROR"
        call_id = next(
            (_id(attributes.get(key)) for key in CALL_ID_KEYS if attributes.get(key)), None
        )
        content: Any = observation.get("output")
        if output in (None, {}, "") and any(attributes.get(k) for k in OUTPUT_KEYS):
            content = next(attributes[k] for k in OUTPUT_KEYS if attributes.get(k))
        is_error: bool | None = False
        if dump is not None:
            call_id = call_id or _id(dump.get("tool_call_id"))
            content = dump.get("content")
            status = dump.get("status")
            is_error = True if status == "error" else is_error
        if failed:
            is_error = True
            message = observation.get("statusMessage")
            if isinstance(message, str) and message.strip():
                shown = content if isinstance(content, str) else None
                content = message if not shown else f"{message}\n{shown}"
        name = self._tool_name(observation, attributes)
        stamp = moment(observation.get("startTime"))
        self._tool_run(call_id, name, arguments, content, is_error, line, stamp)

    def _tool_name(self, observation: dict[str, Any], attributes: dict[str, Any]) -> str:
        for key in TOOL_NAME_KEYS:
            if isinstance(attributes.get(key), str) and attributes[key]:
                return attributes[key]
        name = str(observation.get("name") or "")
        for prefix in _NAME_PREFIXES:
            if name.startswith(prefix):
                name = name[len(prefix) :]
        return _LIFECYCLE.sub("", name)

    # -- messages of a generation
    def _messages(self, messages: list[_Msg], line: int, stamp: Any) -> None:
        here: Counter[tuple[str, str]] = Counter()
        for message in messages:
            texts = []
            for text in message.texts:
                key = (message.role, text.strip())
                here[key] += 1
                if here[key] > self.seen[key]:
                    self.seen[key] = here[key]
                    texts.append(text)
            if message.role in ("user", "system") and texts:
                self._add(
                    Message(
                        role=message.role,
                        line=line,
                        from_person=message.role == "user",
                        timestamp=stamp,
                        parts=[TextPart(text=t, line=line) for t in texts],
                    )
                )
            elif message.role == "assistant":
                parts: list[TextPart | ToolCall] = [TextPart(text=t, line=line) for t in texts]
                for call in message.calls:
                    made = self._call(call, line)
                    if made is not None:
                        parts.append(made)
                if parts:
                    self._add(Message(role="assistant", line=line, timestamp=stamp, parts=parts))
            for found in message.results:
                self._result(found, line, stamp)

    def _call(self, call: _Call, line: int) -> ToolCall | None:
        """The canonical call for a call the model made, or None when it was read before."""
        if call.id is not None and call.id in self.calls:
            return None
        if call.id is not None:
            # A tool run read before the model's output (spans that end late) made the call.
            run = self._find(call.name, call.arguments, answered=True, only=self.runs)
            if run is not None:
                self._rename(run, call)
                return None
        else:
            if self._find(call.name, call.arguments, answered=True) is not None:
                return None
            self.made += 1
            call.id = f"{self.conversation.id}#call-{self.made}"
            self.unnamed.add(call.id)
        made = ToolCall(id=call.id, name=call.name, arguments=call.arguments, line=line)
        self.calls[call.id] = made
        self.open.append(call.id)
        return made

    def _result(self, found: _Result, line: int, stamp: Any) -> None:
        call_id = found.call_id
        if call_id is None:
            waiting = [i for i in self.open if found.name in (None, self.calls[i].name)]
            if not waiting:
                return  # a repeat of an exchange already read
            call_id = waiting[0]
        if call_id in self.results:
            return
        result = ToolResult(
            call_id=call_id, line=line, content=found.content, is_error=found.is_error
        )
        self.results[call_id] = result
        if call_id in self.open:
            self.open.remove(call_id)
        self._add(Message(role="tool", line=line, timestamp=stamp, parts=[result]))

    def _rename(self, run: str, call: _Call) -> None:
        """A tool run read before the model's output made a call of its own: it takes the
        model's id and arguments."""
        assert call.id is not None
        self.runs.discard(run)
        made = self.calls.pop(run)
        made.id, made.arguments = call.id, call.arguments
        self.calls[call.id] = made
        self.open = [call.id if i == run else i for i in self.open]
        result = self.results.pop(run, None)
        if result is not None:
            result.call_id = call.id
            self.results[call.id] = result

    # -- tool runs
    def _tool_run(
        self,
        call_id: str | None,
        name: str,
        arguments: Any,
        content: Any,
        is_error: bool | None,
        line: int,
        stamp: Any,
    ) -> None:
        if call_id is None or call_id not in self.calls:
            # A run without an id answers an open call of that name; one with an id the model
            # never gave (Google ADK) answers an open call that had none.
            known = self._find(
                name, arguments, answered=False, only=None if call_id is None else self.unnamed
            )
            if known:
                call_id = known
            else:
                if call_id is None:
                    self.made += 1
                    call_id = f"{self.conversation.id}#tool-{self.made}"
                    self.runs.add(call_id)
                made = ToolCall(id=call_id, name=name, arguments=arguments, line=line)
                self.calls[call_id] = made
                self.open.append(call_id)
                self._add(Message(role="assistant", line=line, timestamp=stamp, parts=[made]))
        self._result(_Result(call_id, content, is_error), line, stamp)

    def _find(
        self, name: str, arguments: Any, answered: bool, only: set[str] | None = None
    ) -> str | None:
        """A call of that name (the same arguments first): among the open calls, or among
        every call when ``answered``; among ``only`` when given."""
        pool = list(self.calls) if answered else list(self.open)
        if only is not None:
            pool = [i for i in pool if i in only]
        named = [i for i in pool if _same_name(self.calls[i].name, name)]
        for call_id in named:
            if _same_arguments(self.calls[call_id].arguments, arguments):
                return call_id
        return None if answered else (named[0] if named else None)

    def _add(self, message: Message) -> None:
        self.conversation.messages.append(message)


def _same_name(a: str, b: str) -> bool:
    return a.lower() == b.lower() or a.lower().endswith(f"__{b.lower()}")


def _same_arguments(a: Any, b: Any) -> bool:
    """The same arguments, one side perhaps wrapped as ``{"input": …}`` (Claude Agent SDK)."""
    a, b = _unwrapped(a), _unwrapped(b)
    return a == b


def _unwrapped(value: Any) -> Any:
    value = _decode(value)
    if isinstance(value, dict) and set(value) == {"input"}:
        return _decode(value["input"])
    return value
