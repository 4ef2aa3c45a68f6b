"""OpenClaw agent telemetry: the JSONL the ``openclaw-telemetry-hal`` plugin writes.

One event per line, ``type`` among:

- ``agent.start`` ``{sessionKey, agentId, prompt}``: a run of the agent begins; written twice
  per run, the second time with ``messages``, the session's history before the run (the
  person's texts, assistant messages with ``toolCall`` blocks ``{id, name, arguments}``,
  ``toolResult`` messages ``{toolCallId, toolName, content, isError}``);
- ``agent.end`` ``{sessionKey, success, messages}``: a run ended, with the whole history;
- ``tool.start`` ``{sessionKey, toolName, params}`` and ``tool.end`` ``{sessionKey, toolName,
  success, durationMs}``: a tool ran. They carry no call id: a ``tool.end`` closes the oldest
  open ``tool.start`` of its session key with the same tool name;
- ``message.in`` / ``message.sending`` / ``message.out``: what the channel (Telegram) received
  from and sent to the person.

One conversation per session key (``agent:main:main``, ``agent:main:subagent:<id>``, …).
Its messages come from the longest snapshot of that key (the histories are cumulative), then,
in line order, what no snapshot holds: the prompts of later runs (the person's request; for a
sub-agent, the task it was given) and the calls known only from ``tool.start`` / ``tool.end``
(their result is the ``success`` flag, ``is_error = not success``, with no text). A tool event
whose tool name and parameters match a ``toolCall`` of a snapshot is that call, read once from
the snapshot (with its result text and ``isError``), whatever key the event was filed under
(the plugin files the main agent's tool events under the channel's key,
``agent:main:telegram:…``, and its runs under ``agent:main:main``). A ``message.out`` becomes
the assistant's text in the conversation of the latest run that is not a sub-agent's (sub-agents
report to their requester, not to the channel), unless that text is already there.

Passed over and counted: ``message.in`` (the same text is the run's prompt),
``message.sending`` (the same text comes again in ``message.out``), repeated ``agent.start``
events and snapshots a longer one covers, tool events read from a snapshot, and events of other
types. A ``tool.end`` with no open ``tool.start`` is rejected. ``thinking`` blocks are left out.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from auditor.model import Conversation, Message, Reject, TextPart, ToolCall, ToolResult
from auditor.readers.conversations import as_text, text_or_none
from auditor.readers.lines import json_lines
from auditor.readers.result import ReadResult, excerpt
from auditor.readers.stamps import moment
from auditor.readers.streams import plain_name

NAME = "openclaw"
DESCRIPTION = (
    "OpenClaw telemetry JSONL (agent.start snapshots, tool.start / tool.end by sessionKey)"
)
READS_SPANS = False
sniff = None  # recognised record by record, by looks_like

EVENT_TYPES = frozenset(
    {
        "agent.start",
        "agent.end",
        "tool.start",
        "tool.end",
        "message.in",
        "message.sending",
        "message.out",
    }
)

MESSAGE_IN = "openclaw message.in (the person's text, read from the run's agent.start prompt)"
MESSAGE_SENDING = "openclaw message.sending (the same text comes again in message.out)"
MESSAGE_OUT_KNOWN = "openclaw message.out whose text the session's history already holds"
REPEATED = "openclaw agent event repeating a prompt or a history a later snapshot covers"
FROM_SNAPSHOT = "openclaw tool event of a call read from an agent snapshot (toolCall/toolResult)"
UNKNOWN = "openclaw event of another type: {}"
NO_START = "tool.end with no open tool.start of its session key"


def looks_like(record: Any) -> int:
    if not isinstance(record, dict) or text_or_none(record.get("type")) not in EVENT_TYPES:
        return 0
    if any(key in record for key in ("sessionKey", "toolName", "agentId")):
        return 3
    return 1 if "channel" in record else 0


class _Event:
    """One event, with its type and session key (read many times) worked out once."""

    __slots__ = ("key", "kind", "line", "record")

    def __init__(self, line: int, record: dict[str, Any]):
        self.line, self.record = line, record
        self.kind = str(record.get("type"))
        key = record.get("sessionKey")
        self.key: str | None = key if isinstance(key, str) and key else None


@dataclass
class _Run:
    """A tool run known from its events: the start, and the end when it came."""

    start: _Event
    end: _Event | None = None


def read(path: Path, source: str) -> ReadResult:
    result = ReadResult()
    stem = plain_name(path)
    events: list[_Event] = []
    for line, record in json_lines(path, source, result.rejects):
        if not isinstance(record, dict):
            result.rejects.append(
                Reject(
                    source=source,
                    line=line,
                    reason="event is not an object",
                    excerpt=excerpt(record),
                )
            )
            continue
        events.append(_Event(line, record))
    _Reader(source, stem, result).read(events)
    return result


class _Reader:
    def __init__(self, source: str, stem: str, result: ReadResult):
        self.source = source
        self.stem = stem
        self.result = result
        self.conversations: dict[str, Conversation] = {}

    def read(self, events: list[_Event]) -> None:
        snapshots = self._snapshots(events)
        pool = _CallPool(snapshots)
        runs = self._tool_runs(events)
        # What each snapshot leaves to the events: prompts it does not hold.
        prompts_held = {
            key: Counter(
                _text(m.get("content"))
                for m in messages
                if isinstance(m, dict) and m.get("role") == "user"
            )
            for key, (_, messages) in snapshots.items()
        }
        late: dict[str, list[tuple[int, Message]]] = defaultdict(list)
        covered_ends: set[int] = set()
        for run in runs:
            start = run.start
            params = start.record.get("params")
            name = str(start.record.get("toolName") or "")
            found = pool.take(name, params, start.key)
            if found is not None:
                self.result.pass_over(FROM_SNAPSHOT)
                if run.end is not None:
                    self.result.pass_over(FROM_SNAPSHOT)
                    covered_ends.add(run.end.line)
                    success = run.end.record.get("success")
                    if found not in pool.flags and isinstance(success, bool):
                        pool.flags[found] = not success
                continue
            call_id = f"{self.stem}:{start.line}"
            key = start.key or "(no sessionKey)"
            late[key].append(
                (
                    start.line,
                    Message(
                        role="assistant",
                        line=start.line,
                        timestamp=moment(start.record.get("ts")),
                        parts=[ToolCall(id=call_id, name=name, arguments=params, line=start.line)],
                    ),
                )
            )
            if run.end is not None:
                success = run.end.record.get("success")
                late[key].append(
                    (
                        run.end.line,
                        Message(
                            role="tool",
                            line=run.end.line,
                            timestamp=moment(run.end.record.get("ts")),
                            parts=[
                                ToolResult(
                                    call_id=call_id,
                                    line=run.end.line,
                                    is_error=(not success) if isinstance(success, bool) else None,
                                    content=None,
                                    flag_key="success",
                                )
                            ],
                        ),
                    )
                )
        last_prompt: dict[str, str] = {}
        latest_key: str | None = None
        out_texts: list[tuple[_Event, str | None]] = []
        for event in events:
            kind, key = event.kind, event.key
            if kind == "agent.start":
                prompt = event.record.get("prompt")
                if key is not None and (":subagent:" not in key or latest_key is None):
                    latest_key = key  # sub-agents report to their requester, not the channel
                chosen = key is not None and snapshots.get(key, (None,))[0] == event.line
                if key is None or not isinstance(prompt, str) or not prompt.strip():
                    if not chosen:
                        self.result.pass_over(REPEATED)
                    continue
                if last_prompt.get(key) == prompt:
                    if not chosen:
                        self.result.pass_over(REPEATED)
                    continue
                last_prompt[key] = prompt
                held = prompts_held.get(key)
                if held and held[prompt] > 0:
                    held[prompt] -= 1
                    if not chosen:
                        self.result.pass_over(REPEATED)
                    continue
                late[key].append(
                    (
                        event.line,
                        Message(
                            role="user",
                            line=event.line,
                            from_person=True,
                            timestamp=moment(event.record.get("ts")),
                            parts=[TextPart(text=prompt, line=event.line)],
                        ),
                    )
                )
            elif kind == "agent.end":
                if key is None or snapshots.get(key, (None,))[0] != event.line:
                    self.result.pass_over(REPEATED)
            elif kind in ("tool.start", "tool.end"):
                continue  # counted with their runs
            elif kind == "message.in":
                self.result.pass_over(MESSAGE_IN)
            elif kind == "message.sending":
                self.result.pass_over(MESSAGE_SENDING)
            elif kind == "message.out":
                out_texts.append((event, latest_key))
            else:
                self.result.pass_over(UNKNOWN.format(kind or "(no type)"))
        for key, (line, messages) in snapshots.items():
            conversation = self._conversation(key, line)
            conversation.messages.extend(_snapshot_messages(messages, line, pool.flags))
        for event, key in out_texts:
            text = event.record.get("content")
            if key is None or not isinstance(text, str) or not text.strip():
                self.result.pass_over(MESSAGE_OUT_KNOWN)
                continue
            known = self._assistant_texts(key, snapshots, late)
            if text.strip() in known:
                self.result.pass_over(MESSAGE_OUT_KNOWN)
                continue
            late[key].append(
                (
                    event.line,
                    Message(
                        role="assistant",
                        line=event.line,
                        timestamp=moment(event.record.get("ts") or event.record.get("timestamp")),
                        parts=[TextPart(text=text, line=event.line)],
                    ),
                )
            )
        for key, items in late.items():
            first = min(line for line, _ in items)
            conversation = self._conversation(key, first)
            conversation.messages.extend(m for _, m in sorted(items, key=lambda item: item[0]))
        self.result.conversations.extend(sorted(self.conversations.values(), key=lambda c: c.line))

    # -- pieces
    def _conversation(self, key: str, line: int) -> Conversation:
        conversation = self.conversations.get(key)
        if conversation is None:
            conversation = Conversation(id=key, source=self.source, format=NAME, line=line)
            self.conversations[key] = conversation
        conversation.line = min(conversation.line, line)
        return conversation

    def _assistant_texts(
        self,
        key: str,
        snapshots: dict[str, tuple[int, list[Any]]],
        late: dict[str, list[tuple[int, Message]]],
    ) -> set[str]:
        texts: set[str] = set()
        for message in snapshots.get(key, (0, []))[1]:
            if isinstance(message, dict) and message.get("role") == "assistant":
                texts.update(t.strip() for t in _texts(message.get("content")))
        for _, message in late.get(key, []):
            if message.role == "assistant":
                texts.update(p.text.strip() for p in message.parts if isinstance(p, TextPart))
        return texts

    def _snapshots(self, events: list[_Event]) -> dict[str, tuple[int, list[Any]]]:
        """Per session key, the longest history an agent event carries (the last of equals)."""
        found: dict[str, tuple[int, list[Any]]] = {}
        for event in events:
            messages = event.record.get("messages")
            if event.kind not in ("agent.start", "agent.end") or event.key is None:
                continue
            if not isinstance(messages, list) or not messages:
                continue
            held = found.get(event.key)
            if held is None or len(messages) >= len(held[1]):
                found[event.key] = (event.line, messages)
        return found

    def _tool_runs(self, events: list[_Event]) -> list[_Run]:
        """``tool.start`` events with the ``tool.end`` that closes each, in start order."""
        runs: list[_Run] = []
        open_runs: dict[str | None, list[_Run]] = defaultdict(list)
        for event in events:
            if event.kind == "tool.start":
                run = _Run(event)
                runs.append(run)
                open_runs[event.key].append(run)
            elif event.kind == "tool.end":
                waiting = open_runs[event.key]
                name = event.record.get("toolName")
                run = next((r for r in waiting if r.start.record.get("toolName") == name), None)
                if run is None and waiting:
                    run = waiting[0]
                if run is None:
                    self.result.rejects.append(
                        Reject(
                            source=self.source,
                            line=event.line,
                            reason=NO_START,
                            excerpt=excerpt(event.record),
                        )
                    )
                    continue
                waiting.remove(run)
                run.end = event
        return runs


class _CallPool:
    """The ``toolCall`` blocks of the snapshots, each taken by one tool event at most."""

    def __init__(self, snapshots: dict[str, tuple[int, list[Any]]]):
        self.calls: list[tuple[str, str, str, bytes]] = []  # (key, id, name, arguments)
        self.taken: set[str] = set()
        self.flags: dict[str, bool] = {}  # call id -> is_error from its tool.end
        for key, (_, messages) in snapshots.items():
            for message in messages:
                if not isinstance(message, dict) or message.get("role") != "assistant":
                    continue
                content = message.get("content")
                for block in content if isinstance(content, list) else []:
                    if isinstance(block, dict) and block.get("type") == "toolCall":
                        call_id = block.get("id")
                        if isinstance(call_id, str) and call_id:
                            arguments = _canonical(block.get("arguments"))
                            self.calls.append((key, call_id, str(block.get("name")), arguments))

    def take(self, name: str, params: Any, key: str | None) -> str | None:
        wanted = _canonical(params)
        candidates = [c for c in self.calls if c[1] not in self.taken and c[2] == name]
        candidates.sort(key=lambda c: c[0] != key)  # the same key first
        for _, call_id, _, arguments in candidates:
            if arguments == wanted:
                self.taken.add(call_id)
                return call_id
        return None


def _canonical(value: Any) -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return repr(value).encode()


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [
            block["text"]
            for block in content
            if isinstance(block, dict)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
        ]
    return []


def _text(content: Any) -> str:
    return "\n".join(_texts(content))


def _snapshot_messages(messages: list[Any], line: int, flags: dict[str, bool]) -> list[Message]:
    """A snapshot's history as messages (all at the line of the event that carried it)."""
    found: list[Message] = []
    for message in messages:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        stamp = moment(message.get("timestamp"))
        content = message.get("content")
        if role == "user":
            text = _text(content)
            found.append(
                Message(
                    role="user",
                    line=line,
                    from_person=True,
                    timestamp=stamp,
                    parts=[TextPart(text=text, line=line)],
                )
            )
        elif role == "assistant":
            parts: list[TextPart | ToolCall] = []
            for block in content if isinstance(content, list) else [content]:
                if isinstance(block, str) and block.strip():
                    parts.append(TextPart(text=block, line=line))
                elif not isinstance(block, dict):
                    continue
                elif block.get("type") == "text" and isinstance(block.get("text"), str):
                    parts.append(TextPart(text=block["text"], line=line))
                elif block.get("type") == "toolCall" and isinstance(block.get("id"), str):
                    parts.append(
                        ToolCall(
                            id=block["id"],
                            name=str(block.get("name") or ""),
                            arguments=block.get("arguments"),
                            line=line,
                        )
                    )
            found.append(Message(role="assistant", line=line, timestamp=stamp, parts=parts))
        elif role == "toolResult" and isinstance(message.get("toolCallId"), str):
            flag = message.get("isError")
            call_id = message["toolCallId"]
            found.append(
                Message(
                    role="tool",
                    line=line,
                    timestamp=stamp,
                    parts=[
                        ToolResult(
                            call_id=call_id,
                            line=line,
                            is_error=flag if isinstance(flag, bool) else flags.get(call_id),
                            content=content,
                        )
                    ],
                )
            )
        else:
            text = as_text(content) if not isinstance(content, str) else content
            if text.strip():
                found.append(
                    Message(
                        role="system",
                        line=line,
                        timestamp=stamp,
                        parts=[TextPart(text=text, line=line)],
                    )
                )
    return found
