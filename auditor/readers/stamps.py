"""When a record was written, and who the person was, in the formats that say so.

Times come as ISO 8601 strings (``2026-02-02T06:01:26.443Z``) or as Unix times in seconds,
milliseconds or nanoseconds (OpenAI's ``created``, OpenTelemetry's ``*UnixNano``); all become
timezone-aware UTC datetimes. A value that is no time is ``None``, never an error.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

# Keys a conversation record or a message dates itself by, most specific first.
TIME_KEYS = ("timestamp", "created_at", "createdAt", "created", "start_time", "startTime")
# Keys that name the person: OpenAI's ``user`` / ``safety_identifier`` request fields, Anthropic's
# ``metadata.user_id``, and the ``user_id`` / ``userId`` hosts store beside a conversation.
USER_KEYS = ("user_id", "userId", "user", "safety_identifier")
_SECONDS_UNTIL = 10**11  # larger numbers are milliseconds, then micro- and nanoseconds


def moment(value: Any) -> datetime | None:
    """A time as a UTC datetime, or None when ``value`` is not one."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        if isinstance(value, (int, float)):
            number = float(value)
            while abs(number) >= _SECONDS_UNTIL:
                number /= 1000
            return datetime.fromtimestamp(number, UTC)
        if isinstance(value, str) and value.strip():
            text = value.strip()
            if text.replace(".", "", 1).isdigit():
                return moment(float(text))
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
            if parsed.tzinfo is None:
                parsed = parsed.replace(tzinfo=UTC)
            return parsed.astimezone(UTC)
    except (ValueError, OverflowError, OSError):
        return None
    return None


def record_moment(record: Any) -> datetime | None:
    """The time a record (a conversation, a message, an event) carries, if any."""
    if not isinstance(record, dict):
        return None
    for key in TIME_KEYS:
        value = record.get(key)
        if value is not None and (found := moment(value)) is not None:
            return found
    return None


def record_user(record: Any) -> str | None:
    """The person's id a record carries, if any."""
    if not isinstance(record, dict):
        return None
    found = _user_in(record)
    if found is None and isinstance(metadata := record.get("metadata"), dict):
        return _user_in(metadata)
    return found


def _user_in(place: dict[str, Any]) -> str | None:
    """The first of ``USER_KEYS`` in ``place`` that holds an id (a string or an integer)."""
    for key in USER_KEYS:
        value = place.get(key)
        if value is None or isinstance(value, bool) or not isinstance(value, (str, int)):
            continue
        if text := str(value):
            return text
    return None


def tool_annotations(record: Any) -> dict[str, dict[str, Any]]:
    """MCP tool annotations (``readOnlyHint``, ``destructiveHint``) by tool name, from a record's
    ``tools`` list (as a request or a ``tools/list`` answer gives them)."""
    tools = record.get("tools") if isinstance(record, dict) else None
    found: dict[str, dict[str, Any]] = {}
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, dict):
            continue
        spec = tool.get("function") if isinstance(tool.get("function"), dict) else tool
        name, annotations = spec.get("name"), spec.get("annotations", tool.get("annotations"))
        if isinstance(name, str) and isinstance(annotations, dict):
            found[name] = annotations
    return found


def date_conversation(conversation: Any, record: Any) -> None:
    """Copy a conversation record's time, person and tool annotations onto ``conversation``."""
    conversation.timestamp = record_moment(record)
    conversation.user_id = record_user(record)
    annotations = tool_annotations(record)
    if annotations:
        conversation.metadata["tool_annotations"] = annotations
