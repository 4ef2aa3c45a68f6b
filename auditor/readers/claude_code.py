"""Claude Code sessions: ``~/.claude/projects/**.jsonl`` and ``claude -p`` stream-json output.

One event per line. Assistant content is streamed one block per line, the lines of one message
sharing ``message.id``; tool results come back in ``user`` lines. Three spellings are read:

- the projects JSONL: ``sessionId``, ``isSidechain`` / ``agentId``, ``isMeta``,
  ``isCompactSummary``, ``toolUseResult``;
- the ``claude -p --output-format stream-json`` stream: ``session_id``, ``parent_tool_use_id``,
  ``tool_use_result``, ``system`` (``init``, ``status``, ``compact_boundary``) and ``result``
  events;
- the same stream as a runner stored it, each event wrapped as ``{type, message, timestamp}``:
  the session id of ``system`` and ``result`` events sits inside ``message``, and the
  sub-agent markers are gone.

Sessions: every event names its session, or belongs to the session of the event before it; a
file that holds several sessions yields one conversation per session id.

Sub-agents (``Task`` / ``Agent`` calls) get their own conversations, never the main one's turns:
``<session>/<agentId>`` for ``isSidechain`` lines, ``<session>/<Task call id>`` for
``parent_tool_use_id`` events. Where the markers are missing (the wrapped stream, the runner's
own trajectories), an assistant message that starts while a Task call is open (its result not
yet back) and that is not the message holding that call belongs to the sub-agent, and so does
a user text equal to the Task's prompt; tool results go to the conversation that holds their
call. When a sub-agent's conversation lacks its request or its final report (the stream only
carries its tool calls), the Task call's ``prompt`` becomes its request and the Task's result
its report, so its calls are judged by what it told the main agent.

Not a person: ``isMeta`` lines (their text is dropped), the compaction summary that follows a
``compact_boundary`` event or carries ``isCompactSummary``, and user lines that only carry tool
results. Events without conversation content (``system``, ``result``, ``summary``,
``file-history-snapshot``, ``progress`` and any new type) are passed over and counted by type.

Turns: a ``result`` event ends a ``claude -p`` run, and an ``init`` inside a conversation starts
another; the new run's prompt is not in the stream, so an empty message of the person's (at the
line of that event) marks where the new turn starts.

Missing results: a call that has no result although a later assistant message exists is, as the
spec says, a call with no result before the assistant spoke again (``transport_error``). In a
log with embedded events (the log-line reader), where a line can be lost on the way, such a
call lost its result line instead: it is taken out and rejected (``tool result missing from the
log``). A call at the very end of a run keeps its missing result (``cut_off``).

``EventReader`` holds this logic; the log-line reader feeds it the events it cuts out of logs.
``Transcripts`` (conversations per session, sub-agent routing) is shared with the runner's
trajectory reader.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeAlias

from auditor.model import Conversation, Message, Part, Reject, TextPart, ToolCall, ToolResult
from auditor.readers.anthropic import content_parts
from auditor.readers.conversations import as_text
from auditor.readers.lines import json_lines
from auditor.readers.result import ReadResult, excerpt
from auditor.readers.stamps import record_moment
from auditor.readers.streams import plain_name

NAME = "claude_code"
DESCRIPTION = "Claude Code session JSONL and stream-json output (one event per line)"
READS_SPANS = False
sniff = None  # recognised record by record, by looks_like

EVENT_TYPES = {"user", "assistant", "system", "summary", "result", "file-history-snapshot"}
# Other record types of the projects JSONL, recognised for detection only.
OTHER_TYPES = {"progress", "attachment", "queue-operation", "ai-title"}
SESSION_KEYS = ("sessionId", "session_id")
TASK_TOOLS = frozenset({"Task", "Agent"})
NO_CONTENT = "claude code event without conversation content: {}"
LOST_RESULT = "tool result missing from the log (the assistant went on without it)"


class _Unmarked:
    """The format does not say whether a message is a sub-agent's."""


UNMARKED = _Unmarked()
# Where a message goes: None (the session's own conversation), (conversation suffix, Task call
# id or None) for a marked sub-agent, or UNMARKED.
Sidechain: TypeAlias = tuple[str, str | None] | _Unmarked | None


def looks_like(record: Any) -> int:
    if not isinstance(record, dict) or "messages" in record:
        return 0
    kind = record.get("type")
    if not isinstance(kind, str):
        return 0
    inner = record.get("message")
    if kind in EVENT_TYPES | OTHER_TYPES and any(
        key in record for key in (*SESSION_KEYS, "parentUuid", "uuid")
    ):
        return 3
    if (
        kind in EVENT_TYPES
        and isinstance(inner, dict)
        and any(isinstance(inner.get(key), str) for key in SESSION_KEYS)
    ):
        return 3  # a runner's wrapped system / result event
    if kind in ("user", "assistant") and isinstance(inner, dict):
        return 2
    return 0


def read(path: Path, source: str) -> ReadResult:
    result = ReadResult()
    events = EventReader(source, result, NAME, default_session=Path(plain_name(path)).stem)
    for number, event in json_lines(path, source, result.rejects):
        events.feed(event, number)
    events.finish()
    return result


# ----------------------------------------------------------------------------- conversations
@dataclass
class _Task:
    """A Task (sub-agent) call: what it asked for, and what came back."""

    call_id: str
    session: str
    prompt: str
    line: int
    message_id: str | None
    open: bool = True
    report: str = ""
    report_line: int | None = None


class Transcripts:
    """The conversations of one file: one per session, one per sub-agent run.

    ``add(session, message, sidechain)`` places a message: ``sidechain=None`` in the session's
    own conversation, a string in ``<session>/<sidechain>``, ``UNMARKED`` where the format does
    not mark sub-agents (see the module docstring). ``finish()`` completes sub-agent
    conversations with their request and report.
    """

    def __init__(
        self, source: str, format_name: str, result: ReadResult, loses_lines: bool = False
    ):
        self.source = source
        self.format = format_name
        self.result = result
        self.loses_lines = loses_lines  # a log that can lose lines: a missing result was lost
        self.conversations: dict[str, Conversation] = {}
        self.tasks: dict[str, _Task] = {}
        self.open_tasks: dict[str, list[str]] = defaultdict(list)  # session -> Task ids
        self.owner: dict[str, str] = {}  # tool call id -> conversation id
        self.task_of: dict[str, str] = {}  # sub-agent conversation id -> Task call id

    def add(self, session: str, message: Message, sidechain: Sidechain = None) -> None:
        if isinstance(sidechain, _Unmarked):
            for target, task, placed in self._route(session, message):
                self._append(session, target, placed, task)
        elif sidechain is None:
            self._append(session, session, message, None)
        else:
            suffix, task = sidechain
            self._append(session, f"{session}/{suffix}", message, task)

    def finish(self) -> None:
        if self.loses_lines:
            for conversation in self.conversations.values():
                self._drop_lost_results(conversation)
        for conversation_id, task_id in self.task_of.items():
            task = self.tasks.get(task_id)
            conversation = self.conversations[conversation_id]
            if task is None:
                continue
            messages = conversation.messages
            if task.prompt and not any(m.from_person for m in messages):
                messages.insert(
                    0,
                    Message(
                        role="user",
                        line=task.line,
                        from_person=True,
                        parts=[TextPart(text=task.prompt, line=task.line)],
                    ),
                )
                conversation.line = min(conversation.line, task.line)
            if task.report.strip() and task.report_line is not None and not _spoke_last(messages):
                messages.append(
                    Message(
                        role="assistant",
                        line=task.report_line,
                        message_id=f"{task_id}/report",
                        parts=[TextPart(text=task.report, line=task.report_line)],
                    )
                )

    def _drop_lost_results(self, conversation: Conversation) -> None:
        """In a log that can lose lines, a call with no result and a later assistant message
        lost its result line: it is taken out and rejected, not audited as a call that never
        returned. Calls at the end of a run that stopped keep their missing result."""
        answered = {
            p.call_id for m in conversation.messages for p in m.parts if isinstance(p, ToolResult)
        }
        later: set[str | None] = set()  # ids of the assistant messages after this one
        for message in reversed(conversation.messages):
            if message.role != "assistant":
                continue
            # Lines without a message id may be blocks of this same message: they do not count.
            went_on = bool(later - {message.message_id, None})
            lost = [p for p in message.parts if isinstance(p, ToolCall) and p.id not in answered]
            if went_on and lost:
                message.parts = [p for p in message.parts if not any(p is c for c in lost)]
                for call in lost:
                    self.result.rejects.append(
                        Reject(
                            source=self.source,
                            line=call.line,
                            reason=LOST_RESULT,
                            excerpt=excerpt(f"{call.name} {call.id}"),
                        )
                    )
            later.add(message.message_id)

    # -- placing messages
    def _route(self, session: str, message: Message) -> list[tuple[str, str | None, Message]]:
        """Where an unmarked message goes: ``(conversation id, Task id, message)`` pieces."""
        if any(isinstance(p, ToolResult) for p in message.parts):
            pieces: list[tuple[str, str | None, list[Part]]] = []
            for part in message.parts:
                if isinstance(part, ToolResult):
                    target = self.owner.get(part.call_id, session)
                    where = (target, self.task_of.get(target))
                elif pieces:
                    where = pieces[-1][:2]
                else:
                    where = self._active(session, message.message_id)
                if not pieces or pieces[-1][0] != where[0]:
                    pieces.append((*where, []))
                pieces[-1][2].append(part)
            return [
                (target, task, replace(message, parts=parts, from_person=False))
                for target, task, parts in pieces
            ]
        if message.role == "user":
            text = " ".join(p.text for p in message.parts if isinstance(p, TextPart)).strip()
            for task_id in reversed(self.open_tasks[session]):
                if text and text == self.tasks[task_id].prompt.strip():
                    placed = replace(message, from_person=True)
                    return [(f"{session}/{task_id}", task_id, placed)]
        return [(*self._active(session, message.message_id), message)]

    def _active(self, session: str, message_id: str | None) -> tuple[str, str | None]:
        """The conversation a new unmarked message belongs to: the latest open Task's
        sub-agent, unless the message is the one holding that Task call; else the session."""
        open_tasks = self.open_tasks[session]
        if open_tasks:
            task = self.tasks[open_tasks[-1]]
            if message_id is None or message_id != task.message_id:
                return f"{session}/{task.call_id}", task.call_id
        return session, None

    def _append(
        self, session: str, conversation_id: str, message: Message, task: str | None
    ) -> None:
        conversation = self.conversations.get(conversation_id)
        if conversation is None:
            conversation = Conversation(
                id=conversation_id, source=self.source, format=self.format, line=message.line
            )
            if conversation_id != session:
                conversation.metadata["session"] = session
                if task is not None:
                    conversation.metadata["task_call_id"] = task
                    self.task_of[conversation_id] = task
            self.conversations[conversation_id] = conversation
            self.result.conversations.append(conversation)
        conversation.messages.append(message)
        for part in message.parts:
            if isinstance(part, ToolCall):
                self.owner[part.id] = conversation_id
                if part.name in TASK_TOOLS:
                    self._open_task(session, part, message.message_id)
            elif isinstance(part, ToolResult):
                self._close_task(session, part)

    def _open_task(self, session: str, call: ToolCall, message_id: str | None) -> None:
        arguments = call.arguments if isinstance(call.arguments, dict) else {}
        prompt = arguments.get("prompt")
        self.tasks[call.id] = _Task(
            call_id=call.id,
            session=session,
            prompt=prompt if isinstance(prompt, str) else "",
            line=call.line,
            message_id=message_id,
        )
        self.open_tasks[session].append(call.id)

    def _close_task(self, session: str, result: ToolResult) -> None:
        task = self.tasks.get(result.call_id)
        if task is None or not task.open:
            return
        task.open = False
        task.report = as_text(result.content)
        task.report_line = result.line
        if result.call_id in self.open_tasks[task.session]:
            self.open_tasks[task.session].remove(result.call_id)


def _spoke_last(messages: list[Message]) -> bool:
    """The assistant wrote text after the last tool call or result."""
    for message in reversed(messages):
        for part in reversed(message.parts):
            if isinstance(part, (ToolCall, ToolResult)):
                return False
            if message.role == "assistant" and isinstance(part, TextPart) and part.text.strip():
                return True
    return False


# ----------------------------------------------------------------------------- events
class EventReader:
    """Claude Code events, fed one at a time with the line each starts on, into conversations.

    ``feed`` never raises: an event that is not an object, or a user/assistant event without a
    message object, becomes a reject; events without conversation content are passed over.
    """

    def __init__(
        self,
        source: str,
        result: ReadResult,
        format_name: str = NAME,
        default_session: str = "",
        loses_lines: bool = False,
    ):
        self.source = source
        self.result = result
        self.transcripts = Transcripts(source, format_name, result, loses_lines)
        self.default_session = default_session or source
        self.current: str | None = None
        self.compacted: set[str] = set()  # sessions whose next user text is a summary
        self.new_run: dict[str, int] = {}  # session -> line where a new run (turn) began

    def feed(self, event: Any, line: int) -> None:
        if not isinstance(event, dict):
            self._reject(line, "event is not an object", event)
            return
        kind = event.get("type")
        session = self._session(event, kind)
        if kind not in ("user", "assistant"):
            self._metadata(event, kind, session, line)
            return
        message = event.get("message")
        if not isinstance(message, dict):
            self._reject(line, f"{kind} event without a message object", event)
            return
        parts = content_parts(message.get("content"), line, "/message/content")
        if kind == "user":
            parts = _with_host_results(parts, event)
        meta = event.get("isMeta") is True
        summary = event.get("isCompactSummary") is True
        has_text = any(isinstance(p, TextPart) and p.text.strip() for p in parts)
        if kind == "user" and has_text and session in self.compacted:
            self.compacted.discard(session)
            summary = True
        if kind == "user" and meta:
            parts = [p for p in parts if not isinstance(p, TextPart)]
        message_id = message.get("id") if kind == "assistant" else None
        from_person = kind == "user" and has_text and not meta and not summary
        sidechain = _sidechain(event)
        began = None if isinstance(sidechain, tuple) else self.new_run.pop(session, None)
        if began is not None and not from_person:
            # The run's prompt is not in the stream: an empty message of the person's marks
            # where the new turn starts.
            self.transcripts.add(
                session, Message(role="user", line=began, from_person=True, parts=[]), None
            )
        self.transcripts.add(
            session,
            Message(
                role=kind,
                line=line,
                parts=parts,
                from_person=from_person,
                message_id=message_id if isinstance(message_id, str) else None,
                timestamp=record_moment(event),
            ),
            sidechain,
        )

    def finish(self) -> None:
        self.transcripts.finish()

    def _session(self, event: dict[str, Any], kind: Any) -> str:
        found = _session_id(event)
        inner = event.get("message")
        if found is None and kind in ("system", "result") and isinstance(inner, dict):
            found = _session_id(inner)  # a runner's wrapped event
        if found is not None:
            self.current = found
        return self.current or self.default_session

    def _metadata(self, event: dict[str, Any], kind: Any, session: str, line: int) -> None:
        inner = event.get("message")
        subtype = event.get("subtype") or (
            inner.get("subtype") if isinstance(inner, dict) else None
        )
        if kind == "system" and subtype == "compact_boundary":
            self.compacted.add(session)
        elif kind == "result":
            # A run ended; whatever comes next in this session answers a new prompt.
            self.new_run[session] = line
            self.transcripts.open_tasks[session].clear()
        elif kind == "system" and subtype == "init" and session in self.transcripts.conversations:
            self.new_run[session] = line
        name = kind if isinstance(kind, str) and kind else "(no type)"
        self.result.pass_over(NO_CONTENT.format(name))

    def _reject(self, line: int, reason: str, value: Any) -> None:
        self.result.rejects.append(
            Reject(source=self.source, line=line, reason=reason, excerpt=excerpt(value))
        )


def _session_id(record: dict[str, Any]) -> str | None:
    for key in SESSION_KEYS:
        value = record.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _sidechain(event: dict[str, Any]) -> Sidechain:
    """The sub-agent an event belongs to (None: the main conversation), or UNMARKED."""
    if "isSidechain" in event:
        if event["isSidechain"] is not True:
            return None
        agent = event.get("agentId")
        return (str(agent) if isinstance(agent, (str, int)) and str(agent) else "sidechain"), None
    if "parent_tool_use_id" in event:
        parent = event["parent_tool_use_id"]
        return (parent, parent) if isinstance(parent, str) and parent else None
    return UNMARKED


def _with_host_results(parts: list[Part], event: dict[str, Any]) -> list[Part]:
    """A tool_result block with no content takes the host's copy (``toolUseResult``)."""
    for key in ("toolUseResult", "tool_use_result"):
        copy = event.get(key)
        if isinstance(copy, (str, list)):
            break
    else:
        return parts
    results = [p for p in parts if isinstance(p, ToolResult)]
    if len(results) != 1 or results[0].content is not None:
        return parts
    filled = replace(results[0], content=copy, pointer="", content_key=key)
    return [filled if p is results[0] else p for p in parts]
