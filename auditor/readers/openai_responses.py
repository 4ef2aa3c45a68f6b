"""OpenAI Responses API items, one conversation per line.

A line holds a response object (``{"id": "resp_...", "output": [...], "input"?: [...]}``), a
request body (``{"input": [...]}``, ``input`` may be a plain string), a ``{"response": {...}}``
wrapper, or a bare list of items. A pretty-printed ``.json`` file holding such values is read
too, each value starting at its own line. Each line is one conversation, except that a line
whose ``previous_response_id`` names an earlier response of the file continues that response's
conversation (the API keeps the history server-side, so the next line only holds the new items,
e.g. the ``function_call_output`` for a call of the line before); an item seen again (same type
and ``id`` or ``call_id``) is passed over.

Items, in ``input`` then ``output`` order:

- ``message`` (or a typeless ``{role, content}``): ``user`` messages were written by a person,
  ``assistant`` ones are the reply; content is a string or parts (``input_text``,
  ``output_text``, ``refusal``);
- ``function_call`` / ``function_call_output`` (and the ``custom_tool_call`` pair), paired by
  ``call_id``, never by ``id``; the output has no error flag, failures are only text;
- ``mcp_call``, call and result in one item: ``output``; ``error`` as a string (older API) or a
  structured object since 2026-08: ``mcp_protocol_error`` and ``http_error`` came back instead
  of a result (``returned=False`` with the code and message), ``mcp_tool_execution_error`` is
  the tool's own ``isError``; ``status: "failed"`` flags the result; a call still
  ``in_progress`` / ``calling`` / ``incomplete`` has no result.

Other item types (reasoning, MCP tool listings and approvals, hosted tools) are passed over and
counted by type.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from auditor.model import Conversation, Message, Reject, TextPart, ToolCall, ToolResult
from auditor.readers.conversations import conversation_id, decode_arguments, text_or_none
from auditor.readers.lines import json_records
from auditor.readers.result import ReadResult, excerpt
from auditor.readers.sampling import Sample
from auditor.readers.streams import plain_name, read_text

NAME = "openai_responses"
DESCRIPTION = "OpenAI Responses API items (function_call, mcp_call, message), one response per line"
READS_SPANS = False

CALL_TYPES = ("function_call", "custom_tool_call")
OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output")
ITEM_TYPES = frozenset(
    {
        "message",
        *CALL_TYPES,
        *OUTPUT_TYPES,
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
        "reasoning",
        "web_search_call",
        "file_search_call",
        "computer_call",
        "computer_call_output",
        "code_interpreter_call",
        "image_generation_call",
        "local_shell_call",
        "local_shell_call_output",
        "shell_call",
        "shell_call_output",
        "apply_patch_call",
        "apply_patch_call_output",
        "item_reference",
        "compaction",
    }
)
TOOL_ITEM_TYPES = frozenset({*CALL_TYPES, *OUTPUT_TYPES, "mcp_call"})
UNFINISHED = frozenset({"in_progress", "calling", "incomplete", "searching"})
NOT_RETURNED = frozenset({"mcp_protocol_error", "http_error"})


# ----------------------------------------------------------------------------- detection
def _item_score(items: Any) -> int:
    """3 when a list holds typed Responses items with a tool item or a message of typed parts,
    2 for typed items without them, 0 when it does not look like Responses items at all."""
    if not isinstance(items, list) or not items:
        return 0
    typed = [i for i in items if isinstance(i, dict) and text_or_none(i.get("type")) in ITEM_TYPES]
    if not typed:
        return 0
    for item in typed:
        if item["type"] in TOOL_ITEM_TYPES:
            return 3
        content = item.get("content")
        if isinstance(content, list) and any(
            isinstance(p, dict) and p.get("type") in ("input_text", "output_text") for p in content
        ):
            return 3
    return 2


def looks_like(record: Any) -> int:
    if isinstance(record, list):
        return _item_score(record)
    if not isinstance(record, dict) or "messages" in record:
        return 0
    if isinstance(record.get("response"), dict) and "output" in record["response"]:
        record = record["response"]
    score = max(_item_score(record.get("output")), _item_score(record.get("input")))
    if score == 0 and record.get("object") == "response" and isinstance(record.get("output"), list):
        return 2
    if score == 0 and isinstance(record.get("input"), list) and record["input"]:
        easy = all(
            isinstance(i, dict) and set(i) <= {"role", "content", "type"} and "role" in i
            for i in record["input"]
        )
        return 1 if easy else 0
    return score


def sniff(sample: Sample) -> int:
    score = sum(looks_like(r) for r in sample.records if r is not None)
    if score or not sample.records or sample.records[0] is not None:
        return score
    if not sample.looks_like_json_document():
        return 0
    try:
        whole = orjson.loads(sample.head)
    except orjson.JSONDecodeError:  # a document longer than the sample
        return 2 if '"call_id"' in sample.text and '"function_call' in sample.text else 0
    values = whole if isinstance(whole, list) else [whole]
    return looks_like(whole) or sum(looks_like(v) for v in values)


# ----------------------------------------------------------------------------- reading
def read(path: Path, source: str) -> ReadResult:
    result = ReadResult()
    name = plain_name(path)
    text = read_text(path, source, result.rejects)
    if text is None:
        return result
    records = json_records(text, source, result.rejects)
    chains: dict[str, ItemReader] = {}  # response id -> the conversation it continues
    for number, record in records:
        parse_line(record, number, source, name, result, chains)
    return result


def parse_line(
    record: Any,
    line: int,
    source: str,
    name: str,
    result: ReadResult,
    chains: dict[str, ItemReader],
) -> None:
    """Read one line's items: a new conversation, or the one its ``previous_response_id``
    continues (a reject when the line holds no items)."""
    base = ""
    wrapped = record.get("response") if isinstance(record, dict) else None
    if isinstance(wrapped, dict) and "output" in wrapped and not {"input", "output"} & set(record):
        record, base = wrapped, "/response"
    lists: list[tuple[str, list]] = []
    if isinstance(record, list):
        lists.append((base, record))
        identity: dict[str, Any] = {}
    elif isinstance(record, dict) and (
        isinstance(record.get("output"), list) or isinstance(record.get("input"), (list, str))
    ):
        identity = record
        for key in ("input", "output"):
            value = record.get(key)
            if isinstance(value, list):
                lists.append((f"{base}/{key}", value))
    else:
        result.rejects.append(
            Reject(
                source=source,
                line=line,
                reason="no Responses input or output items",
                excerpt=excerpt(record),
            )
        )
        return
    previous = identity.get("previous_response_id")
    items = chains.get(previous) if isinstance(previous, str) else None
    if items is None:
        conversation = Conversation(
            id=conversation_id(identity, name, line) if identity else f"{name}:{line}",
            source=source,
            format=NAME,
            line=line,
        )
        result.conversations.append(conversation)
        items = ItemReader(conversation, line, source, result)
        instructions = identity.get("instructions")
        if isinstance(instructions, str) and instructions.strip():
            conversation.messages.append(
                Message(role="system", line=line, parts=[TextPart(text=instructions, line=line)])
            )
    else:
        items.line, items.in_reply = line, False
    if isinstance(identity.get("id"), str):
        chains[identity["id"]] = items
    if isinstance(identity.get("input"), str):
        items.conversation.messages.append(
            Message(
                role="user",
                line=line,
                from_person=bool(identity["input"].strip()),
                parts=[TextPart(text=identity["input"], line=line)],
            )
        )
    for pointer, values in lists:
        for index, item in enumerate(values):
            items.item(item, f"{pointer}/{index}")


class ItemReader:
    """Appends the messages of Responses items to one conversation."""

    def __init__(self, conversation: Conversation, line: int, source: str, result: ReadResult):
        self.conversation = conversation
        self.line = line
        self.source = source
        self.result = result
        self.group = 0  # items the model produced together share a message id
        self.in_reply = False
        self.seen: set[str] = set()  # item ids and call ids read so far (chained responses)

    def _assistant(self, parts: list) -> None:
        if not self.in_reply:
            self.group += 1
            self.in_reply = True
        self.conversation.messages.append(
            Message(
                role="assistant",
                line=self.line,
                parts=parts,
                message_id=f"{self.conversation.id}#{self.group}",
            )
        )

    def _other(self, message: Message) -> None:
        self.in_reply = False
        self.conversation.messages.append(message)

    def reject(self, item: Any, reason: str) -> None:
        self.result.rejects.append(
            Reject(
                source=self.source,
                line=self.line,
                reason=reason,
                excerpt=excerpt(item),
            )
        )

    def item(self, item: Any, pointer: str) -> None:
        if not isinstance(item, dict):
            self.reject(item, "Responses item is not an object")
            return
        kind = text_or_none(item.get("type"))
        keys = [f"{kind}:{item['id']}"] if isinstance(item.get("id"), str) else []
        if kind in CALL_TYPES + OUTPUT_TYPES and isinstance(item.get("call_id"), str):
            keys.append(f"{kind}:call:{item['call_id']}")
        if any(key in self.seen for key in keys):
            self.result.pass_over("OpenAI Responses item repeated from an earlier response")
            return
        self.seen.update(keys)
        if kind == "message" or (kind is None and "role" in item):
            self.message(item)
        elif kind in CALL_TYPES:
            self.call(item, pointer)
        elif kind in OUTPUT_TYPES:
            self.output(item, pointer)
        elif kind == "mcp_call":
            self.mcp_call(item, pointer)
        else:
            self.result.pass_over(f"OpenAI Responses item not audited: {kind}")

    def message(self, item: dict) -> None:
        role = item.get("role")
        text = _content_text(item.get("content"))
        line = self.line
        parts = [TextPart(text=text, line=line)] if text else []
        if role == "assistant":
            self._assistant(parts)
        elif role == "user":
            self._other(
                Message(role="user", line=line, parts=parts, from_person=bool(text.strip()))
            )
        elif role in ("system", "developer"):
            self._other(Message(role="system", line=line, parts=parts))
        else:
            self.reject(item, f"Responses message with an unknown role: {role!r}")

    def call(self, item: dict, pointer: str) -> None:
        call_id = item.get("call_id") or item.get("id")
        name = item.get("name")
        if not isinstance(call_id, str) or not call_id or not isinstance(name, str):
            self.reject(item, f"{item.get('type')} without call_id or name")
            return
        raw = item.get("arguments", item.get("input"))
        self._assistant(
            [ToolCall(id=call_id, name=name, arguments=decode_arguments(raw), line=self.line)]
        )

    def output(self, item: dict, pointer: str) -> None:
        call_id = item.get("call_id")
        if not isinstance(call_id, str) or not call_id:
            self.reject(item, f"{item.get('type')} without call_id")
            return
        result = ToolResult(
            call_id=call_id,
            line=self.line,
            pointer=pointer,
            content=item.get("output"),
            content_key="output",
        )
        self._other(Message(role="tool", line=self.line, parts=[result]))

    def mcp_call(self, item: dict, pointer: str) -> None:
        call_id = item.get("id")
        name = item.get("name")
        if not isinstance(name, str) or not name:
            self.reject(item, "mcp_call without a name")
            return
        if not isinstance(call_id, str) or not call_id:
            call_id = f"{self.conversation.id}{pointer}"
        label = item.get("server_label")
        self._assistant(
            [
                ToolCall(
                    id=call_id,
                    name=name,
                    arguments=decode_arguments(item.get("arguments")),
                    server=label if isinstance(label, str) else None,
                    line=self.line,
                )
            ]
        )
        result = mcp_result(item, call_id, self.line, pointer)
        if result is not None:
            self.conversation.messages.append(
                Message(role="tool", line=self.line, parts=[result], message_id=None)
            )


def mcp_result(item: dict, call_id: str, line: int, pointer: str) -> ToolResult | None:
    """The result half of an ``mcp_call`` item, both ``error`` shapes read."""
    status = text_or_none(item.get("status"))
    error = item.get("error")
    output = item.get("output")
    failed = status == "failed"
    if error in (None, "", {}) and output is None and not failed and status in UNFINISHED:
        return None  # still running when the item was stored: no result came back
    if isinstance(error, dict):
        kind = text_or_none(error.get("type"))
        if kind in NOT_RETURNED:
            rpc_error = {k: error[k] for k in ("code", "message", "type") if k in error}
            return ToolResult(
                call_id=call_id,
                line=line,
                pointer=pointer,
                returned=False,
                rpc_error=rpc_error,
                content=output,
                content_key="output",
            )
        content = error.get("content") if kind == "mcp_tool_execution_error" else error
        key = "error/content" if kind == "mcp_tool_execution_error" else "error"
        structured, has_structured = None, False
        if isinstance(content, dict) and isinstance(content.get("content"), list):
            structured = content.get("structuredContent")
            has_structured = "structuredContent" in content
            content, key = content["content"], f"{key}/content"
        return ToolResult(
            call_id=call_id,
            line=line,
            pointer=pointer,
            is_error=True,
            content=content if content is not None else output,
            content_key=key if content is not None else "output",
            structured=structured,
            has_structured=has_structured,
            structured_key=f"{key.rsplit('/', 1)[0]}/structuredContent",
            flag_key="error",
        )
    if isinstance(error, str) and error:
        return ToolResult(
            call_id=call_id,
            line=line,
            pointer=pointer,
            is_error=True,
            content=error,
            content_key="error",
            flag_key="error",
        )
    return ToolResult(
        call_id=call_id,
        line=line,
        pointer=pointer,
        is_error=failed,
        content=output,
        content_key="output",
        flag_key="status",
    )


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict):
            value = part.get("text", part.get("refusal"))
            if isinstance(value, str):
                texts.append(value)
    return "\n".join(texts)
