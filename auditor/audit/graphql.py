"""GraphQL responses inside tool results, and the four-way rule of the spec.

A GraphQL server answers HTTP 200 with ``errors`` beside ``data``. The data decides, not any
flag: errors with at least one non-null top-level field is ``graphql_partial``; errors with no
surviving data (``data`` absent, null, or every top-level field null) is ``graphql_error``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from auditor.audit.payload import Payload, clip
from auditor.model import Outcome

RESPONSE_KEYS = frozenset({"data", "errors", "extensions", "hasNext", "label", "path"})


@dataclass(frozen=True)
class GraphQLVerdict:
    outcome: Outcome
    pointer: str
    evidence: str
    rule_id: str
    missing: tuple[str, ...] = ()  # names of the fields the errors left null


def is_response(value: Any) -> bool:
    """A JSON object shaped like a GraphQL response (``data`` and/or ``errors``, nothing else)."""
    return (
        isinstance(value, dict)
        and ("data" in value or "errors" in value)
        and RESPONSE_KEYS.issuperset(value)
        and (value.get("data") is None or isinstance(value.get("data"), dict))
    )


def _error_message(error: Any) -> str:
    if isinstance(error, dict):
        message = error.get("message")
        code = (
            (error.get("extensions") or {}).get("code")
            if isinstance(error.get("extensions"), dict)
            else None
        )
        code = code or error.get("type")
        text = str(message) if message is not None else str(error)
        return f"{text} [{code}]" if code else text
    return str(error)


def _error_fields(errors: list) -> list[str]:
    """The field names the errors point at (the last name in each error's ``path``)."""
    fields = []
    for error in errors:
        path = error.get("path") if isinstance(error, dict) else None
        if isinstance(path, list):
            names = [p for p in path if isinstance(p, str)]
            if names:
                fields.append(names[-1])
    return fields


def judge(payload: Payload) -> GraphQLVerdict | None:
    """The GraphQL outcome of a result, or None when it holds no failing GraphQL response."""
    for found in payload.values:
        response = found.value
        if not is_response(response):
            continue
        errors = response.get("errors")
        if not isinstance(errors, list) or not errors:
            continue
        data = response.get("data")
        surviving = [k for k, v in data.items() if v is not None] if isinstance(data, dict) else []
        evidence = clip(_error_message(errors[0]))
        pointer = f"{found.pointer}/errors/0"
        if surviving:
            nulled = [k for k, v in data.items() if v is None]
            detail = f"; null: {', '.join(nulled)}" if nulled else ""
            missing = tuple(dict.fromkeys([*nulled, *_error_fields(errors)]))
            return GraphQLVerdict(
                Outcome.GRAPHQL_PARTIAL,
                pointer,
                clip(evidence + detail),
                "graphql-partial-data",
                missing,
            )
        return GraphQLVerdict(Outcome.GRAPHQL_ERROR, pointer, evidence, "graphql-no-data")
    return None
