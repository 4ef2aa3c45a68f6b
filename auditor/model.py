"""The canonical conversation every reader produces, and the spec's vocabularies as enums.

Readers turn each transcript format into these models once; nothing after the reader looks at
the raw format again. They are plain classes with ``__slots__``, not validated models: a scan
builds millions of them, and a reader already checks what it takes from its format (pydantic
models cost the readers three times what these do). A tool call and its result are kept apart
so both failure axes stay visible: did the call return at all (``ToolResult.returned``, and a
missing result), and did the tool say it failed (``ToolResult.is_error``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, Literal


class Outcome(StrEnum):
    """What really happened to a tool call, in the spec's order of precedence."""

    TRANSPORT_ERROR = "transport_error"
    GRAPHQL_PARTIAL = "graphql_partial"
    GRAPHQL_ERROR = "graphql_error"
    TOOL_ERROR = "tool_error"
    IDENTITY_NULL = "identity_null"
    ERROR_PAYLOAD = "error_payload"
    OK = "ok"
    CUT_OFF = "cut_off"  # the log ends after the call: a truncated log, never a finding


FAILED_OUTCOMES = frozenset(
    {Outcome.TRANSPORT_ERROR, Outcome.TOOL_ERROR, Outcome.GRAPHQL_ERROR, Outcome.ERROR_PAYLOAD}
)


class Claim(StrEnum):
    """What the reply told the person about one tool call."""

    SUCCESS = "success"
    FAILURE = "failure"
    PARTIAL = "partial"
    NEUTRAL = "neutral"
    NONE = "none"
    UNREAD = "unread"  # the reply is in a language with no cue pack


class Finding(StrEnum):
    FALSE_SUCCESS = "false_success"
    IDENTITY_ASSUMED = "identity_assumed"
    UNREPORTED_FAILURE = "unreported_failure"
    UNLABELLED_PARTIAL = "unlabelled_partial"
    DISCARDED_PARTIAL = "discarded_partial"


class Impact(StrEnum):
    """What a tool call would have done, had it worked (the ``impact`` column)."""

    WRITE = "write"
    READ = "read"
    IDENTITY = "identity"
    UNKNOWN = "unknown"


class Severity(StrEnum):
    CRITICAL = "critical"
    WARNING = "warning"


SEVERITY = {
    Finding.FALSE_SUCCESS: Severity.CRITICAL,
    Finding.IDENTITY_ASSUMED: Severity.CRITICAL,
    Finding.UNREPORTED_FAILURE: Severity.WARNING,
    Finding.UNLABELLED_PARTIAL: Severity.WARNING,
    Finding.DISCARDED_PARTIAL: Severity.WARNING,
}


# The classes a reader makes by the hundred thousand write their own ``__init__``: a
# dataclass's is keyword-only, and a keyword call costs about three times a positional one
# (the keywords are gathered into a dict and matched by name), a seventh of a chat reader's
# work. Every field can still be given by name, as before; the readers' hot paths give the
# leading ones by position. They are still dataclasses (fields, equality, ``replace``).


@dataclass(slots=True, init=False)
class TextPart:
    """Text written by a person, the assistant or the system."""

    kind: Literal["text"]
    text: str
    line: int

    def __init__(self, text: str, line: int, *, kind: Literal["text"] = "text") -> None:
        self.kind = kind
        self.text = text
        self.line = line


@dataclass(slots=True, init=False)
class ToolCall:
    """One tool invocation by the assistant."""

    kind: Literal["tool_call"]
    id: str
    name: str
    arguments: Any  # decoded arguments (dict when the format gave valid JSON)
    server: str | None  # MCP server name when the format records it
    line: int

    def __init__(
        self,
        id: str,
        name: str,
        line: int,
        arguments: Any = None,
        server: str | None = None,
        *,
        kind: Literal["tool_call"] = "tool_call",
    ) -> None:
        self.kind = kind
        self.id = id
        self.name = name
        self.arguments = arguments
        self.server = server
        self.line = line


@dataclass(slots=True, init=False)
class ToolResult:
    """What came back for a call, with the two failure axes kept apart."""

    kind: Literal["tool_result"]
    call_id: str
    line: int
    pointer: str  # JSON pointer of this result record inside its line's JSON
    returned: bool  # False: a protocol-level error came back instead of a result
    rpc_error: dict[str, Any] | None  # the JSON-RPC ``error`` object when returned=False
    is_error: bool | None  # the format's own failure flag, None when it has none
    content: Any  # content as stored: a string, a list of blocks, or None
    structured: Any  # MCP structuredContent
    has_structured: bool
    content_key: str  # field name of ``content`` in the record, for pointers
    structured_key: str
    flag_key: str
    error_key: str  # field name of ``rpc_error`` in the record, for pointers

    def __init__(
        self,
        call_id: str,
        line: int,
        pointer: str = "",
        returned: bool = True,
        rpc_error: dict[str, Any] | None = None,
        is_error: bool | None = None,
        content: Any = None,
        structured: Any = None,
        has_structured: bool = False,
        flag_key: str = "isError",
        content_key: str = "content",
        structured_key: str = "structuredContent",
        error_key: str = "error",
        *,
        kind: Literal["tool_result"] = "tool_result",
    ) -> None:
        self.kind = kind
        self.call_id = call_id
        self.line = line
        self.pointer = pointer
        self.returned = returned
        self.rpc_error = rpc_error
        self.is_error = is_error
        self.content = content
        self.structured = structured
        self.has_structured = has_structured
        self.content_key = content_key
        self.structured_key = structured_key
        self.flag_key = flag_key
        self.error_key = error_key


Part = TextPart | ToolCall | ToolResult


@dataclass(slots=True, init=False)
class Message:
    """One message of a conversation, its parts in the order they were written."""

    role: Literal["user", "assistant", "system", "tool"]
    parts: list[Part]
    line: int
    from_person: bool  # a user message a person wrote (starts a turn)
    message_id: str | None  # formats that stream one message over several records
    timestamp: datetime | None  # when it was written, in formats that record it (UTC)

    def __init__(
        self,
        role: Literal["user", "assistant", "system", "tool"],
        line: int,
        parts: list[Part] | None = None,
        from_person: bool = False,
        message_id: str | None = None,
        timestamp: datetime | None = None,
    ) -> None:
        self.role = role
        self.parts = [] if parts is None else parts
        self.line = line
        self.from_person = from_person
        self.message_id = message_id
        self.timestamp = timestamp


@dataclass(slots=True, init=False)
class Conversation:
    """A whole conversation as one reader saw it."""

    id: str
    source: str
    format: str
    line: int  # first line of the conversation in its source file
    messages: list[Message]
    metadata: dict[str, Any]
    timestamp: datetime | None  # when the record was written, when it says (UTC)
    user_id: str | None  # the person's id, in formats that record one

    def __init__(
        self,
        id: str,
        source: str,
        format: str,
        line: int,
        messages: list[Message] | None = None,
        metadata: dict[str, Any] | None = None,
        timestamp: datetime | None = None,
        user_id: str | None = None,
    ) -> None:
        self.id = id
        self.source = source
        self.format = format
        self.line = line
        self.messages = [] if messages is None else messages
        self.metadata = {} if metadata is None else metadata
        self.timestamp = timestamp
        self.user_id = user_id


@dataclass(slots=True, kw_only=True)
class Reject:
    """An input line or record the auditor could not read, and why."""

    source: str
    line: int
    reason: str
    excerpt: str = ""
    # Where the line starts in the file (in the decompressed stream of a .gz or .zst), for
    # readers that read line by line; None where only the line is known.
    offset: int | None = None
