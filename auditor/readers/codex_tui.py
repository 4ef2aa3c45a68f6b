"""Codex TUI session recordings (``CODEX_TUI_RECORD_SESSION=1``, ``session-*.jsonl``).

One record per line, ``{ts, dir, kind, …}``: ``dir`` is ``to_tui``, ``from_tui`` or ``meta``.
Most lines are the screen's own traffic (``app_event`` redraws, ``insert_history``, key presses);
the conversation is in the ``codex_event`` lines, whose ``payload.msg`` is a protocol
``EventMsg``:

- ``session_configured`` starts a conversation named by its ``session_id`` (``/new`` starts
  another in the same file);
- ``agent_message`` is the assistant's text (its ``agent_message_delta`` pieces are passed over);
- ``exec_command_begin`` / ``exec_command_end``, paired by ``call_id``: the call is the ``shell``
  tool with the ``command`` and ``cwd`` of the begin event; the end event's ``exit_code`` is the
  result's flag, and its text is ``stdout`` then ``stderr`` (or ``aggregated_output`` where the
  version writes it). A sandbox denial or a timeout is ``exit_code: -1`` with the reason only in
  ``stderr`` (``error: command timed out``);
- ``patch_apply_begin`` / ``patch_apply_end``: the ``apply_patch`` call with its ``changes``, and
  ``success`` as the flag;
- ``mcp_tool_call_begin`` / ``mcp_tool_call_end``: the MCP tool of ``invocation`` (``server``,
  ``tool``, ``arguments``); ``result`` is ``{"Ok": CallToolResult}`` or ``{"Err": message}``.

The person's prompt is not a protocol event in these recordings: it is rebuilt from the key
presses typed before it was submitted (characters, Backspace, Enter), or taken from a
``user_input`` / ``user_turn`` op where the recording has one. A prompt whose typing moved the
cursor (arrow keys, a recalled history entry) cannot be rebuilt, and an empty message of the
person's marks where that turn starts; so does ``task_started`` when nothing was typed.

Passed over and counted: the screen's records (``app_event``, ``insert_history``), key presses
that typed no prompt, log lines, ops (approval decisions, shutdown), ``meta`` records, and the
events without conversation content (deltas, reasoning, ``token_count``, ``turn_diff``,
``exec_approval_request``, ``task_started`` / ``task_complete``, …).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from auditor.model import Conversation, Message, Reject, TextPart, ToolCall, ToolResult
from auditor.readers.codex_rollout import content_blocks, exec_end_text, exit_code_of
from auditor.readers.lines import bad_line
from auditor.readers.result import ReadResult, excerpt
from auditor.readers.stamps import moment
from auditor.readers.streams import STREAM_ERRORS, broken_stream, open_bytes, plain_name

NAME = "codex_tui"
DESCRIPTION = "Codex TUI session recordings (CODEX_TUI_RECORD_SESSION JSONL)"
READS_SPANS = False
sniff = None  # recognised record by record, by looks_like

DIRECTIONS = frozenset({"to_tui", "from_tui", "meta"})
SCREEN = "codex tui screen record (app_event, insert_history): no conversation content"
KEYS = "codex tui key press that typed no prompt"
LOG = "codex tui log line"
OP = "codex tui op without conversation content: {}"
META = "codex tui session record: {}"
EVENT = "codex tui event without conversation content: {}"
OTHER = "codex tui record of another kind: {}"
# The events that carry conversation content (the others are passed over).
READ_EVENTS = frozenset(
    {
        "session_configured",
        "task_started",
        "agent_message",
        "exec_command_begin",
        "exec_command_end",
        "patch_apply_begin",
        "patch_apply_end",
        "mcp_tool_call_begin",
        "mcp_tool_call_end",
    }
)

_KEY = re.compile(
    r"^KeyEvent \{ code: (?:Char\('((?:\\.|[^'\\])+)'\)|(\w+)), "
    r"modifiers: KeyModifiers\(([^)]*)\), kind: (\w+)"
)
_ESCAPES = {"\\'": "'", '\\"': '"', "\\\\": "\\", "\\n": "\n", "\\t": "\t", "\\r": "\r"}
_TYPING = ("0x0", "SHIFT")  # modifiers of keys that type text


def looks_like(record: Any) -> int:
    if not isinstance(record, dict) or not isinstance(record.get("kind"), str):
        return 0
    return 3 if record.get("dir") in DIRECTIONS and "ts" in record else 0


def read(path: Path, source: str) -> ReadResult:
    """The lines of a recording, as ``json_lines`` would give them (blank lines skipped, a bad
    line one reject), walked here: nine lines in ten are the screen's records or the deltas of
    events, passed over with no more than a look at their kind."""
    result = ReadResult()
    recording = Recording(source, result, Path(plain_name(path)).stem)
    rejects, passed, feed = result.rejects, result.passed_over, recording.feed
    events: dict[str, str] = {}  # event type -> the reason its events are passed over for
    loads, bad_json = orjson.loads, orjson.JSONDecodeError
    number = next_offset = 0  # the offset of the line after the current one
    with open_bytes(path) as handle:
        try:
            for number, raw in enumerate(handle, 1):
                next_offset += len(raw)
                line = raw[3:] if number == 1 and raw.startswith(b"\xef\xbb\xbf") else raw
                if line.isspace() or not line:
                    continue
                try:
                    record = loads(line)
                except bad_json as exc:
                    offset = next_offset - len(raw)
                    rejects.append(bad_line(source, number, offset, line, exc))
                    continue
                kind = record.get("kind") if isinstance(record, dict) else None
                if kind == "app_event" or kind == "insert_history":
                    passed[SCREEN] = passed.get(SCREEN, 0) + 1
                    continue
                if kind == "codex_event":
                    payload = record.get("payload")
                    message = payload.get("msg") if isinstance(payload, dict) else None
                    name = message.get("type") if isinstance(message, dict) else None
                    if isinstance(name, str) and name and name not in READ_EVENTS:
                        reason = events.get(name)
                        if reason is None:
                            reason = events[name] = EVENT.format(name)
                        passed[reason] = passed.get(reason, 0) + 1
                        continue
                feed(record, number)
        except STREAM_ERRORS as exc:
            rejects.append(broken_stream(source, number + 1, exc, next_offset))
    recording.finish()
    return result


class Prompt:
    """The person's prompt as it is typed into the composer, key by key."""

    def __init__(self) -> None:
        self.text = ""
        self.keys = 0  # key presses that typed the text so far
        self.sure = True  # False once the cursor moved or history was recalled
        self.line = 0
        self.submitted: list[tuple[str | None, int, int]] = []  # (text or None, line, keys)

    def key(self, event: str, line: int) -> bool:
        """Apply one key event; True when it was a key that typed (or submitted) the prompt."""
        match = _KEY.match(event)
        if match is None or match.group(4) != "Press":
            return False
        char, code, modifiers = match.group(1), match.group(2), match.group(3)
        if char is not None and modifiers in _TYPING:
            self.text += _unescape(char)
        elif char in ("c", "C") and "CONTROL" in modifiers:
            self.text, self.sure = "", True  # Ctrl-C clears the composer
            return False
        elif code == "Backspace" and self.text:
            self.text = self.text[:-1]
        elif code == "Enter" and modifiers == "SHIFT" and self.text:
            self.text += "\n"
        elif code == "Enter":
            return self._submit(line)
        elif code in ("Up", "Down") or self.text:
            self.sure = False  # a recalled entry, or an edit in the middle of the text
            return False
        else:
            return False
        self.keys += 1
        self.line = line
        return True

    def _submit(self, line: int) -> bool:
        text, keys, sure = self.text, self.keys, self.sure
        self.text, self.keys, self.sure = "", 0, True
        if text.startswith("/") or (not text and sure):
            return False  # a slash command, or Enter in a dialog (an approval)
        self.submitted.append((text if sure else None, line, keys + 1))
        return True

    def take(self) -> tuple[str | None, int, int] | None:
        """The prompt submitted last, with the keys that typed it; None when none was."""
        if not self.submitted:
            return None
        taken = self.submitted[-1]
        self.submitted.clear()
        return taken


class Recording:
    """The records of one TUI recording, fed in order, into one conversation per session."""

    def __init__(self, source: str, result: ReadResult, default_id: str):
        self.source = source
        self.result = result
        self.default_id = default_id
        self.conversation: Conversation | None = None
        self.prompt = Prompt()
        self.typed = 0  # key presses that typed a prompt not yet placed in a conversation
        self.op_prompt: tuple[str, int] | None = None
        self.calls: dict[str, ToolCall] = {}

    def feed(self, record: Any, line: int) -> None:
        if not isinstance(record, dict) or not isinstance(record.get("kind"), str):
            self._reject(line, "TUI record without a kind", record)
            return
        kind = record["kind"]
        if kind == "codex_event":
            payload = record.get("payload")
            message = payload.get("msg") if isinstance(payload, dict) else None
            if not isinstance(message, dict):
                self._reject(line, "codex_event without a msg object", record)
                return
            self._event(message, line, record)
        elif kind in ("app_event", "insert_history"):
            self.result.pass_over(SCREEN)
        elif kind == "key_event":
            event = record.get("event")
            if isinstance(event, str) and self.prompt.key(event, line):
                self.typed += 1
            else:
                self.result.pass_over(KEYS)
        elif kind == "op":
            self._op(record, line)
        elif kind == "log_line":
            self.result.pass_over(LOG)
        elif record.get("dir") == "meta":
            self.result.pass_over(META.format(kind))
        else:
            self.result.pass_over(OTHER.format(kind))

    def finish(self) -> None:
        if self.typed:  # typed, never sent to the agent
            self.result.pass_over(KEYS, self.typed)
            self.typed = 0

    # -- ops and events
    def _op(self, record: dict[str, Any], line: int) -> None:
        payload = record.get("payload")
        kind = payload.get("type") if isinstance(payload, dict) else None
        if kind in ("user_input", "user_turn") and isinstance(payload, dict):
            items = payload.get("items")
            texts = [
                item["text"]
                for item in (items if isinstance(items, list) else [])
                if isinstance(item, dict) and isinstance(item.get("text"), str)
            ]
            if texts:
                self.op_prompt = ("\n".join(texts), line)
                return
        self.result.pass_over(OP.format(kind if isinstance(kind, str) else "(no type)"))

    def _event(self, event: dict[str, Any], line: int, record: dict[str, Any]) -> None:
        kind = event.get("type")
        name = kind if isinstance(kind, str) and kind else "(no type)"
        if name not in READ_EVENTS:  # most events (deltas, token counts): no time is needed
            self.result.pass_over(EVENT.format(name))
            return
        when = moment(record.get("ts"))
        if kind == "session_configured":
            self._start(event.get("session_id"), line, when)
            self.result.pass_over(EVENT.format(name))
        elif kind == "task_started":
            if self._turn(line, when) != line:
                self.result.pass_over(EVENT.format(name))
        elif kind == "agent_message" and isinstance(event.get("message"), str):
            text = event["message"]
            self._add(
                Message(
                    role="assistant",
                    line=line,
                    timestamp=when,
                    parts=[TextPart(text=text, line=line)],
                )
            )
        elif kind == "exec_command_begin":
            arguments = {key: event[key] for key in ("command", "cwd") if key in event}
            self._call(event, "shell", arguments, None, line, when)
        elif kind == "exec_command_end":
            self._exec_end(event, line, when)
        elif kind == "patch_apply_begin":
            self._call(event, "apply_patch", {"changes": event.get("changes")}, None, line, when)
        elif kind == "patch_apply_end":
            self._patch_end(event, line, when)
        elif kind == "mcp_tool_call_begin":
            invocation = event.get("invocation")
            invocation = invocation if isinstance(invocation, dict) else {}
            tool, server = invocation.get("tool"), invocation.get("server")
            self._call(
                event,
                tool if isinstance(tool, str) else "",
                invocation.get("arguments"),
                server if isinstance(server, str) else None,
                line,
                when,
            )
        elif kind == "mcp_tool_call_end":
            self._mcp_end(event, line, when)
        else:
            self.result.pass_over(EVENT.format(name))

    # -- conversations and turns
    def _start(self, session: Any, line: int, when: Any) -> None:
        name = session if isinstance(session, str) and session else self.default_id
        if self.conversation is not None and self.conversation.id == name:
            return
        self.conversation = Conversation(
            id=name, source=self.source, format=NAME, line=line, timestamp=when
        )
        self.conversation.metadata["session"] = name
        self.result.conversations.append(self.conversation)

    def _turn(self, line: int, when: Any) -> int:
        """A task started: the person's prompt, as typed, opens the turn (at the line where it
        was submitted, returned; the task's own line when nothing was)."""
        text: str | None = None
        where = line
        if self.op_prompt is not None:
            text, where = self.op_prompt
            self.op_prompt = None
            taken = self.prompt.take()
            if taken is not None:
                self.result.pass_over(KEYS, taken[2])
                self.typed -= taken[2]
        else:
            taken = self.prompt.take()
            if taken is not None:
                text, where, keys = taken
                self.typed -= keys
                if text is None:
                    self.result.pass_over(KEYS, keys)
        parts = [TextPart(text=text, line=where)] if text else []
        self._add(Message(role="user", line=where, from_person=True, parts=parts, timestamp=when))
        return where

    def _add(self, message: Message) -> None:
        if self.conversation is None:
            self._start(None, message.line, message.timestamp)
        assert self.conversation is not None
        self.conversation.messages.append(message)

    # -- calls and results
    def _call(
        self,
        event: dict[str, Any],
        name: str,
        arguments: Any,
        server: str | None,
        line: int,
        when: Any,
    ) -> None:
        call_id = event.get("call_id")
        if not isinstance(call_id, str) or not call_id or not name:
            self._reject(line, f"{event.get('type')} without call_id or tool", event)
            return
        call = ToolCall(id=call_id, name=name, arguments=arguments, server=server, line=line)
        self.calls[call_id] = call
        self._add(Message(role="assistant", line=line, parts=[call], timestamp=when))

    def _result(self, event: dict[str, Any], line: int, when: Any, **fields: Any) -> None:
        call_id = event.get("call_id")
        if not isinstance(call_id, str) or not call_id:
            self._reject(line, f"{event.get('type')} without call_id", event)
            return
        result = ToolResult(call_id=call_id, line=line, pointer="/payload/msg", **fields)
        self._add(Message(role="tool", line=line, parts=[result], timestamp=when))

    def _exec_end(self, event: dict[str, Any], line: int, when: Any) -> None:
        text, key = exec_end_text(event)
        code = exit_code_of(event)
        self._result(
            event,
            line,
            when,
            content=content_blocks(text) or text,
            content_key=key,
            is_error=None if code is None else code != 0,
            flag_key="exit_code",
        )

    def _patch_end(self, event: dict[str, Any], line: int, when: Any) -> None:
        text, key = exec_end_text(event)
        success = event.get("success")
        self._result(
            event,
            line,
            when,
            content=text,
            content_key=key,
            is_error=(not success) if isinstance(success, bool) else None,
            flag_key="success",
        )

    def _mcp_end(self, event: dict[str, Any], line: int, when: Any) -> None:
        outcome = event.get("result")
        if isinstance(outcome, dict) and "Err" in outcome:
            error = outcome["Err"]
            self._result(
                event,
                line,
                when,
                content=error,
                content_key="result/Err",
                is_error=True,
                flag_key="result/Err",
            )
            return
        value = outcome.get("Ok") if isinstance(outcome, dict) else outcome
        value = value if isinstance(value, dict) else {}
        flag = value.get("isError", value.get("is_error"))
        structured_key = (
            "structuredContent" if "structuredContent" in value else "structured_content"
        )
        self._result(
            event,
            line,
            when,
            content=value.get("content"),
            content_key="result/Ok/content",
            is_error=flag if isinstance(flag, bool) else None,
            flag_key="result/Ok/isError",
            structured=value.get(structured_key),
            has_structured=structured_key in value,
            structured_key=f"result/Ok/{structured_key}",
        )

    def _reject(self, line: int, reason: str, value: Any) -> None:
        self.result.rejects.append(
            Reject(source=self.source, line=line, reason=reason, excerpt=excerpt(value))
        )


def _unescape(char: str) -> str:
    """A character as Rust's Debug writes it (``'\\''``, ``'\\u{e9}'``) back to itself."""
    if not char.startswith("\\"):
        return char
    if char.startswith("\\u{") and char.endswith("}"):
        try:
            return chr(int(char[3:-1], 16))
        except ValueError:
            return ""
    return _ESCAPES.get(char, char[1:])
