"""What a reader hands back for one file: its conversations, its rejects (each quoting an
excerpt of what could not be read) and what it passed over."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import orjson

from auditor.model import Conversation, Reject
from auditor.redact import shorten


@dataclass
class ReadResult:
    """Conversations and rejects from one file, in file order; ``skipped`` says why a file that
    is not a transcript (a licence, a labels file) was passed over."""

    conversations: list[Conversation] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    skipped: str | None = None
    # Lines or records read and deliberately not audited (log text around the events, events
    # that carry no conversation): reason -> how many. The summary counts them.
    passed_over: dict[str, int] = field(default_factory=dict)

    def pass_over(self, reason: str, count: int = 1) -> None:
        """Count ``count`` records read and not audited, for ``reason``."""
        self.passed_over[reason] = self.passed_over.get(reason, 0) + count


EXCERPT_CHARS = 120


def excerpt(raw: Any, limit: int = EXCERPT_CHARS) -> str:
    """A short, printable piece of a bad record for the rejects list: text and bytes as they
    are, any other value as its JSON."""
    if isinstance(raw, bytes):
        text = raw.decode("utf-8", "replace")
    elif isinstance(raw, str):
        text = raw
    else:
        text = _as_json(raw)
    return shorten(text.strip().replace("\r", " ").replace("\n", " "), limit)


def _as_json(value: Any) -> str:
    """A value as JSON text, whatever the document held (big integers included)."""
    try:
        return orjson.dumps(value, default=str).decode()
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(value, default=str)[:1000]
