"""The autopilot runner's own trajectories: one pretty-printed ``.json`` document per run.

``{session_id, prompt, model, cwd, ..., steps: [...], result, usage}``. The ``prompt`` is the
person's request (it starts the one turn). Each step has ``step_id``, ``timestamp`` and a
``type``:

- ``assistant``: ``content``, text the assistant wrote;
- ``tool_call``: ``tool``, ``tool_id``, ``input``;
- ``tool_result``: ``tool_id``, ``success`` (false when the tool failed: the failure flag),
  ``output`` (a string, sometimes absent);
- ``thinking``, ``system_init``, ``system_status``: no conversation content, passed over and
  counted by type (thinking is never shown to the person); unknown types likewise.

Steps of one model response carry the same ``tokens_in`` / ``tokens_cached``; consecutive
assistant-side steps with the same values form one assistant message. Sub-agents are not
marked: the steps that follow a ``Task`` call in later responses, until its result, are the
sub-agent's and go to a conversation of their own, ``<session_id>/<Task call id>`` (the rule of
``claude_code.Transcripts``), whose request is the Task's prompt and whose reply is the Task's
result.

``line`` is the line each step's object starts on; evidence pointers start at the document
root (``/steps/12/output``). A damaged document is read up to the damaged step, with a reject.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import orjson

from auditor.model import Message, Reject, TextPart, ToolCall, ToolResult
from auditor.readers.claude_code import UNMARKED, Transcripts
from auditor.readers.conversations import conversation_id
from auditor.readers.json_stream import json_items
from auditor.readers.result import ReadResult, excerpt
from auditor.readers.sampling import Sample
from auditor.readers.stamps import record_moment
from auditor.readers.streams import plain_name, read_text

NAME = "runner_steps"
DESCRIPTION = "autopilot runner trajectories: {session_id, prompt, steps: [tool_call, tool_result]}"
READS_SPANS = False
looks_like = None  # recognised from the whole sample, by sniff

STEP_TYPES = ("system_init", "system_status", "assistant", "thinking", "tool_call", "tool_result")
_STEP_TYPE = re.compile(r'"type"\s*:\s*"(' + "|".join(STEP_TYPES) + r')"')
_STEPS = re.compile(r'"steps"\s*:\s*\[')
_PROMPT = re.compile(r'^[ \t]*"prompt"\s*:', re.M)
_DECODER = json.JSONDecoder()
NO_CONTENT = "runner step without conversation content: {}"


def sniff(sample: Sample) -> int:
    if not sample.looks_like_json_document() or not sample.text.lstrip().startswith("{"):
        return 0
    text = sample.text
    if not _STEPS.search(text) or '"step_id"' not in text:
        return 0
    kinds = set(_STEP_TYPE.findall(text))
    if not kinds & {"tool_call", "tool_result", "assistant", "system_init"}:
        return 0
    return 10 + len(kinds)


def read(path: Path, source: str) -> ReadResult:
    result = ReadResult()
    text = read_text(path, source, result.rejects)
    if text is None:
        return result
    head, problem = _top_level(text)
    item_rejects: list[Reject] = []
    steps = list(json_items(text, source, item_rejects, "steps"))
    result.rejects.extend(item_rejects)
    if problem is not None and not item_rejects:
        result.rejects.append(Reject(source=source, line=problem[0], reason=problem[1]))
    if problem is None and not isinstance(head.get("steps"), list):
        result.rejects.append(
            Reject(source=source, line=1, reason="runner trajectory without a steps list")
        )
        return result
    session = conversation_id(head, plain_name(path), 1)
    transcripts = Transcripts(source, NAME, result)
    prompt = head.get("prompt")
    if isinstance(prompt, str) and prompt.strip():
        match = _PROMPT.search(text)
        line = text.count("\n", 0, match.start()) + 1 if match else 1
        transcripts.add(
            session,
            Message(
                role="user", line=line, from_person=True, parts=[TextPart(text=prompt, line=line)]
            ),
        )
    _Steps(source, session, transcripts, result).read(steps)
    transcripts.finish()
    return result


class _Steps:
    """Steps into messages: assistant-side steps of one response grouped, each result alone."""

    def __init__(self, source: str, session: str, transcripts: Transcripts, result: ReadResult):
        self.source = source
        self.session = session
        self.transcripts = transcripts
        self.result = result
        self.pending: Message | None = None  # the assistant message being gathered
        self.pending_key: Any = None

    def read(self, steps: list[tuple[int, str, Any]]) -> None:
        for line, pointer, step in steps:
            self.step(line, pointer, step)
        self.flush()

    def step(self, line: int, pointer: str, step: Any) -> None:
        if not isinstance(step, dict):
            self.reject(line, "runner step is not an object", step)
            return
        kind = step.get("type")
        if kind == "assistant":
            content = step.get("content")
            if not isinstance(content, str):
                self.reject(line, "assistant step without text content", step)
                return
            self.assistant(step, line).parts.append(TextPart(text=content, line=line))
        elif kind == "tool_call":
            call_id, name = step.get("tool_id"), step.get("tool")
            if not _is_id(call_id) or not isinstance(name, str):
                self.reject(line, "tool call step without a tool_id or tool name", step)
                return
            call = ToolCall(id=str(call_id), name=name, arguments=step.get("input"), line=line)
            self.assistant(step, line).parts.append(call)
        elif kind == "tool_result":
            self.tool_result(line, pointer, step)
        elif kind in STEP_TYPES:
            self.result.pass_over(NO_CONTENT.format(kind))
        else:
            name = kind if isinstance(kind, str) and kind else "(no type)"
            self.result.pass_over(f"runner step of unknown type: {name}")

    def assistant(self, step: dict[str, Any], line: int) -> Message:
        """The assistant message this step belongs to (a new one when the response changed)."""
        key = (step.get("tokens_in"), step.get("tokens_cached"))
        known = None not in key
        if self.pending is None or (
            known and self.pending_key is not None and key != self.pending_key
        ):
            self.flush()
            step_id = step.get("step_id")
            self.pending = Message(
                role="assistant",
                line=line,
                message_id=f"step-{step_id if _is_id(step_id) else line}",
                timestamp=record_moment(step),
            )
        if known:
            self.pending_key = key
        return self.pending

    def tool_result(self, line: int, pointer: str, step: dict[str, Any]) -> None:
        call_id = step.get("tool_id")
        if not _is_id(call_id):
            self.reject(line, "tool result step without a tool_id", step)
            return
        self.flush()
        success = step.get("success")
        result = ToolResult(
            call_id=str(call_id),
            line=line,
            pointer=pointer,
            is_error=(not success) if isinstance(success, bool) else None,
            content=step.get("output"),
            content_key="output",
            flag_key="success",
        )
        message = Message(role="tool", line=line, parts=[result], timestamp=record_moment(step))
        self.transcripts.add(self.session, message, UNMARKED)

    def flush(self) -> None:
        if self.pending is not None and self.pending.parts:
            self.transcripts.add(self.session, self.pending, UNMARKED)
        self.pending, self.pending_key = None, None

    def reject(self, line: int, reason: str, value: Any) -> None:
        self.result.rejects.append(
            Reject(source=self.source, line=line, reason=reason, excerpt=excerpt(value))
        )


def _is_id(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool) and str(value) != ""


def _top_level(text: str) -> tuple[dict[str, Any], tuple[int, str] | None]:
    """The document's top-level object, or when it is damaged the members before the damage,
    with ``(line, reason)`` of the damage."""
    try:
        document = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        line = text.count("\n", 0, exc.pos) + 1
        return _members_before_damage(text), (line, f"malformed JSON document: {exc.msg}")
    if not isinstance(document, dict):
        return {}, (1, "runner trajectory is not a JSON object")
    return document, None


def _members_before_damage(text: str) -> dict[str, Any]:
    members: dict[str, Any] = {}
    position = _space(text, 0)
    if text[position : position + 1] != "{":
        return members
    position += 1
    while True:
        position = _space(text, position)
        try:
            key, position = _DECODER.raw_decode(text, position)
            position = _space(text, position)
            if text[position : position + 1] != ":" or not isinstance(key, str):
                return members
            value, position = _DECODER.raw_decode(text, _space(text, position + 1))
        except ValueError:
            return members
        members[key] = value
        position = _space(text, position)
        if text[position : position + 1] != ",":
            return members
        position += 1


def _space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position
