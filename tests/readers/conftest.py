"""What the reader tests share: writing test files, the tool calls and results a reader found,
and the audit rows of a scanned file keyed by tool call id."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from builders import assistant, call, chat, tool, user

from auditor import scan
from auditor.model import ToolCall, ToolResult
from auditor.readers import ReadResult


def _write_json(path: Path, value: Any, indent: int | None = 2) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=indent), encoding="utf-8")
    return path


def _write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _rows_of(path: Path, claims: str = "findings") -> dict[str, dict]:
    calls = scan([path], claims=claims).calls
    return {r["tool_call_id"]: r for r in calls.iter_rows(named=True)}


def _calls_of(result: ReadResult) -> list[tuple[str, str, str]]:
    return [
        (conversation.id, part.id, part.name)
        for conversation in result.conversations
        for message in conversation.messages
        for part in message.parts
        if isinstance(part, ToolCall)
    ]


def _flags_of(result: ReadResult) -> dict[str, bool | None]:
    return {
        part.call_id: part.is_error
        for conversation in result.conversations
        for message in conversation.messages
        for part in message.parts
        if isinstance(part, ToolResult)
    }


def _slack_false_success(conversation_id: str) -> dict:
    return chat(
        user("post it"),
        assistant(None, call("c1", "slack_post_message", channel="#ops")),
        tool("c1", json.dumps({"ok": False, "error": "channel_not_found"})),
        assistant("Posted ✅"),
        conversation_id=conversation_id,
    )


@pytest.fixture
def write_json() -> Callable[..., Path]:
    """Write a value as a JSON document (pretty-printed unless ``indent`` is None)."""
    return _write_json


@pytest.fixture
def write_lines() -> Callable[[Path, list[str]], Path]:
    """Write text lines, each ended by a newline."""
    return _write_lines


@pytest.fixture
def rows_of() -> Callable[[Path], dict[str, dict]]:
    """Scan one file: its audit rows keyed by tool call id."""
    return _rows_of


@pytest.fixture
def calls_of() -> Callable[[ReadResult], list[tuple[str, str, str]]]:
    """(conversation id, tool call id, tool name) of every tool call a reader found."""
    return _calls_of


@pytest.fixture
def flags_of() -> Callable[[ReadResult], dict[str, bool | None]]:
    """Tool call id -> the format's own failure flag of its result (None: the format has none)."""
    return _flags_of


@pytest.fixture
def slack_false_success() -> Callable[[str], dict]:
    """A chat conversation whose Slack post failed while the reply says it was posted."""
    return _slack_false_success
