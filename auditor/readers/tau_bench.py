"""tau-bench runs (sierra-research/tau-bench): results files and few-shot display files.

Results file (``historical_trajectories/*.json``, what ``run.py`` writes): one JSON array of runs
``{"task_id", "trial", "reward", "info", "traj"}``; ``traj`` holds OpenAI Chat Completions
messages (``tool_calls``, ``role: "tool"``), read with the chat reader's ``parse_messages``. The
format has no failure flag: a failed tool answers with text (``Error: ...``), which the outcome
rules read. Tool call ids are reused inside one run and kept as given (a result pairs with the
nearest open call with its id). Messages of the simulated user are a person's (they start turns).

- conversation id: ``<file name>#task-<task_id>-trial-<trial>`` (runs carry no id of their own),
  ``<file name>#<index in the array>`` when ``task_id`` is missing;
- ``line``: the line where the run's element of the array starts (the array is decoded element
  by element, so a cut-off file still yields every complete run before the break);
- a result's ``pointer``: ``/<run index>/traj/<message index>``, its content under ``content``.

Few-shot files (``few_shot_data/*.jsonl``): one ``{"messages_display": "user: ...\\nassistant:
None\\ntool: ..."}`` per line. That is display text: tool calls appear as ``assistant: None``
or not at all, with no tool name, no arguments and no call id, and message boundaries are only
line prefixes that message text can contain too. There is nothing to pair or attribute, so each
line is passed over with that reason.

``array_records`` and ``chat_messages`` are shared with the tau2-bench and SWE-agent readers.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from auditor.model import Conversation, Reject
from auditor.readers.base import (
    STREAM_ERRORS,
    ReadResult,
    Sample,
    excerpt,
    json_lines,
    open_bytes,
    plain_name,
    take_sample,
)
from auditor.readers.openai_chat import parse_messages

NAME = "tau_bench"
DESCRIPTION = (
    "tau-bench results (JSON array of runs with traj: chat messages); "
    "few-shot messages_display files are passed over"
)

FEW_SHOT_REASON = (
    "tau-bench few-shot display text (messages_display): flattened messages without tool "
    "names, arguments or call ids, nothing to audit"
)

_TRAJ_KEY = re.compile(r'"traj"\s*:\s*\[')


# ----------------------------------------------------------------------------- detection
def sniff(sample: Sample) -> int:
    few_shot = sum(3 for record in sample.records if _is_few_shot(record))
    if few_shot:
        return few_shot
    if not sample.looks_like_json_document():
        return 0
    first = sample.records[0] if sample.records else None
    if first is not None:
        return 10 if _is_runs(first) else 0
    head = sample.text.lstrip("\ufeff \t\r\n")
    if head.startswith("[") and _TRAJ_KEY.search(head) and '"termination_reason"' not in head:
        return 8
    return 0


def _is_few_shot(record: Any) -> bool:
    return (
        isinstance(record, dict)
        and isinstance(record.get("messages_display"), str)
        and "messages" not in record
    )


def _is_runs(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and isinstance(value[0], dict)
        and isinstance(value[0].get("traj"), list)
    )


# ----------------------------------------------------------------------------- reading
def read(path: Path, source: str) -> ReadResult:
    sample = take_sample(path)
    if any(_is_few_shot(record) for record in sample.records):
        return _read_few_shot(path, source)
    result = ReadResult()
    document = array_records(path, source, result.rejects)
    if document.pointer is None:
        if not document.malformed:
            result.rejects.append(
                Reject(
                    source=source,
                    line=1,
                    reason="not a tau-bench results file (expected a JSON array of runs)",
                    excerpt=excerpt(sample.head[:200]),
                )
            )
        return result
    name = plain_name(Path(source))
    for index, line, run in document.records:
        where = f"{document.pointer}/{index}"
        if not isinstance(run, dict) or not isinstance(run.get("traj"), list):
            result.rejects.append(
                Reject(
                    source=source,
                    line=line,
                    reason=f"run without a traj list at {where or '/'}",
                    excerpt=excerpt(orjson.dumps(run)),
                )
            )
            continue
        conversation = Conversation(
            id=_run_id(run, name, index),
            source=source,
            format=NAME,
            line=line,
            metadata={
                key: run[key] for key in ("task_id", "trial", "reward") if _scalar(run.get(key))
            },
        )
        messages = chat_messages(run["traj"], f"{where}/traj", source, line, result.rejects)
        parse_messages(messages, conversation, line, f"{where}/traj")
        result.conversations.append(conversation)
    return result


def _read_few_shot(path: Path, source: str) -> ReadResult:
    result = ReadResult()
    for number, record in json_lines(path, source, result.rejects):
        if _is_few_shot(record):
            result.pass_over(FEW_SHOT_REASON)
        else:
            result.rejects.append(
                Reject(
                    source=source,
                    line=number,
                    reason="not a tau-bench few-shot record (no messages_display text)",
                    excerpt=excerpt(orjson.dumps(record)),
                )
            )
    return result


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _run_id(run: dict[str, Any], name: str, index: int) -> str:
    task, trial = run.get("task_id"), run.get("trial")
    if _scalar(task) and str(task):
        return f"{name}#task-{task}" + (f"-trial-{trial}" if _scalar(trial) else "")
    return f"{name}#{index}"


# ----------------------------------------------------------------------------- chat messages
CHAT_ROLES = {"system", "developer", "user", "assistant", "tool", "function"}


def chat_messages(
    messages: list[Any], pointer: str, source: str, line: int, rejects: list[Reject]
) -> list[Any]:
    """``messages`` made safe for ``parse_messages``: what it would skip silently or trip on is
    recorded as a reject (with its pointer) and replaced by ``None``, which it skips; the list
    keeps its length, so pointers stay right."""
    cleaned: list[Any] = []
    for index, message in enumerate(messages):
        where = f"{pointer}/{index}"

        def reject(reason: str, value: Any, where: str = where) -> None:
            rejects.append(
                Reject(
                    source=source,
                    line=line,
                    reason=f"{reason} at {where}",
                    excerpt=excerpt(orjson.dumps(value, default=str)),
                )
            )

        if not isinstance(message, dict):
            reject("message is not an object", message)
            cleaned.append(None)
            continue
        role = message.get("role")
        if not isinstance(role, str) or role not in CHAT_ROLES:
            reject(f"message with unknown role {role!r}", message)
            cleaned.append(None)
            continue
        calls = message.get("tool_calls")
        if calls is not None and not isinstance(calls, list):
            reject("tool_calls is not a list", calls, f"{where}/tool_calls")
            message = {key: value for key, value in message.items() if key != "tool_calls"}
        elif calls:
            for position, call in enumerate(calls):
                if not isinstance(call, dict):
                    reject("tool call is not an object", call, f"{where}/tool_calls/{position}")
        if role == "tool" and not _scalar(message.get("tool_call_id")):
            reject("tool message without a tool_call_id", message)
            cleaned.append(None)
            continue
        cleaned.append(message)
    return cleaned


# ----------------------------------------------------------------------------- documents
_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


@dataclass
class ArrayDocument:
    """The records of the array a reader wants from a whole-JSON document."""

    pointer: str | None = None  # JSON pointer of the array ("" for a top-level array), None: none
    records: list[tuple[int, int, Any]] = field(default_factory=list)  # (index, line, value)
    malformed: bool = False  # the document is not valid JSON (a reject says where)


class _Malformed(Exception):
    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.message, self.position = message, position


def array_records(
    path: Path, source: str, rejects: list[Reject], keys: tuple[str, ...] = ()
) -> ArrayDocument:
    """The elements of a document's top-level array, or of the array under the first of
    ``keys`` found in a top-level object, each with the 1-based line where it starts.

    The document is decoded element by element (``json.JSONDecoder.raw_decode``), so the line of
    each record costs only a count of newlines, and a document cut off or broken part way
    through still yields every complete record before the break; the break is a reject that
    names its line.
    """
    document = ArrayDocument()
    try:
        with open_bytes(path) as handle:
            data = handle.read()
    except STREAM_ERRORS as exc:
        rejects.append(Reject(source=source, line=1, reason=f"unreadable compressed stream: {exc}"))
        document.malformed = True
        return document
    text = data.decode("utf-8", "replace")
    found: list[tuple[int, Any]] = []
    try:
        position = _skip(text, 1 if text.startswith("\ufeff") else 0)
        _expect(text, position, "[{")
        if text[position] == "[":
            document.pointer = ""
            position = _elements(text, position, found)
        else:
            position, chosen = _members(text, position, keys, found)
            if chosen is not None:
                document.pointer = "/" + chosen.replace("~", "~0").replace("/", "~1")
        position = _skip(text, position)
        if position < len(text):
            raise _Malformed("extra data after the document", position)
    except _Malformed as exc:
        document.malformed = True
        rejects.append(
            Reject(
                source=source,
                line=text.count("\n", 0, exc.position) + 1,
                reason=f"malformed JSON document: {exc.message}"
                + (f" ({len(found)} complete record(s) before it were read)" if found else ""),
                excerpt=excerpt(text[max(0, exc.position - 40) : exc.position + 40]),
            )
        )
    line, last = 1, 0
    for index, (offset, value) in enumerate(found):
        line += text.count("\n", last, offset)
        last = offset
        document.records.append((index, line, value))
    return document


def _skip(text: str, position: int) -> int:
    match = _SPACE.match(text, position)
    return match.end() if match else position


def _expect(text: str, position: int, allowed: str) -> None:
    if position >= len(text):
        raise _Malformed("unexpected end of document", position)
    if text[position] not in allowed:
        wanted = " or ".join(repr(char) for char in allowed)
        raise _Malformed(f"expected {wanted}", position)


def _value(text: str, position: int) -> tuple[Any, int]:
    try:
        return _DECODER.raw_decode(text, position)
    except json.JSONDecodeError as exc:
        raise _Malformed(exc.msg, exc.pos) from None
    except RecursionError:
        raise _Malformed("nested too deeply", position) from None


def _elements(text: str, position: int, found: list[tuple[int, Any]]) -> int:
    """Decode the array at ``position``, appending ``(offset, value)`` per element."""
    position = _skip(text, position + 1)
    if text.startswith("]", position):
        return position + 1
    while True:
        value, end = _value(text, position)
        found.append((position, value))
        position = _skip(text, end)
        _expect(text, position, ",]")
        if text[position] == "]":
            return position + 1
        position = _skip(text, position + 1)


def _members(
    text: str, position: int, keys: tuple[str, ...], found: list[tuple[int, Any]]
) -> tuple[int, str | None]:
    """Walk the object at ``position``; descend into the array of the first key of ``keys``."""
    chosen: str | None = None
    position = _skip(text, position + 1)
    if text.startswith("}", position):
        return position + 1, None
    while True:
        _expect(text, position, '"')
        key, position = _value(text, position)
        position = _skip(text, position)
        _expect(text, position, ":")
        position = _skip(text, position + 1)
        if chosen is None and key in keys and text.startswith("[", position):
            chosen = key
            position = _elements(text, position, found)
        else:
            _, position = _value(text, position)
        position = _skip(text, position)
        _expect(text, position, ",}")
        if text[position] == "}":
            return position + 1, chosen
        position = _skip(text, position + 1)
