"""``codex exec`` output: the ``--json`` event stream, read; the plain-text output, passed over.

``codex exec --json`` writes one event per line: ``thread.started {thread_id}``, ``turn.started``,
``item.started`` / ``item.updated`` / ``item.completed {item}``, ``turn.completed {usage}``,
``turn.failed {error}`` and ``error``. A thread is a conversation (``codex exec resume`` goes on
with the same ``thread_id``, in the same conversation); each ``turn.started`` opens a turn with an
empty message of the person's, since the prompt itself is not in the stream. Items:

- ``agent_message``: the assistant's text;
- ``command_execution`` (``command``, ``aggregated_output``, ``exit_code``, ``status``): the flag
  is a non-zero exit code, or ``status`` ``failed`` / ``declined``;
- ``mcp_tool_call`` (``server``, ``tool``, ``arguments``, ``result {content,
  structured_content}``, ``error {message}``, ``status``): the flag is ``status: failed`` or an
  ``error``;
- ``file_change`` (``changes``, ``status``): the flag is ``status: failed``.

A tool item's call is placed at its ``item.started`` (or at ``item.completed`` when it has no
start) and its result at ``item.completed``; a call whose run stopped before it completed has no
result. Item ids restart at ``item_0`` with each ``codex exec`` run, so a resumed thread's ids
are told apart by the line of the run's ``thread.started``.

The plain-text output (``codex exec`` without ``--json``: a banner, then ``user`` / ``thinking``
/ ``exec`` / ``tool`` / ``codex`` blocks) is not read: its blocks carry no ids, a command's
output runs on until the next block's keyword line (which the output itself may hold), and its
layout changes between versions. Its lines, and console text around the events, are passed over
with a reason that says to record runs with ``--json``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from auditor.model import Conversation, Message, Reject, TextPart, ToolCall, ToolResult
from auditor.readers.codex_rollout import content_blocks
from auditor.readers.conversations import text_or_none
from auditor.readers.protocol import SURE
from auditor.readers.result import ReadResult, excerpt
from auditor.readers.sampling import Sample
from auditor.readers.streams import STREAM_ERRORS, broken_stream, open_bytes, plain_name

NAME = "codex_exec"
DESCRIPTION = "codex exec --json event streams (its plain-text output is passed over)"
READS_SPANS = False
looks_like = None  # recognised from the sample, by sniff

EVENT_TYPES = frozenset(
    {
        "thread.started",
        "turn.started",
        "turn.completed",
        "turn.failed",
        "item.started",
        "item.updated",
        "item.completed",
        "error",
    }
)
ITEM_TYPES = frozenset(
    {
        "agent_message",
        "reasoning",
        "command_execution",
        "file_change",
        "mcp_tool_call",
        "web_search",
        "todo_list",
        "error",
    }
)
TOOL_ITEMS = frozenset({"command_execution", "file_change", "mcp_tool_call"})
FAILED = frozenset({"failed", "declined"})
PLAIN = (
    "codex exec plain-text output, not read (its blocks have no ids and no end marks): "
    "record runs with `codex exec --json`"
)
EVENT = "codex exec event without conversation content: {}"
ITEM = "codex exec item not audited: {}"
STARTED = "codex exec item update (the completed item is read)"

BANNER_BYTES = 4096
_BANNER = re.compile(
    rb"^(?:\[[^\]\n]*\]\s*)?OpenAI Codex v\d[^\n]*\n(?:\[[^\]\n]*\]\s*)?-{4,}\s*$", re.M
)


def sniff(sample: Sample) -> int:
    score = sum(_event_score(record) for record in sample.records if record is not None)
    start = sample.head[:BANNER_BYTES]  # the banner opens the output
    if b"OpenAI Codex v" in start and _BANNER.search(start):
        score = max(score, SURE)
    return score


def _event_score(record: Any) -> int:
    if not isinstance(record, dict) or text_or_none(record.get("type")) not in EVENT_TYPES:
        return 0
    kind = record["type"]
    if kind == "thread.started":
        return 3 if isinstance(record.get("thread_id"), str) else 0
    if kind.startswith("item."):
        item = record.get("item")
        return 3 if isinstance(item, dict) and text_or_none(item.get("type")) in ITEM_TYPES else 0
    if kind.startswith("turn."):
        return 2 if set(record) <= {"type", "usage", "error"} else 0
    return 0


def read(path: Path, source: str) -> ReadResult:
    result = ReadResult()
    stream = Stream(source, result, path)
    passed = result.passed_over
    number = plain = 0  # plain: lines of plain-text output, most of such a file
    with open_bytes(path) as handle:
        try:
            for number, raw in enumerate(handle, 1):
                text = raw.strip()
                if not text:
                    continue
                if text[0] == 0x7B and text[-1] == 0x7D:  # {…}: an event (else none, no error)
                    stream.line(text, number)
                else:
                    if not plain:
                        passed.setdefault(PLAIN, 0)  # its place among the reasons
                    plain += 1
        except STREAM_ERRORS as exc:
            result.rejects.append(broken_stream(source, number + 1, exc))
    if plain:
        passed[PLAIN] += plain
    return result


class Stream:
    """The lines of a ``codex exec`` output, fed in order."""

    def __init__(self, source: str, result: ReadResult, path: Path):
        self.source = source
        self.result = result
        self.path = path  # its name, without suffix, names a run that gave no thread id
        self.conversations: dict[str, Conversation] = {}
        self.conversation: Conversation | None = None
        self.run = 0  # line of the current run's thread.started
        self.calls: dict[str, ToolCall] = {}  # item id in this run -> its call
        self.used: dict[str, set[str]] = {}  # conversation id -> call ids given so far

    def line(self, text: bytes, number: int) -> None:
        """A line that begins with ``{`` and ends with ``}`` (stripped): an event, or plain
        text that looks like one."""
        try:
            record = orjson.loads(text)
        except orjson.JSONDecodeError:
            record = None
        if not isinstance(record, dict) or text_or_none(record.get("type")) not in EVENT_TYPES:
            self.result.pass_over(PLAIN)
            return
        self.event(record, number)

    def event(self, event: dict[str, Any], line: int) -> None:
        kind = event["type"]
        if kind == "thread.started":
            thread = event.get("thread_id")
            self._start(thread if isinstance(thread, str) and thread else None, line)
            self.result.pass_over(EVENT.format(kind))
        elif kind == "turn.started":
            self._add(Message(role="user", line=line, from_person=True, parts=[]))
        elif kind in ("item.started", "item.updated", "item.completed"):
            item = event.get("item")
            if not isinstance(item, dict) or not isinstance(item.get("id"), str):
                self._reject(line, f"{kind} without an item id", event)
                return
            self._item(item, kind == "item.completed", line)
        else:
            self.result.pass_over(EVENT.format(kind))

    # -- items
    def _item(self, item: dict[str, Any], completed: bool, line: int) -> None:
        kind = item.get("type")
        if kind == "agent_message" and completed:
            text = item.get("text") if isinstance(item.get("text"), str) else ""
            parts = [TextPart(text=text, line=line)] if text else []
            self._add(Message(role="assistant", line=line, parts=parts))
        elif kind in TOOL_ITEMS:
            call = self.calls.get(item["id"])
            if completed:
                self._result(item, kind, call or self._call(item, kind, line), line)
            elif call is None:
                self._call(item, kind, line)
            else:
                self.result.pass_over(STARTED)
        elif completed:
            self.result.pass_over(ITEM.format(kind if isinstance(kind, str) else "(no type)"))
        else:
            self.result.pass_over(STARTED)

    def _call(self, item: dict[str, Any], kind: str, line: int) -> ToolCall:
        used = self.used.setdefault(self._current(line).id, set())
        call_id = item["id"] if item["id"] not in used else f"{item['id']}@{self.run}"
        used.add(call_id)
        server = None
        if kind == "mcp_tool_call":
            name = item.get("tool") if isinstance(item.get("tool"), str) else "mcp_tool_call"
            server = item.get("server") if isinstance(item.get("server"), str) else None
            arguments = item.get("arguments")
        elif kind == "command_execution":
            name, arguments = kind, {"command": item.get("command")}
        else:
            name, arguments = kind, {"changes": item.get("changes")}
        call = ToolCall(id=call_id, name=name, arguments=arguments, server=server, line=line)
        self.calls[item["id"]] = call
        self._add(Message(role="assistant", line=line, parts=[call]))
        return call

    def _result(self, item: dict[str, Any], kind: str, call: ToolCall, line: int) -> None:
        status = item.get("status")
        failed = status in FAILED
        result = ToolResult(call_id=call.id, line=line, pointer="/item", flag_key="status")
        if kind == "command_execution":
            output = item.get("aggregated_output")
            output = output if isinstance(output, str) else ""
            result.content = content_blocks(output) or output
            result.content_key = "aggregated_output"
            code = item.get("exit_code")
            if isinstance(code, int) and not isinstance(code, bool) and code != 0:
                failed, result.flag_key = True, "exit_code"
        elif kind == "mcp_tool_call":
            error = item.get("error")
            value = item.get("result")
            if isinstance(error, dict) and isinstance(error.get("message"), str):
                failed = True
                result.content, result.content_key = error["message"], "error/message"
                result.flag_key = "error"
            elif isinstance(value, dict):
                result.content, result.content_key = value.get("content"), "result/content"
                for key in ("structured_content", "structuredContent"):
                    if value.get(key) is not None:
                        result.structured, result.has_structured = value[key], True
                        result.structured_key = f"result/{key}"
        else:
            result.content, result.content_key = item.get("changes"), "changes"
        result.is_error = failed if isinstance(status, str) or failed else None
        self._add(Message(role="tool", line=line, parts=[result]))

    # -- conversations
    def _start(self, thread: str | None, line: int) -> None:
        self.run = line
        self.calls = {}
        name = thread or f"{Path(plain_name(self.path)).stem}:{line}"
        conversation = self.conversations.get(name)
        if conversation is None:
            conversation = Conversation(id=name, source=self.source, format=NAME, line=line)
            conversation.metadata["thread"] = name
            self.conversations[name] = conversation
            self.result.conversations.append(conversation)
        self.conversation = conversation

    def _current(self, line: int) -> Conversation:
        if self.conversation is None:
            self._start(None, line)
        assert self.conversation is not None
        return self.conversation

    def _add(self, message: Message) -> None:
        self._current(message.line).messages.append(message)

    def _reject(self, line: int, reason: str, value: Any) -> None:
        self.result.rejects.append(
            Reject(source=self.source, line=line, reason=reason, excerpt=excerpt(value))
        )
