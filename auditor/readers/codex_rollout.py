"""OpenAI Codex CLI and Codex Desktop session rollouts (``~/.codex/sessions/**/rollout-*.jsonl``).

One record per line, ``{timestamp, type, payload}``, one session per file (one conversation,
named by ``session_meta.payload.id``). ``type`` is ``session_meta``, ``turn_context``,
``response_item``, ``event_msg`` or ``compacted``.

What is read, from the ``response_item`` records (what the model saw and said):

- ``message``: ``user`` (``input_text`` parts), ``assistant`` (``output_text`` parts), and
  ``developer`` / ``system`` instructions;
- ``function_call`` / ``custom_tool_call`` and their ``function_call_output`` /
  ``custom_tool_call_output``, paired by ``call_id``. The records carry no error flag; a
  result's flag comes from its text:

  - unified exec (``exec_command``, ``write_stdin``) and the shell tool start their output with a
    header (``Chunk ID`` / ``Wall time`` / ``Process exited with code N`` or ``Exit code: N`` /
    ``Original token count`` / ``Output:``): the exit code is the flag, and the text the outcome
    rules read is the part after ``Output:``;
  - ``apply_patch`` (and the older shell tool) answer with a JSON *string*
    ``{"output": …, "metadata": {"exit_code": N}}``: ``metadata.exit_code`` is the flag and the
    inner ``output`` the text;
  - an output that is a JSON list of content blocks (MCP and ``js`` tools) is read as those
    blocks.

Unified exec sessions: an ``exec_command`` whose output says ``Process running with session ID N``
has not finished. Its exit code comes later, either in the output of a ``write_stdin`` call that
polls session N (``Process exited with code 2``) or in the ``event_msg`` ``exec_command_end`` of
the command's own ``call_id``. The failure belongs to the command that started the session: its
result (kept where its first output stood, so that it is not taken for a late result) takes the
exit code, the output gathered over the polls (or the event's ``aggregated_output``) and the
line where the exit code was written. The poll itself worked: its flag is false.

The person: a ``user_message`` event repeats the ``user`` item written just before it, and
marks that item as the person's; the other ``user`` items (``AGENTS.md`` instructions, the
environment context) are the host's. A ``user_message`` with no ``user`` item before it (Codex
Desktop writes only the event) is the person's message itself. A file with no ``user_message``
event at all takes every ``user`` item as the person's, except the host's known context blocks.

Passed over and counted: ``event_msg`` copies of what the items already hold (``agent_message``,
``agent_reasoning``, ``user_message`` repeats, ``exec_command_end`` of commands that had already
exited, ``patch_apply_end``), the other events (``token_count``, ``task_started``, …),
``session_meta`` and ``turn_context``, ``reasoning`` items, ``web_search_call`` items (a search
run by the model provider: no output item is written, only a ``web_search_end`` event), and the
``compacted`` record (a summary that repeats the history before it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from auditor.model import Conversation, Message, Reject, TextPart, ToolCall, ToolResult
from auditor.readers.conversations import as_text, decode_arguments, text_or_none
from auditor.readers.lines import json_lines
from auditor.readers.result import ReadResult, excerpt
from auditor.readers.stamps import record_moment
from auditor.readers.streams import plain_name

NAME = "codex_rollout"
DESCRIPTION = "OpenAI Codex CLI / Desktop session rollouts (~/.codex/sessions/**/rollout-*.jsonl)"
READS_SPANS = False
sniff = None  # recognised record by record, by looks_like

RECORD_TYPES = frozenset(
    {"session_meta", "turn_context", "response_item", "event_msg", "compacted"}
)
CALL_TYPES = ("function_call", "custom_tool_call")
OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output")
NO_CONTENT = "codex rollout record without conversation content: {}"
NOT_AUDITED = "codex rollout item not audited: {}"
EVENT = "codex rollout event without conversation content: {}"
REPEAT = "codex rollout event repeating an item already read: {}"
COMPACTED = "codex rollout compacted history (a summary repeating earlier messages)"
WEB_SEARCH = (
    "codex rollout item not audited: web_search_call (a search run by the model provider; "
    "no output item is written)"
)
# Context blocks the host writes in the user role (used only when no user_message event says
# which user item was the person's).
HOST_CONTEXT = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<INSTRUCTIONS>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<permissions instructions>",
)
EXEC_TOOLS = frozenset({"exec_command"})
POLL_TOOLS = frozenset({"write_stdin"})

# The header unified exec and the shell tool write above a command's output.
HEADER_CHARS = 600
_HEADER_LINE = re.compile(
    r"(?:Chunk ID|Wall time|Process exited with code|Process running with session ID|"
    r"Exit code|Original token count|Total output lines)\b"
)
_EXITED = re.compile(r"^(?:Process exited with code|Exit code:)\s*(-?\d+)\s*$", re.M)
_RUNNING = re.compile(r"^Process running with session ID (\d+)\s*$", re.M)
# Codex's own report that a tool's handler failed (``write_stdin failed: stdin is closed``,
# ``apply_patch verification failed: …``).
_HANDLER_FAILED = re.compile(
    r"^(?:[\w.-]+ (?:verification )?failed: |failed to parse function arguments)"
)


def looks_like(record: Any) -> int:
    if not isinstance(record, dict) or not isinstance(record.get("payload"), dict):
        return 0
    return 3 if text_or_none(record.get("type")) in RECORD_TYPES and "timestamp" in record else 0


def read(path: Path, source: str) -> ReadResult:
    result = ReadResult()
    rollout = Rollout(source, result, Path(plain_name(path)).stem)
    for number, record in json_lines(path, source, result.rejects):
        rollout.feed(record, number)
    rollout.finish()
    return result


# ----------------------------------------------------------------------------- exec output
@dataclass
class ExecOutput:
    """What a tool's output text says: the text the rules read, the exit code, and a running
    unified exec session."""

    text: str
    exit_code: int | None = None
    session: str | None = None
    has_header: bool = False


def exec_output(text: str) -> ExecOutput:
    """Split a unified exec / shell header from the output below it."""
    if not _HEADER_LINE.match(text):
        return ExecOutput(text)
    head, marker, body = text[:HEADER_CHARS].partition("Output:\n")
    if marker:
        body = text[len(head) + len(marker) :]
    elif text.rstrip().endswith("Output:") and len(text) < HEADER_CHARS:
        head, marker, body = text.rstrip()[: -len("Output:")], "Output:", ""
    lines = [line for line in head.splitlines() if line.strip()]
    if not marker or not all(map(_HEADER_LINE.match, lines)):
        return ExecOutput(text)
    exited = _EXITED.search(head)
    running = _RUNNING.search(head)
    return ExecOutput(
        text=body,
        exit_code=int(exited.group(1)) if exited else None,
        session=running.group(1) if running else None,
        has_header=True,
    )


def content_blocks(text: str) -> list[dict[str, Any]] | None:
    """A text that is a JSON list of content blocks (``[{"type": "text", "text": …}]``), as
    MCP and ``js`` tools answer: the blocks, else None."""
    stripped = text.strip()
    if not stripped.startswith("[{"):
        return None
    try:
        value = orjson.loads(stripped)
    except orjson.JSONDecodeError:
        return None
    if value and all(isinstance(b, dict) and isinstance(b.get("type"), str) for b in value):
        return value
    return None


def json_string_output(text: str) -> tuple[Any, int] | None:
    """``{"output": …, "metadata": {"exit_code": N}}`` written as a string: (output, N)."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("metadata"), dict):
        return None
    code = value["metadata"].get("exit_code")
    if not isinstance(code, int) or isinstance(code, bool) or "output" not in value:
        return None
    return value["output"], code


def exec_end_text(event: dict[str, Any]) -> tuple[str, str]:
    """(text, field) of an ``exec_command_end`` event: its aggregated output when it has one,
    else stdout and stderr (the field named is where the text starts)."""
    for key in ("aggregated_output", "formatted_output"):
        value = event.get(key)
        if isinstance(value, str) and value:
            return value, key
    stdout = event.get("stdout") if isinstance(event.get("stdout"), str) else ""
    stderr = event.get("stderr") if isinstance(event.get("stderr"), str) else ""
    if stdout and stderr:
        return f"{stdout.rstrip()}\n{stderr}", "stdout"
    return (stdout, "stdout") if stdout or not stderr else (stderr, "stderr")


def exit_code_of(event: dict[str, Any]) -> int | None:
    code = event.get("exit_code")
    return code if isinstance(code, int) and not isinstance(code, bool) else None


# ----------------------------------------------------------------------------- the session
@dataclass
class _Exec:
    """An ``exec_command`` whose process was still running after its first output."""

    result: ToolResult
    chunks: list[str] = field(default_factory=list)
    ended: bool = False  # its exec_command_end event was read


class Rollout:
    """The records of one rollout file, fed in order, into one conversation."""

    def __init__(self, source: str, result: ReadResult, default_id: str):
        self.source = source
        self.result = result
        self.conversation: Conversation | None = None
        self.default_id = default_id
        self.calls: dict[str, ToolCall] = {}
        self.running: dict[str, _Exec] = {}  # exec call id -> its unfinished result
        self.sessions: dict[str, str] = {}  # unified exec session id -> exec call id
        self.unclaimed: list[Message] = []  # user items no user_message event has claimed yet
        self.user_items: list[Message] = []
        self.user_events = 0
        self.group = 0  # items the model produced together share a message id
        self.in_reply = False

    # -- records
    def feed(self, record: Any, line: int) -> None:
        if not isinstance(record, dict):
            self._reject(line, "rollout record is not an object", record)
            return
        kind = record.get("type")
        payload = record.get("payload")
        if not isinstance(payload, dict):
            self._reject(line, "rollout record without a payload object", record)
            return
        if kind == "response_item":
            self._item(payload, line, record)
        elif kind == "event_msg":
            self._event(payload, line, record)
        elif kind == "session_meta":
            self._session_meta(payload, record)
            self.result.pass_over(NO_CONTENT.format(kind))
        elif kind == "compacted":
            self.result.pass_over(COMPACTED)
        else:
            name = kind if isinstance(kind, str) and kind else "(no type)"
            if kind == "turn_context" and isinstance(payload.get("model"), str):
                self._conversation(record).metadata.setdefault("model", payload["model"])
            self.result.pass_over(NO_CONTENT.format(name))

    def finish(self) -> None:
        if self.user_events == 0:
            for message in self.user_items:
                text = _text_of(message).lstrip()
                message.from_person = bool(text) and not text.startswith(HOST_CONTEXT)

    # -- response items
    def _item(self, item: dict[str, Any], line: int, record: dict[str, Any]) -> None:
        kind = item.get("type")
        if kind == "message":
            self._message(item, line, record)
        elif kind in CALL_TYPES:
            self._call(item, line, record)
        elif kind in OUTPUT_TYPES:
            self._output(item, line, record)
        elif kind == "web_search_call":
            self.result.pass_over(WEB_SEARCH)
        else:
            self.result.pass_over(NOT_AUDITED.format(kind if isinstance(kind, str) else "(none)"))

    def _message(self, item: dict[str, Any], line: int, record: dict[str, Any]) -> None:
        role = item.get("role")
        text = as_text(item.get("content"))
        parts = [TextPart(text=text, line=line)] if text else []
        moment = record_moment(record)
        if role == "assistant":
            self._assistant(parts, line, record)
        elif role == "user":
            message = Message(role="user", line=line, parts=parts, timestamp=moment)
            self._other(message, record)
            self.unclaimed.append(message)
            self.user_items.append(message)
        elif role in ("developer", "system"):
            self._other(Message(role="system", line=line, parts=parts, timestamp=moment), record)
        else:
            self._reject(line, f"rollout message with an unknown role: {role!r}", item)

    def _call(self, item: dict[str, Any], line: int, record: dict[str, Any]) -> None:
        call_id, name = item.get("call_id"), item.get("name")
        if not isinstance(call_id, str) or not call_id or not isinstance(name, str) or not name:
            self._reject(line, f"{item.get('type')} without call_id or name", item)
            return
        raw = item.get("arguments", item.get("input"))
        call = ToolCall(id=call_id, name=name, arguments=decode_arguments(raw), line=line)
        self.calls[call_id] = call
        self._assistant([call], line, record)

    def _output(self, item: dict[str, Any], line: int, record: dict[str, Any]) -> None:
        call_id = item.get("call_id")
        if not isinstance(call_id, str) or not call_id:
            self._reject(line, f"{item.get('type')} without call_id", item)
            return
        call = self.calls.get(call_id)
        output = item.get("output")
        found = exec_output(output) if isinstance(output, str) else None
        result = _tool_result(output, found, call_id, line)
        if call is not None and call.name in EXEC_TOOLS and found is not None:
            if found.session is not None and found.exit_code is None:
                self.sessions[found.session] = call_id
                self.running[call_id] = _Exec(result, [found.text])
        elif call is not None and call.name in POLL_TOOLS and found is not None:
            if found.has_header:
                result.is_error = False  # the poll was answered, whatever its command did
            self._poll(call, found, line)
        self._other(Message(role="tool", line=line, parts=[result]), record)

    def _poll(self, call: ToolCall, found: ExecOutput, line: int) -> None:
        """A ``write_stdin`` output: more output of a running command, perhaps its exit code."""
        arguments = call.arguments if isinstance(call.arguments, dict) else {}
        session = arguments.get("session_id")
        started = self.sessions.get(str(session)) if session is not None else None
        running = self.running.get(started) if started is not None else None
        if running is None or not found.has_header:
            return
        running.chunks.append(found.text)
        if found.exit_code is None:
            return
        del self.sessions[str(session)]
        if not running.ended:  # the command's own exec_command_end event, when read, decides
            _settle(running.result, line, "".join(running.chunks), "output", found.exit_code)
            running.result.flag_key = "output"

    # -- events
    def _event(self, event: dict[str, Any], line: int, record: dict[str, Any]) -> None:
        kind = event.get("type")
        name = kind if isinstance(kind, str) and kind else "(no type)"
        if kind == "user_message":
            self._user_message(event, line, record)
        elif kind in ("agent_message", "agent_reasoning", "patch_apply_end"):
            self.result.pass_over(REPEAT.format(name))
        elif kind == "exec_command_end":
            self._exec_end(event, line)
        else:
            self.result.pass_over(EVENT.format(name))

    def _user_message(self, event: dict[str, Any], line: int, record: dict[str, Any]) -> None:
        self.user_events += 1
        if self.unclaimed:
            self.unclaimed[-1].from_person = True
            self.unclaimed.clear()
            self.result.pass_over(REPEAT.format("user_message"))
            return
        text = event.get("message")
        text = text if isinstance(text, str) else ""
        parts = [TextPart(text=text, line=line)] if text else []
        self._other(
            Message(
                role="user",
                line=line,
                parts=parts,
                from_person=bool(text.strip()),
                timestamp=record_moment(record),
            ),
            record,
        )

    def _exec_end(self, event: dict[str, Any], line: int) -> None:
        """The exit code of a command that was still running after its first output; for any
        other command, a repeat of its output."""
        call_id = event.get("call_id")
        running = self.running.get(call_id) if isinstance(call_id, str) else None
        code = exit_code_of(event)
        if running is None or running.ended or code is None:
            self.result.pass_over(REPEAT.format("exec_command_end"))
            return
        running.ended = True
        text, key = exec_end_text(event)
        _settle(running.result, line, text, key, code)
        running.result.flag_key = "exit_code"

    # -- messages
    def _conversation(self, record: dict[str, Any]) -> Conversation:
        if self.conversation is None:
            self.conversation = Conversation(
                id=self.default_id,
                source=self.source,
                format=NAME,
                line=1,
                timestamp=record_moment(record),
            )
            self.result.conversations.append(self.conversation)
        return self.conversation

    def _session_meta(self, payload: dict[str, Any], record: dict[str, Any]) -> None:
        conversation = self._conversation(record)
        if conversation.messages or "session" in conversation.metadata:
            return  # a later session_meta (a resumed or forked session) names no new one
        session = payload.get("id")
        if isinstance(session, str) and session:
            conversation.id = session
        conversation.metadata["session"] = conversation.id
        for key in ("cwd", "originator", "cli_version", "source", "model_provider"):
            if isinstance(payload.get(key), str):
                conversation.metadata[key] = payload[key]
        conversation.timestamp = record_moment(payload) or conversation.timestamp

    def _assistant(self, parts: list, line: int, record: dict[str, Any]) -> None:
        conversation = self._conversation(record)
        if not self.in_reply:
            self.group += 1
            self.in_reply = True
        self.unclaimed.clear()
        conversation.messages.append(
            Message(
                role="assistant",
                line=line,
                parts=parts,
                message_id=f"{conversation.id}#{self.group}",
                timestamp=record_moment(record),
            )
        )

    def _other(self, message: Message, record: dict[str, Any]) -> None:
        self.in_reply = False
        if message.role != "user":
            self.unclaimed.clear()
        self._conversation(record).messages.append(message)

    def _reject(self, line: int, reason: str, value: Any) -> None:
        self.result.rejects.append(
            Reject(source=self.source, line=line, reason=reason, excerpt=excerpt(value))
        )


# ----------------------------------------------------------------------------- results
def _tool_result(output: Any, found: ExecOutput | None, call_id: str, line: int) -> ToolResult:
    """The result of a ``*_output`` item, its flag read from what its text says (``found``:
    the text's exec header, read)."""
    result = ToolResult(call_id=call_id, line=line, pointer="/payload", content_key="output")
    if isinstance(output, dict):  # {content, success}, as some versions wrote it
        content = output.get("content")
        if isinstance(content, str):
            content = content_blocks(content) or content
        result.content = content
        result.content_key = "output/content"
        if isinstance(output.get("success"), bool):
            result.is_error, result.flag_key = not output["success"], "output/success"
        return result
    if not isinstance(output, str) or found is None:
        result.content = output
        return result
    wrapped = json_string_output(output)
    if wrapped is not None:
        inner, code = wrapped
        result.content = inner
        result.content_key = "output/output"
        result.is_error, result.flag_key = code != 0, "output/metadata/exit_code"
        return result
    result.content = content_blocks(found.text) or found.text
    if found.exit_code is not None:  # else no flag: a running command's exit code comes later
        result.is_error, result.flag_key = found.exit_code != 0, "output"
    elif not found.has_header and _HANDLER_FAILED.match(output):
        result.is_error, result.flag_key = True, "output"
    return result


def _settle(result: ToolResult, line: int, text: str, key: str, code: int) -> None:
    """Give a running command's result its exit code and the output it ended with."""
    result.line = line
    result.pointer = "/payload"
    result.content = content_blocks(text) or text
    result.content_key = key
    result.is_error = code != 0


# ----------------------------------------------------------------------------- text
def _text_of(message: Message) -> str:
    return "\n".join(p.text for p in message.parts if isinstance(p, TextPart))
