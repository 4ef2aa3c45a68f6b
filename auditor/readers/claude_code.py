"""Claude Code sessions: ``~/.claude/projects/**.jsonl`` and ``claude -p`` stream-json output.

One event per line. Assistant content is streamed one block per line, the lines of one message
sharing ``message.id``; tool results come back in ``user`` lines. Event types the auditor does
not use (``summary``, ``system``, ``file-history-snapshot``, ``result``, and any new ones) pass
through. Both spellings of the session id are read (``sessionId``, ``session_id``); a file that
holds several sessions yields one conversation per session.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from auditor.model import Conversation, Message, Reject, TextPart
from auditor.readers.anthropic import content_parts
from auditor.readers.base import ReadResult, excerpt, json_lines

NAME = "claude_code"
DESCRIPTION = "Claude Code session JSONL and stream-json output (one event per line)"

EVENT_TYPES = {"user", "assistant", "system", "summary", "result", "file-history-snapshot"}


def looks_like(record: Any) -> int:
    if not isinstance(record, dict) or "messages" in record:
        return 0
    if record.get("type") in EVENT_TYPES and (
        "sessionId" in record
        or "session_id" in record
        or "parentUuid" in record
        or "uuid" in record
    ):
        return 3
    if record.get("type") in ("user", "assistant") and isinstance(record.get("message"), dict):
        return 2
    return 0


def read(path: Path, source: str) -> ReadResult:
    result = ReadResult()
    sessions: dict[str, Conversation] = {}
    current: str | None = None
    for number, event in json_lines(path, source, result.rejects):
        if not isinstance(event, dict):
            result.rejects.append(
                Reject(
                    source=source,
                    line=number,
                    reason="event is not an object",
                    excerpt=excerpt(str(event)),
                )
            )
            continue
        session = event.get("sessionId") or event.get("session_id") or current or path.stem
        current = str(session)
        kind = event.get("type")
        if kind not in ("user", "assistant"):
            continue  # metadata and unknown event types pass through
        conversation = sessions.get(current)
        if conversation is None:
            conversation = Conversation(id=current, source=source, format=NAME, line=number)
            sessions[current] = conversation
            result.conversations.append(conversation)
        message = event.get("message")
        if not isinstance(message, dict):
            result.rejects.append(
                Reject(
                    source=source,
                    line=number,
                    reason=f"{kind} event without a message object",
                    excerpt=excerpt(str(event)),
                )
            )
            continue
        parts = content_parts(message.get("content"), number, "/message/content")
        meta = bool(event.get("isMeta"))
        from_person = (
            kind == "user"
            and not meta
            and any(isinstance(p, TextPart) and p.text.strip() for p in parts)
        )
        if kind == "user" and meta:
            parts = [p for p in parts if not isinstance(p, TextPart)]
        conversation.messages.append(
            Message(
                role=kind,
                line=number,
                parts=parts,
                from_person=from_person,
                message_id=message.get("id") if kind == "assistant" else None,
            )
        )
    return result
