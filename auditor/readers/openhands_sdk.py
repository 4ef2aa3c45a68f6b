"""OpenHands software-agent-sdk (V1) events: evaluation ``output.jsonl`` records and saved event
arrays.

An evaluation (OpenHands/benchmarks) writes one record per line, ``{instance_id, instruction,
metadata, history, test_result, error, ...}``, whose ``history`` holds the conversation's events,
each ``{kind, id, timestamp, source, ...}``:

- ``MessageEvent``: ``llm_message {role, content: [{type: text, text}]}``, the person's text
  (``source: user``) or the assistant's;
- ``ActionEvent``: a tool call, ``tool_call_id``, ``tool_name``, ``tool_call.arguments`` (a JSON
  string; else the ``action`` without its ``kind``), with the assistant's ``thought`` (text
  blocks) in the same message; calls of one model response share ``llm_response_id``. A
  ``FinishAction`` (``finish``) is the assistant's closing text (its ``message``), not a call:
  it ends the run, and its ``FinishObservation`` only repeats that message (passed over);
- ``ObservationEvent``: the result of the call with its ``tool_call_id``. Content is the
  observation's ``output`` (``ExecuteBashObservation``, ``FileEditorObservation``,
  ``BrowserObservation``), ``content`` (``ThinkObservation``, and newer SDKs' text blocks) or the
  error text, without terminal codes (bash output is wrapped in bracketed-paste mode switches,
  ``ESC[?2004l`` ... ``ESC[?2004h``). Failure (``is_error``): ``observation.error`` (a message
  for the file editor and the browser, ``true`` for bash, whose message is then the ``output``),
  newer SDKs' ``is_error``, or ``observation.metadata.exit_code`` other than 0 (the top-level
  ``exit_code`` is null there), read by ``shell_exits.command_failed`` (``grep`` finding nothing,
  exit 1, is no failure; ``-1``, still running, no verdict). An observation whose ``error`` field
  is null and that has no exit status did not fail (``False``); without either field, no flag;
- ``AgentErrorEvent`` (the SDK could not run the model's tool call) and
  ``UserRejectObservation`` (the person refused it): the call failed, with its ``error`` /
  ``rejection_reason``; the call is made from ``tool_name`` when no action was recorded;
- ``SystemPromptEvent``: the system prompt. Other kinds (condensation, pauses, state updates)
  carry no conversation: passed over and counted by kind.

Calls whose observation never came (the run stopped) stay without a result. The evaluation's
``instruction`` is the person's request when the history opens with no user message; a record
with an empty history (the run produced no events) is passed over and counted.

- conversation id: ``instance_id`` (as in ``openhands``); a bare event array is one
  conversation named after its file;
- ``line``: the record's line (an event's own line in a bare array);
- pointers: ``/history/<i>`` (``/<i>`` in a bare array); content under ``observation/output``
  (or the field it came from), the flag under ``observation/error`` or
  ``observation/metadata/exit_code``.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from auditor.model import Conversation, TextPart, ToolCall, ToolResult
from auditor.readers.conversations import as_text, decode_arguments
from auditor.readers.lines import Span
from auditor.readers.openhands import RECORD_SCORE, add_message, read_evaluations, reject
from auditor.readers.protocol import LIKELY, SURE
from auditor.readers.result import ReadResult
from auditor.readers.sampling import Sample
from auditor.readers.shell_exits import command_failed, without_terminal_codes
from auditor.readers.stamps import record_moment

NAME = "openhands_sdk"
DESCRIPTION = (
    "OpenHands software-agent-sdk (V1) events in evaluation records (ActionEvent, "
    "ObservationEvent, MessageEvent)"
)
READS_SPANS = True  # one evaluation record per line: large files are read in parts
looks_like = None  # recognised from the whole sample, by sniff

EVENT_KINDS = frozenset(
    {
        "MessageEvent", "ActionEvent", "ObservationEvent", "AgentErrorEvent",
        "UserRejectObservation", "SystemPromptEvent", "PauseEvent", "Condensation",
        "CondensationRequest", "CondensationSummaryEvent", "ConversationStateUpdateEvent",
    }
)  # fmt: skip
FINISH_TOOLS = frozenset({"finish"})
_EVENT_HEAD = re.compile(r'"kind"\s*:\s*"(?:ActionEvent|ObservationEvent)"')
NO_CONTENT = "openhands sdk event without conversation content: {}"
FINISH_REPEATED = "openhands sdk finish observation (repeats the closing message)"
# Where an observation keeps its text, in the order looked at.
TEXT_KEYS = ("output", "content", "message", "text")


# ----------------------------------------------------------------------------- detection
def is_event(value: Any) -> bool:
    return isinstance(value, dict) and value.get("kind") in EVENT_KINDS


def is_record(record: Any) -> bool:
    """An evaluation record whose history is SDK events."""
    if not isinstance(record, dict) or not isinstance(record.get("history"), list):
        return False
    history = record["history"]
    return bool(history) and all(is_event(event) for event in history[:5])


def sniff(sample: Sample) -> int:
    if not sample.looks_like_json_document():
        return sum(RECORD_SCORE for record in sample.records if is_record(record))
    first = sample.records[0] if sample.records else None
    if first is not None:
        if isinstance(first, list):
            return SURE if first and (is_event(first[0]) or is_record(first[0])) else 0
        return SURE if is_record(first) else 0
    head = sample.text.lstrip("\ufeff \t\r\n")
    if not _EVENT_HEAD.search(head):
        return 0
    return SURE if head.startswith("[") else LIKELY


# ----------------------------------------------------------------------------- reading
def read(path: Path, source: str, span: Span | None = None) -> ReadResult:
    return read_evaluations(path, source, span, NAME, _Events)


class _Events:
    """The events of one conversation, fed in order."""

    def __init__(self, conversation: Conversation, result: ReadResult):
        self.conversation = conversation
        self.result = result
        self.calls: dict[str, Any] = {}  # call id -> its arguments
        self.finishes: set[str] = set()  # call ids of finish actions (read as text)
        self.first_moment: datetime | None = None

    def feed(self, event: Any, where: str, index: int, line: int) -> None:
        if not isinstance(event, dict):
            self._reject(line, f"event is not an object at {where}", event)
            return
        moment = record_moment(event)
        if self.first_moment is None:
            self.first_moment = moment
        kind = event.get("kind")
        if kind == "MessageEvent":
            self._message(event, line, moment)
        elif kind == "ActionEvent":
            self._action(event, where, line, moment)
        elif kind == "ObservationEvent":
            self._observation(event, where, line, moment)
        elif kind in ("AgentErrorEvent", "UserRejectObservation"):
            self._refused(event, kind, where, line, moment)
        elif kind == "SystemPromptEvent":
            prompt = event.get("system_prompt")
            text = prompt.get("text") if isinstance(prompt, dict) else prompt
            self._add("system", [TextPart(text=_text(text), line=line)], line)
        else:
            name = kind if isinstance(kind, str) and kind else "(no kind)"
            self.result.pass_over(NO_CONTENT.format(name))

    # -- text
    def _message(self, event: dict[str, Any], line: int, moment: Any) -> None:
        message = event.get("llm_message")
        if not isinstance(message, dict):
            self._reject(line, "message event without llm_message", event)
            return
        text = _text(message.get("content"))
        if message.get("role") == "assistant" or event.get("source") == "agent":
            self._add("assistant", [TextPart(text=text, line=line)], line, moment=moment)
        else:
            person = event.get("source") == "user" and message.get("role") == "user"
            parts = [TextPart(text=text, line=line)]
            self._add("user", parts, line, from_person=person, moment=moment)

    # -- calls
    def _action(self, event: dict[str, Any], where: str, line: int, moment: Any) -> None:
        call_id, name = event.get("tool_call_id"), event.get("tool_name")
        action = event.get("action") if isinstance(event.get("action"), dict) else {}
        if not _is_id(call_id) or not isinstance(name, str) or not name:
            self._reject(line, f"action without a tool call id or tool name at {where}", event)
            return
        call_id = str(call_id)
        parts: list[TextPart | ToolCall] = []
        thought = _text(event.get("thought"))
        if thought.strip():
            parts.append(TextPart(text=thought, line=line))
        response = event.get("llm_response_id")
        response = response if isinstance(response, str) and response else None
        if name in FINISH_TOOLS or action.get("kind") == "FinishAction":
            closing = _text(action.get("message"))
            if closing.strip() and closing.strip() != thought.strip():
                parts.append(TextPart(text=closing, line=line))
            self.finishes.add(call_id)
            if parts:
                self._add("assistant", parts, line, message_id=response, moment=moment)
            else:
                self.result.pass_over(NO_CONTENT.format("FinishAction without text"))
            return
        arguments = _arguments(event, action)
        parts.append(ToolCall(id=call_id, name=name, arguments=arguments, line=line))
        self._add("assistant", parts, line, message_id=response, moment=moment)
        self.calls[call_id] = arguments

    def _call_for(self, event: dict[str, Any], line: int, moment: Any) -> str | None:
        """The id of the call an event answers; a call made from the event's ``tool_name``
        when no action recorded it (the SDK refused the model's call before running it)."""
        call_id = event.get("tool_call_id")
        if not _is_id(call_id):
            return None
        call_id = str(call_id)
        if call_id not in self.calls and call_id not in self.finishes:
            name = event.get("tool_name")
            name = name if isinstance(name, str) and name else "invalid_tool_call"
            self._add(
                "assistant",
                [ToolCall(id=call_id, name=name, arguments={}, line=line)],
                line,
                moment=moment,
            )
            self.calls[call_id] = {}
        return call_id

    # -- results
    def _observation(self, event: dict[str, Any], where: str, line: int, moment: Any) -> None:
        observation = event.get("observation")
        if not isinstance(observation, dict):
            self._reject(line, f"observation event without an observation at {where}", event)
            return
        if str(event.get("tool_call_id")) in self.finishes:
            self.result.pass_over(FINISH_REPEATED)
            return
        call_id = self._call_for(event, line, moment)
        if call_id is None:
            self._reject(line, f"observation without a tool call id at {where}", event)
            return
        content, content_key = _content(observation)
        is_error, flag_key = _failure(observation, self.calls.get(call_id))
        result = ToolResult(
            call_id=call_id,
            line=line,
            pointer=where,
            is_error=is_error,
            content=content,
            content_key=content_key,
            flag_key=flag_key,
        )
        self._add("tool", [result], line, moment=moment)

    def _refused(
        self, event: dict[str, Any], kind: str, where: str, line: int, moment: Any
    ) -> None:
        call_id = self._call_for(event, line, moment)
        if call_id is None:
            self._reject(line, f"{kind} without a tool call id at {where}", event)
            return
        key = "error" if kind == "AgentErrorEvent" else "rejection_reason"
        result = ToolResult(
            call_id=call_id,
            line=line,
            pointer=where,
            is_error=True,
            content=_text(event.get(key)),
            content_key=key,
            flag_key="kind",
        )
        self._add("tool", [result], line, moment=moment)

    def _reject(self, line: int, reason: str, value: Any) -> None:
        reject(self.result, self.conversation.source, line, reason, value)

    def _add(
        self,
        role: Literal["user", "assistant", "system", "tool"],
        parts: list[Any],
        line: int,
        **details: Any,
    ) -> None:
        """``add_message`` to this conversation (``from_person``, ``message_id``, ``moment``)."""
        add_message(self.conversation, role, parts, line, **details)


def _arguments(event: dict[str, Any], action: dict[str, Any]) -> Any:
    """The arguments the model sent (``tool_call.arguments``), else the action's fields."""
    call = event.get("tool_call")
    if isinstance(call, dict) and call.get("arguments") is not None:
        return decode_arguments(call["arguments"])
    return {key: value for key, value in action.items() if key != "kind"}


def _content(observation: dict[str, Any]) -> tuple[Any, str]:
    """What an observation says, and the pointer (from the event) of the field it is in: its
    text, else its error message."""
    for key in TEXT_KEYS:
        value = observation.get(key)
        if isinstance(value, str) and value.strip():
            return without_terminal_codes(value), f"observation/{key}"
        if isinstance(value, list) and value:
            return _clean_blocks(value), f"observation/{key}"
    error = observation.get("error")
    if isinstance(error, str) and error.strip():
        return error, "observation/error"
    return observation.get("output", ""), "observation/output"


def _clean_blocks(blocks: list[Any]) -> list[Any]:
    return [
        {**block, "text": without_terminal_codes(block["text"])}
        if isinstance(block, dict) and isinstance(block.get("text"), str)
        else block
        for block in blocks
    ]


def _failure(observation: dict[str, Any], arguments: Any) -> tuple[bool | None, str]:
    """The observation's failure flag and the pointer of the field that holds it."""
    error = observation.get("error")
    if error is True or (isinstance(error, str) and error.strip()):
        return True, "observation/error"
    if observation.get("is_error") is True:
        return True, "observation/is_error"
    metadata = observation.get("metadata")
    code = metadata.get("exit_code") if isinstance(metadata, dict) else None
    key = "observation/metadata/exit_code"
    if code is None and observation.get("exit_code") is not None:
        code, key = observation["exit_code"], "observation/exit_code"
    if code is not None:
        command = observation.get("command")
        if not isinstance(command, str) and isinstance(arguments, dict):
            command = arguments.get("command")
        return command_failed(code, command), key
    if "error" in observation:
        return False, "observation/error"
    if isinstance(observation.get("is_error"), bool):
        return False, "observation/is_error"
    return None, "observation/error"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else as_text(value)


def _is_id(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool) and str(value) != ""
