"""tau2-bench simulations (sierra-research/tau2-bench): results files and leaderboard exports.

A results file is one JSON object ``{"timestamp", "info", "tasks", "simulations": [...]}``;
leaderboard exports keep ``simulations`` beside their own fields (``domain``, ``model``, ...), or
are a bare JSON array of simulations. tau2's ``dir`` layout keeps ``results.json`` (the run's
tasks and info, passed over with a counted reason) beside ``simulations/<id>.json``, one
simulation per file, each read on its own. A simulation is ``{"id", "task_id", "trial",
"termination_reason", "reward_info", "messages": [...]}`` with its own message shape:

- ``assistant`` and ``user`` messages: ``content`` (text or null) and ``tool_calls`` (null or
  ``[{"id", "name", "arguments": {...}, "requestor"}]``, arguments an object, not a string);
- ``tool`` messages: ``{"id", "role": "tool", "content", "requestor", "error": bool}``; the id is
  the call's id. ``error: true`` is the format's failure flag (``ToolResult.is_error``, pointer
  ``.../error``); exports that lack the field (the toolorchestra ones) give ``is_error=None``.

Some agents write each reply as a JSON object (``{"message": "..."}``, also ``reply``,
``response``, sometimes with further fields): the reply's words are read out of it (its string
values, in order), since that is what it tells the person; other assistant text is kept as it is.

Messages of the simulated user are a person's: they start turns. In some domains (telecom) the
simulated user also calls tools on their own phone (``requestor: "user"``). Those calls and
their results are the person's actions, not the assistant's, and the reply to them is not the
assistant's to make: they are passed over with a counted reason, and the user's text in the
same message is kept.

- conversation id: the simulation's ``id``; without one ``<file name>#task-<task_id>-trial-
  <trial>``, else ``<file name>#<index>``. The same simulation can sit in two files (a run and
  its leaderboard export): each file's copy is read and audited.
- ``line``: the line where the simulation's element of the array starts.
- a result's ``pointer``: ``/simulations/<i>/messages/<j>`` (``/<i>/messages/<j>`` for a bare
  array), its content under ``content``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from auditor.model import Conversation, Message, Reject, TextPart, ToolCall, ToolResult
from auditor.readers.conversations import as_text, decode_arguments
from auditor.readers.json_stream import array_records
from auditor.readers.protocol import LIKELY, SURE
from auditor.readers.result import ReadResult, excerpt
from auditor.readers.sampling import Sample
from auditor.readers.stamps import record_moment
from auditor.readers.streams import plain_name, read_bytes

NAME = "tau2_bench"
DESCRIPTION = "tau2-bench simulations (simulations[].messages; tool calls with requestor, error)"
READS_SPANS = False
looks_like = None  # recognised from the whole sample, by sniff

RUN_SUMMARY_REASON = (
    "tau2 run results without simulations (the dir layout keeps each simulation in "
    "simulations/<id>.json, read on its own)"
)

USER_CALLS_REASON = (
    "tau2 tool calls the simulated user made on their own device (requestor user), "
    "with their results: the person's actions, not the assistant's"
)

# Keys of the JSON object some agents write as their whole reply (toolorchestra, ironshell).
REPLY_KEYS = ("message", "reply", "response")

_SIMULATIONS_KEY = re.compile(r'"simulations"\s*:\s*\[')
# Fields of tau2's results ``info`` that come before ``simulations`` (which can lie beyond the
# sample when the tasks are long).
_RESULTS_INFO = ('"num_trials"', '"max_errors"', '"user_info"', '"environment_info"')


# ----------------------------------------------------------------------------- detection
def sniff(sample: Sample) -> int:
    if not sample.looks_like_json_document():
        return 0
    first = sample.records[0] if sample.records else None
    if first is not None:
        if isinstance(first, dict):
            if isinstance(first.get("simulations"), list) or _is_simulation(first):
                return SURE
            return LIKELY if _is_run_summary(first) else 0
        return SURE if isinstance(first, list) and first and _is_simulation(first[0]) else 0
    head = sample.text.lstrip("\ufeff \t\r\n")
    if head.startswith("{"):
        if _SIMULATIONS_KEY.search(head):
            return SURE
        if all(marker in head for marker in _RESULTS_INFO):
            return LIKELY
        if '"termination_reason"' in head and '"messages"' in head:
            return SURE  # one simulation: a file of tau2's dir layout
        if '"tasks"' in head and '"info"' in head:
            return LIKELY  # results.json of the dir layout
    elif head.startswith("[") and '"termination_reason"' in head and '"messages"' in head:
        return SURE
    return 0


def _is_run_summary(value: Any) -> bool:
    """``results.json`` of tau2's ``dir`` layout: the run's tasks and info, its simulations
    each in ``simulations/<id>.json`` beside it."""
    return isinstance(value, dict) and "tasks" in value and "info" in value


def _is_simulation(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("messages"), list)
        and ("termination_reason" in value or "task_id" in value)
        and "traj" not in value
    )


# ----------------------------------------------------------------------------- reading
def read(path: Path, source: str) -> ReadResult:
    result = ReadResult()
    single = False  # one simulation object, the file of tau2's dir layout
    document = array_records(path, source, result.rejects, keys=("simulations",))
    if document.pointer is None and not document.malformed:
        # tau2's ``dir`` layout: one simulation per file, and a results.json without them.
        whole = _whole_object(path, source)
        if _is_simulation(whole):
            single = True
            document.pointer, document.records = "", [(0, 1, whole)]
        elif _is_run_summary(whole):
            result.pass_over(RUN_SUMMARY_REASON)
            return result
    if document.pointer is None:
        if not document.malformed:
            result.rejects.append(
                Reject(
                    source=source,
                    line=1,
                    reason="not a tau2-bench file (expected a simulations list)",
                )
            )
        return result
    name = plain_name(Path(source))
    for index, line, simulation in document.records:
        where = "" if single else f"{document.pointer}/{index}"
        if not isinstance(simulation, dict) or not isinstance(simulation.get("messages"), list):
            result.rejects.append(
                Reject(
                    source=source,
                    line=line,
                    reason=f"simulation without a messages list at {where}",
                    excerpt=excerpt(simulation),
                )
            )
            continue
        conversation = Conversation(
            id=_simulation_id(simulation, name, index),
            source=source,
            format=NAME,
            line=line,
            metadata=_metadata(simulation),
            timestamp=record_moment(simulation),
        )
        _messages(simulation["messages"], conversation, f"{where}/messages", result)
        result.conversations.append(conversation)
    return result


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value) != ""


def _simulation_id(simulation: dict[str, Any], name: str, index: int) -> str:
    if _scalar(simulation.get("id")):
        return str(simulation["id"])
    task, trial = simulation.get("task_id"), simulation.get("trial")
    if _scalar(task):
        return f"{name}#task-{task}" + (f"-trial-{trial}" if _scalar(trial) else "")
    return f"{name}#{index}"


def _metadata(simulation: dict[str, Any]) -> dict[str, Any]:
    metadata = {
        key: simulation[key]
        for key in ("task_id", "trial", "termination_reason")
        if _scalar(simulation.get(key))
    }
    reward = simulation.get("reward_info")
    if isinstance(reward, dict) and isinstance(reward.get("reward"), (int, float)):
        metadata["reward"] = reward["reward"]
    return metadata


def _reply_text(text: str) -> str:
    """An assistant text that is a JSON reply object (``{"message": "..."}``, some agents answer
    so) as the words in it; any other text as it is."""
    stripped = text.strip()
    if not (stripped.startswith("{") and stripped.endswith("}")):
        return text
    try:
        value = orjson.loads(stripped)
    except orjson.JSONDecodeError:
        return text
    if not isinstance(value, dict) or not any(isinstance(value.get(k), str) for k in REPLY_KEYS):
        return text
    try:
        return "\n\n".join(_strings(value))
    except RecursionError:
        return text


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


def _messages(
    messages: list[Any], conversation: Conversation, pointer: str, result: ReadResult
) -> None:
    line, source = conversation.line, conversation.source
    user_calls: set[str] = set()

    def reject(reason: str, value: Any, where: str) -> None:
        result.rejects.append(
            Reject(
                source=source,
                line=line,
                reason=f"{reason} at {where}",
                excerpt=excerpt(value),
            )
        )

    for index, message in enumerate(messages):
        where = f"{pointer}/{index}"
        if not isinstance(message, dict):
            reject("message is not an object", message, where)
            continue
        role = message.get("role")
        if role == "tool":
            call_id = message.get("id")
            if not _scalar(call_id):
                reject("tool message without an id", message, where)
                continue
            if message.get("requestor") == "user" or (
                "requestor" not in message and str(call_id) in user_calls
            ):
                continue  # counted with the user's call
            flag = message.get("error")
            conversation.messages.append(
                Message(
                    role="tool",
                    line=line,
                    parts=[
                        ToolResult(
                            call_id=str(call_id),
                            line=line,
                            pointer=where,
                            is_error=flag if isinstance(flag, bool) else None,
                            content=message.get("content"),
                            content_key="content",
                            flag_key="error",
                        )
                    ],
                )
            )
            continue
        if role not in ("assistant", "user", "system"):
            reject(f"message with unknown role {role!r}", message, where)
            continue
        text = as_text(message.get("content"))
        if role == "assistant":
            text = _reply_text(text)
        calls = message.get("tool_calls")
        if calls is not None and not isinstance(calls, list):
            reject("tool_calls is not a list", calls, f"{where}/tool_calls")
            calls = None
        if role == "system":
            conversation.messages.append(
                Message(role="system", line=line, parts=[TextPart(text=text, line=line)])
            )
        elif role == "user":
            own = []
            for position, call in enumerate(calls or []):
                if isinstance(call, dict):
                    own.append(call)
                else:
                    reject("tool call is not an object", call, f"{where}/tool_calls/{position}")
            for call in own:
                if _scalar(call.get("id")):
                    user_calls.add(str(call["id"]))
            if own:
                result.pass_over(USER_CALLS_REASON, len(own))
            if text.strip() or not own:
                conversation.messages.append(
                    Message(
                        role="user",
                        line=line,
                        from_person=True,
                        parts=[TextPart(text=text, line=line)],
                    )
                )
        else:
            parts: list[TextPart | ToolCall] = []
            if text:
                parts.append(TextPart(text=text, line=line))
            for position, call in enumerate(calls or []):
                call_where = f"{where}/tool_calls/{position}"
                if not isinstance(call, dict):
                    reject("tool call is not an object", call, call_where)
                elif not _scalar(call.get("id")):
                    reject("tool call without an id", call, call_where)
                else:
                    parts.append(
                        ToolCall(
                            id=str(call["id"]),
                            name=str(call.get("name") or ""),
                            arguments=decode_arguments(call.get("arguments")),
                            line=line,
                        )
                    )
            conversation.messages.append(
                Message(role="assistant", line=line, parts=parts, timestamp=record_moment(message))
            )


def _whole_object(path: Path, source: str) -> Any:
    """The file as one JSON value, or None when it is not one."""
    data = read_bytes(path, source, [])
    try:
        return orjson.loads(data) if data is not None else None
    except orjson.JSONDecodeError:
        return None
