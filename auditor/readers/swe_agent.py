"""SWE-agent trajectories (``.traj``): one JSON object per run, one conversation per file.

A ``.traj`` holds the run twice: ``history``, the chat messages the model saw, and
``trajectory``, one step per action ``{"action", "observation", "thought", "response",
"state"}``. Each tool call is read once, with its result, from the one that carries it:

- function-calling runs (newer files; assistant messages have ``tool_calls``): ``history``, with
  the chat reader's ``parse_messages``. The observation is a ``role: "tool"`` message whose
  ``tool_call_ids`` (a list) names the call; call ids are reused in replays and kept as given.
  ``trajectory`` steps there repeat the same calls (and copy the history into ``messages``), so
  they are not read. Result pointer ``/history/<i>``, content under ``content``.
- older runs (the action is text in the assistant message, the observation the next user
  message): ``trajectory``, which is the record of what ran; ``history`` can differ from it (it
  lacks the last observation, and edited demonstrations drop steps). Each step is a call with id
  ``step-<i>`` whose thought is the text before it and whose observation is its result (pointer
  ``/trajectory/<i>``, content under ``observation``); the next step's thought is the reply. The
  tool name is the action's first word when it is one of SWE-agent's own interface commands
  (``open``, ``edit``, ``submit``, ... or one the file's system prompt declares), else ``bash``
  (everything else is a shell command line); the arguments are ``{"command": <action>}``. The
  system prompt and the task come from ``history``. A file with no ``trajectory`` is read from
  ``history``'s ``action`` fields the same way (pointer ``/history/<i>`` of the observation).

The first user message that is not a demonstration (``is_demo``) is the task, the person's
request; later user messages are observations or notices from the framework, not a person.
Demonstrations are left out. The format has no failure flag (``is_error`` stays None).

- conversation id: SWE-agent writes ``<run folder>/<instance id>.traj`` and the instance id
  repeats across runs, so the id is ``<run folder>/<file name>`` (the file name alone when it
  has no folder);
- ``line``: 1 (the file is the record).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from auditor.model import Conversation, Message, Reject, TextPart, ToolCall, ToolResult
from auditor.readers.conversations import as_text
from auditor.readers.json_stream import load_document
from auditor.readers.openai_chat import chat_messages, parse_messages
from auditor.readers.protocol import LIKELY, SURE
from auditor.readers.result import ReadResult, excerpt
from auditor.readers.sampling import Sample
from auditor.readers.streams import plain_name

NAME = "swe_agent"
DESCRIPTION = "SWE-agent .traj trajectories (history of chat messages, trajectory of steps)"
READS_SPANS = False
looks_like = None  # recognised from the whole sample, by sniff

# SWE-agent's own interface commands (tool bundles of SWE-agent and EnIGMA); any other action is
# a shell command line.
INTERFACE_COMMANDS = frozenset(
    {
        "open", "goto", "scroll_up", "scroll_down", "create", "edit", "insert", "append",
        "submit", "search_dir", "search_file", "find_file", "filemap", "set_cursors",
        "str_replace_editor", "review_on_submit", "exit_forfeit", "decompile", "disassemble",
        "debug_start", "debug_add_breakpoint", "debug_continue", "debug_step", "debug_exec",
        "debug_stop", "connect_start", "connect_sendline", "connect_exec", "connect_stop",
    }
)  # fmt: skip
_DECLARED = re.compile(r"(?m)^([A-Za-z_][\w-]*):\n\s+docstring:")
_HISTORY_KEY = re.compile(r'"history"\s*:\s*\[')
_TRAJECTORY_KEY = re.compile(r'"trajectory"\s*:\s*\[')
_SWE_MESSAGE = re.compile(
    r'"message_type"\s*:\s*"(?:system_prompt|observation|action|thought)"'
    r'|"agent"\s*:\s*"(?:primary|main)"'
)


# ----------------------------------------------------------------------------- detection
def sniff(sample: Sample) -> int:
    if not sample.looks_like_json_document():
        return 0
    first = sample.records[0] if sample.records else None
    traj_suffix = sample.suffix == ".traj"
    if first is not None:
        if not isinstance(first, dict) or not isinstance(first.get("history"), list):
            return 0
        return SURE if traj_suffix or isinstance(first.get("trajectory"), list) else 0
    head = sample.text.lstrip("\ufeff \t\r\n")
    if not head.startswith("{"):
        return 0
    if traj_suffix:
        return SURE
    if _HISTORY_KEY.search(head) and (_TRAJECTORY_KEY.search(head) or _SWE_MESSAGE.search(head)):
        return LIKELY
    return 0


# ----------------------------------------------------------------------------- reading
def read(path: Path, source: str) -> ReadResult:
    result = ReadResult()
    document = load_document(path, source, result.rejects)
    if document is None:
        return result
    history = document.get("history") if isinstance(document, dict) else None
    trajectory = document.get("trajectory") if isinstance(document, dict) else None
    if not isinstance(history, list) and not isinstance(trajectory, list):
        result.rejects.append(
            Reject(
                source=source,
                line=1,
                reason="not a SWE-agent trajectory (no history or trajectory list)",
                excerpt=excerpt(document, 200),
            )
        )
        return result
    history = history if isinstance(history, list) else []
    conversation = Conversation(
        id=_conversation_id(source),
        source=source,
        format=NAME,
        line=1,
        metadata=_metadata(document),
    )
    if any(_calls_tools(message) for message in history):
        _read_history_calls(history, conversation, result)
    elif isinstance(trajectory, list) and trajectory:
        _read_trajectory(history, trajectory, conversation, result)
    else:
        _read_history_actions(history, conversation, result)
    result.conversations.append(conversation)
    return result


def _conversation_id(source: str) -> str:
    given = Path(source)
    name = plain_name(given)
    return f"{given.parent.name}/{name}" if given.parent.name else name


def _metadata(document: dict[str, Any]) -> dict[str, Any]:
    info = document.get("info")
    if isinstance(info, dict) and isinstance(info.get("exit_status"), str):
        return {"exit_status": info["exit_status"]}
    return {}


def _calls_tools(message: Any) -> bool:
    return (
        isinstance(message, dict)
        and message.get("role") == "assistant"
        and isinstance(message.get("tool_calls"), list)
        and bool(message["tool_calls"])
    )


def _is_demo(message: Any) -> bool:
    return isinstance(message, dict) and bool(message.get("is_demo"))


def _reject(result: ReadResult, source: str, reason: str, value: Any) -> None:
    result.rejects.append(Reject(source=source, line=1, reason=reason, excerpt=excerpt(value)))


def _read_history_calls(history: list[Any], conversation: Conversation, result: ReadResult) -> None:
    """Function-calling runs: the history is chat messages; observations name their calls in
    ``tool_call_ids``."""
    source = conversation.source
    prepared: list[Any] = []
    more_ids: dict[str, list[str]] = {}  # pointer of an observation -> its further call ids
    for index, message in enumerate(history):
        if (
            isinstance(message, dict)
            and message.get("role") == "tool"
            and "tool_call_id" not in message
            and isinstance(message.get("tool_call_ids"), list)
        ):
            ids = [str(i) for i in message["tool_call_ids"] if isinstance(i, (str, int))]
            if ids:
                message = {**message, "tool_call_id": ids[0]}
                more_ids[f"/history/{index}"] = ids[1:]
        prepared.append(message)
    cleaned = chat_messages(prepared, "/history", source, 1, result.rejects)
    cleaned = [None if _is_demo(message) else message for message in cleaned]
    parse_messages(cleaned, conversation, 1, "/history")
    task_seen = False
    for message in conversation.messages:
        if message.role == "user":
            message.from_person = not task_seen
            task_seen = True
        for part in list(message.parts):
            if isinstance(part, ToolResult) and more_ids.get(part.pointer):
                for call_id in more_ids[part.pointer]:
                    message.parts.append(replace(part, call_id=call_id))


def _prompt(history: list[Any], conversation: Conversation) -> str:
    """The system prompt and the task, from the history up to the first assistant message."""
    system = ""
    task_seen = False
    for message in history:
        if not isinstance(message, dict) or _is_demo(message):
            continue
        role = message.get("role")
        if role == "assistant":
            break
        text = as_text(message.get("content"))
        if role == "system":
            system += text
            conversation.messages.append(
                Message(role="system", line=1, parts=[TextPart(text=text, line=1)])
            )
        elif role == "user" and not task_seen:
            task_seen = True
            conversation.messages.append(
                Message(role="user", line=1, from_person=True, parts=[TextPart(text=text, line=1)])
            )
    return system


def _tool_name(action: str, declared: frozenset[str]) -> str:
    words = action.split(maxsplit=1)
    first = words[0] if words else ""
    return first if first in INTERFACE_COMMANDS or first in declared else "bash"


def _step(
    conversation: Conversation,
    call_id: str,
    thought: str,
    action: str,
    declared: frozenset[str],
    observation: tuple[Any, str, str] | None,
) -> None:
    """One action: the thought and the call, then its observation ``(content, pointer, key)``."""
    parts: list[TextPart | ToolCall] = []
    if thought.strip():
        parts.append(TextPart(text=thought, line=1))
    parts.append(
        ToolCall(
            id=call_id,
            name=_tool_name(action, declared),
            arguments={"command": action.strip()},
            line=1,
        )
    )
    conversation.messages.append(Message(role="assistant", line=1, parts=parts))
    if observation is not None:
        content, pointer, key = observation
        result = ToolResult(
            call_id=call_id, line=1, pointer=pointer, content=content, content_key=key
        )
        conversation.messages.append(Message(role="tool", line=1, parts=[result]))


def _text(step: dict[str, Any]) -> str:
    for key in ("thought", "response"):
        if isinstance(step.get(key), str):
            return step[key]
    return ""


def _read_trajectory(
    history: list[Any], trajectory: list[Any], conversation: Conversation, result: ReadResult
) -> None:
    declared = frozenset(_DECLARED.findall(_prompt(history, conversation)))
    for index, step in enumerate(trajectory):
        where = f"/trajectory/{index}"
        if not isinstance(step, dict):
            _reject(
                result, conversation.source, f"trajectory step is not an object at {where}", step
            )
            continue
        action = step.get("action")
        if not isinstance(action, str) or not action.strip():
            _reject(
                result, conversation.source, f"trajectory step without an action at {where}", step
            )
            continue
        observation = (step["observation"], where, "observation") if "observation" in step else None
        _step(conversation, f"step-{index}", _text(step), action, declared, observation)


def _read_history_actions(
    history: list[Any], conversation: Conversation, result: ReadResult
) -> None:
    """Older runs without a trajectory: assistant messages carry ``action``, the next user
    message is its observation."""
    declared = frozenset(_DECLARED.findall(_prompt(history, conversation)))
    for index, message in enumerate(history):
        if not isinstance(message, dict):
            _reject(
                result,
                conversation.source,
                f"message is not an object at /history/{index}",
                message,
            )
            continue
        if message.get("role") != "assistant" or _is_demo(message):
            continue
        action = message.get("action")
        if not isinstance(action, str) or not action.strip():
            text = _text(message) or as_text(message.get("content"))
            if text.strip():
                conversation.messages.append(
                    Message(role="assistant", line=1, parts=[TextPart(text=text, line=1)])
                )
            continue
        following = history[index + 1] if index + 1 < len(history) else None
        observation = None
        if isinstance(following, dict) and following.get("role") in ("user", "tool"):
            observation = (following.get("content"), f"/history/{index + 1}", "content")
        _step(conversation, f"history-{index}", _text(message), action, declared, observation)
