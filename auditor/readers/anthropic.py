"""Anthropic Messages transcripts, one conversation per line.

``tool_use`` blocks in assistant messages, ``tool_result`` blocks (with ``is_error``) in user
messages, and the MCP connector's ``mcp_tool_use`` / ``mcp_tool_result`` blocks, both inside the
assistant message. A user message that only carries tool results was not written by a person.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from auditor.model import Conversation, Message, Reject, TextPart, ToolCall, ToolResult
from auditor.readers.conversations import (
    read_conversations,
    register_shape,
    serialised_call_result,
    sniff_conversations,
)
from auditor.readers.lines import Span
from auditor.readers.result import ReadResult
from auditor.readers.sampling import Sample
from auditor.readers.stamps import date_conversation

NAME = "anthropic_messages"
DESCRIPTION = (
    "Anthropic Messages, one conversation per line (tool_use / tool_result, MCP connector)"
)

CALL_TYPES = ("tool_use", "mcp_tool_use", "server_tool_use")
RESULT_TYPES = ("tool_result", "mcp_tool_result")
TOOL_TYPES = CALL_TYPES + RESULT_TYPES


def looks_like(record: Any) -> int:
    if not isinstance(record, dict) or not isinstance(record.get("messages"), list):
        return 0
    for message in record["messages"]:
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") in TOOL_TYPES for b in content
        ):
            return 3
        if message.get("role") == "tool" or message.get("tool_calls"):
            return 0
    return 1


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
    """Fill ``conversation`` with the messages of one record; ``pointer`` locates the record."""
    date_conversation(conversation, record)
    line = conversation.line
    system = record.get("system")
    if isinstance(system, str) and system:
        conversation.messages.append(Message("system", line, [TextPart(system, line)]))
    parse_messages(record["messages"], conversation, line, f"{pointer}/messages")


def parse_messages(
    messages: list[Any], conversation: Conversation, line: int, pointer: str = "/messages"
) -> None:
    """Append Anthropic ``messages`` to ``conversation``. ``pointer`` locates the list."""
    append = conversation.messages.append
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role != "user" and role != "assistant":
            continue
        content = message.get("content")
        if isinstance(content, str):
            parts: list = [TextPart(content, line)]
        else:
            parts = content_parts(content, line, f"{pointer}/{index}/content")
        from_person = role == "user" and any(
            isinstance(p, TextPart) and p.text.strip() for p in parts
        )
        append(Message(role, line, parts, from_person))


def content_parts(content: Any, line: int, pointer: str) -> list:
    """Text, tool calls and tool results of one Anthropic ``content`` value, in order."""
    if isinstance(content, str):
        return [TextPart(content, line)]
    parts: list = []
    if not isinstance(content, list):
        return parts
    for index, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            if isinstance(text := block.get("text"), str):
                parts.append(TextPart(text, line))
        elif kind in CALL_TYPES:
            if block.get("id") is not None:
                name = str(block.get("name") or "")
                server = block.get("server_name")
                parts.append(ToolCall(str(block["id"]), name, line, block.get("input"), server))
        elif kind in RESULT_TYPES and block.get("tool_use_id") is not None:
            parts.append(tool_result(block, line, f"{pointer}/{index}"))
    return parts


def tool_result(block: dict, line: int, pointer: str) -> ToolResult:
    flag = block.get("is_error")
    fields = block
    if not flag and (inner := serialised_call_result(block.get("content"))):
        fields = inner
        flag = inner["isError"] if "isError" in inner else inner.get("is_error")
    return ToolResult(  # by position (``ToolResult.__init__``): call_id, line, pointer, ...
        str(block["tool_use_id"]),
        line,
        pointer,
        True,  # returned
        None,  # rpc_error
        flag if isinstance(flag, bool) else None,  # is_error
        fields.get("content"),
        fields.get("structuredContent"),  # structured
        "structuredContent" in fields,  # has_structured
        "is_error",  # flag_key
    )


register_shape(NAME, looks_like, parse_record)
