"""OpenAI Chat Completions transcripts, one conversation per line, as MCP hosts store them.

A line is ``{"conversation_id"?, "messages": [...]}``. Tool messages may keep the MCP result
fields the host saw: ``content`` (string or content blocks), ``isError``, ``structuredContent``,
and a JSON-RPC ``error`` object when no result came back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from auditor.model import Conversation, Message, Reject, TextPart, ToolCall, ToolResult
from auditor.readers.conversations import (
    as_text,
    decode_arguments,
    is_scalar,
    read_conversations,
    register_shape,
    serialised_call_result,
    sniff_conversations,
)
from auditor.readers.lines import Span
from auditor.readers.result import ReadResult, excerpt
from auditor.readers.sampling import Sample
from auditor.readers.stamps import date_conversation

NAME = "openai_chat"
DESCRIPTION = "OpenAI Chat Completions messages, one conversation per line (tool_calls, role tool)"


def looks_like(record: Any) -> int:
    """How strongly one decoded record looks like this format (0 = not at all)."""
    if not isinstance(record, dict) or not isinstance(record.get("messages"), list):
        return 0
    score = 1
    for message in record["messages"]:
        if not isinstance(message, dict):
            continue
        if (
            message.get("role") == "tool"
            or message.get("tool_calls")
            or message.get("function_call")
        ):
            return 3
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result", "mcp_tool_use")
            for b in content
        ):
            return 0
    return score


def sniff(sample: Sample) -> int:
    return sniff_conversations(sample, looks_like)


READS_SPANS = True  # one conversation per line: large files are read in parts


def read(path: Path, source: str, span: Span | None = None) -> ReadResult:
    return read_conversations(path, source, NAME, parse_record, span)


def parse_record(
    record: dict[str, Any],
    conversation: Conversation,
    pointer: str = "",
    rejects: list[Reject] | None = None,
) -> None:
    """Fill ``conversation`` with the messages of one record; ``pointer`` locates the record.
    Messages that cannot be read are left out and listed in ``rejects``."""
    date_conversation(conversation, record)
    where = f"{pointer}/messages"
    parse_messages(
        record["messages"],
        conversation,
        conversation.line,
        where,
        [] if rejects is None else rejects,
    )


def parse_messages(
    messages: list[Any],
    conversation: Conversation,
    line: int,
    pointer: str = "/messages",
    rejects: list[Reject] | None = None,
) -> None:
    """Append Chat Completions ``messages`` to ``conversation``; other formats that store chat
    messages (benchmark trajectories, for one) use this too. ``pointer`` locates the list.
    With ``rejects``, each message is checked as ``chat_messages`` checks it, in the same pass
    (what it would reject is listed there and left out); without, the messages are taken as
    ``chat_messages`` left them."""
    legacy_open: dict[str, list[str]] = {}  # legacy function_call: name -> open synthetic ids
    append = conversation.messages.append
    source = conversation.source
    for index, message in enumerate(messages):
        if rejects is not None:
            message = _checked(message, index, pointer, source, line, rejects)
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "assistant":
            append(_assistant(message, line, index, legacy_open))
        elif role == "tool" or role == "function":
            call_id = message.get("tool_call_id")
            if role == "function" and not call_id:
                ids = legacy_open.get(str(message.get("name")), [])
                call_id = ids.pop(0) if ids else None
            if call_id is None:
                continue
            result = _tool_result(message, str(call_id), line, f"{pointer}/{index}")
            append(Message("tool", line, [result]))
        elif role == "user":
            text = as_text(message.get("content"))
            append(Message("user", line, [TextPart(text, line)], True))
        elif role == "system" or role == "developer":
            text = as_text(message.get("content"))
            append(Message("system", line, [TextPart(text, line)]))


def _assistant(message: dict, line: int, index: int, legacy_open: dict[str, list[str]]) -> Message:
    parts: list = []
    content = message.get("content")
    if content and (text := as_text(content)):
        parts.append(TextPart(text, line))
    for position, call in enumerate(message.get("tool_calls") or ()):
        if not isinstance(call, dict):
            continue
        spec = call.get("function") or call.get("custom") or {}
        if not isinstance(spec, dict):
            spec = {}
        raw = spec["arguments"] if "arguments" in spec else spec.get("input")
        call_id = call.get("id") or f"{index}.{position}"
        name = str(spec.get("name") or call.get("name") or "")
        parts.append(ToolCall(str(call_id), name, line, decode_arguments(raw)))
    legacy = message.get("function_call")
    if isinstance(legacy, dict) and legacy.get("name"):
        call_id = f"function_call:{index}"
        legacy_open.setdefault(str(legacy["name"]), []).append(call_id)
        parts.append(
            ToolCall(
                id=call_id,
                name=str(legacy["name"]),
                arguments=decode_arguments(legacy.get("arguments")),
                line=line,
            )
        )
    return Message("assistant", line, parts)


def _tool_result(message: dict, call_id: str, line: int, pointer: str) -> ToolResult:
    error = message.get("error")
    rpc_error = (
        error if isinstance(error, dict) and ("code" in error or "message" in error) else None
    )
    flag = message["isError"] if "isError" in message else message.get("is_error")
    fields = message
    if not flag and (inner := serialised_call_result(message.get("content"))):
        fields = inner
        flag = inner["isError"] if "isError" in inner else inner.get("is_error")
    return ToolResult(  # by position (``ToolResult.__init__``): call_id, line, pointer, ...
        call_id,
        line,
        pointer,
        rpc_error is None,  # returned
        rpc_error,
        flag if isinstance(flag, bool) else None,  # is_error
        fields.get("content"),
        fields.get("structuredContent"),  # structured
        "structuredContent" in fields,  # has_structured
        "isError" if "isError" in fields else "is_error",  # flag_key
    )


CHAT_ROLES = {"system", "developer", "user", "assistant", "tool", "function"}


def chat_messages(
    messages: list[Any], pointer: str, source: str, line: int, rejects: list[Reject]
) -> list[Any]:
    """``messages`` made safe for ``parse_messages``: what it would skip silently or trip on is
    recorded as a reject (with its pointer) and replaced by ``None``, which it skips; the list
    keeps its length, so pointers stay right."""
    return [
        _checked(message, index, pointer, source, line, rejects)
        for index, message in enumerate(messages)
    ]


def _checked(
    message: Any, index: int, pointer: str, source: str, line: int, rejects: list[Reject]
) -> Any:
    """One message of ``chat_messages``: the message, a copy of it without a ``tool_calls``
    that is not a list, or None for a message that cannot be read (each problem a reject)."""
    if not isinstance(message, dict):
        _reject(rejects, source, line, "message is not an object", message, f"{pointer}/{index}")
        return None
    role = message.get("role")
    if not isinstance(role, str) or role not in CHAT_ROLES:
        reason = f"message with unknown role {role!r}"
        _reject(rejects, source, line, reason, message, f"{pointer}/{index}")
        return None
    calls = message.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        where = f"{pointer}/{index}/tool_calls"
        _reject(rejects, source, line, "tool_calls is not a list", calls, where)
        message = {key: value for key, value in message.items() if key != "tool_calls"}
    elif calls:
        for position, call in enumerate(calls):
            if not isinstance(call, dict):
                where = f"{pointer}/{index}/tool_calls/{position}"
                _reject(rejects, source, line, "tool call is not an object", call, where)
    if role == "tool" and not is_scalar(message.get("tool_call_id")):
        reason = "tool message without a tool_call_id"
        _reject(rejects, source, line, reason, message, f"{pointer}/{index}")
        return None
    return message


def _reject(
    rejects: list[Reject], source: str, line: int, reason: str, value: Any, where: str
) -> None:
    rejects.append(
        Reject(source=source, line=line, reason=f"{reason} at {where}", excerpt=excerpt(value))
    )


register_shape(NAME, looks_like, parse_record)
