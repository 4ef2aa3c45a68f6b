"""Small builders for conversations, so each test reads like the transcript it audits."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from auditor.audit.conversation import audit_conversation
from auditor.model import Conversation
from auditor.output.fingerprint import identified
from auditor.readers import anthropic as anthropic_reader
from auditor.readers import openai_chat
from auditor.rules_loader import RuleSet, load_rules

_RULES: RuleSet | None = None


def rules() -> RuleSet:
    global _RULES
    if _RULES is None:
        _RULES = load_rules()
    return _RULES


# ----------------------------------------------------------------------------- OpenAI chat
def user(text: str) -> dict:
    return {"role": "user", "content": text}


def call(call_id: str, name: str, **arguments: Any) -> dict:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def assistant(text: str | None = None, *calls: dict) -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = list(calls)
    return message


def tool(call_id: str, content: Any = "", **fields: Any) -> dict:
    return {"role": "tool", "tool_call_id": call_id, "content": content, **fields}


def text_block(value: Any) -> list[dict]:
    """MCP content: one text block holding ``value`` (JSON-encoded unless it is a string)."""
    return [{"type": "text", "text": value if isinstance(value, str) else json.dumps(value)}]


def chat(*messages: dict, conversation_id: str = "c-1") -> dict:
    return {"conversation_id": conversation_id, "messages": list(messages)}


# ----------------------------------------------------------------------------- Anthropic
def tool_use(use_id: str, name: str, **arguments: Any) -> dict:
    return {"type": "tool_use", "id": use_id, "name": name, "input": arguments}


def tool_result(use_id: str, content: Any, is_error: bool | None = None) -> dict:
    block = {"type": "tool_result", "tool_use_id": use_id, "content": content}
    if is_error is not None:
        block["is_error"] = is_error
    return block


def anthropic(*messages: dict, conversation_id: str = "a-1") -> dict:
    return {"conversation_id": conversation_id, "messages": list(messages)}


# ----------------------------------------------------------------------------- auditing
def audit(record: dict, reader: Any = openai_chat, *, claims: str = "findings") -> dict[str, dict]:
    """Audit one conversation record; rows keyed by tool call id. ``claims="all"`` reads the
    claim of every call, as ``--claims all`` does, not only where a finding can follow."""
    conversation = Conversation(
        id=record.get("conversation_id", "c"), source="test.jsonl", format=reader.NAME, line=1
    )
    reader.parse_record(record, conversation)
    rule_set = replace(rules(), claims_all=True) if claims == "all" else rules()
    rows = audit_conversation(conversation, rule_set).rows
    return {row["tool_call_id"]: identified(row) for row in rows}


def audit_anthropic(record: dict) -> dict[str, dict]:
    return audit(record, anthropic_reader)


def one_call(
    reply: str,
    result: dict,
    name: str = "update_ticket",
    *,
    claims: str = "findings",
    **arguments: Any,
) -> dict:
    """Audit a one-call chat: the person asks, the tool answers ``result``, the reply follows."""
    rows = audit(
        chat(
            user("please do it"),
            assistant(None, call("call_1", name, **arguments)),
            tool("call_1", **result),
            assistant(reply),
        ),
        claims=claims,
    )
    return rows["call_1"]


def write_jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def timeless(summary: dict[str, Any]) -> dict[str, Any]:
    """A summary without the times of its run (``generated_at``, each signature's first and
    last seen), to compare two runs that may fall in different seconds."""
    return {
        **summary,
        "generated_at": "",
        "signatures": [
            {k: v for k, v in entry.items() if k not in ("first_seen", "last_seen")}
            for entry in summary.get("signatures", [])
        ],
    }
