"""Tool result -> outcome, with the rule that decided it and a pointer to the evidence.

The checks run in the spec's order and the first that applies wins: transport_error,
graphql_partial / graphql_error, tool_error, identity_null, error_payload, ok.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from auditor.audit import graphql
from auditor.audit.command_line import has_fallback, only_shows, programs, runs, without_noise
from auditor.audit.payload import Payload, clip, read_payload
from auditor.audit.tools import is_identity_tool
from auditor.model import Outcome, ToolCall, ToolResult
from auditor.rules_loader import ImpactRules, OutcomeRules

# Wrappers a client puts around a transport error before the "MCP error ..." text.
_WRAPPER = re.compile(r"^\s*(?:<tool_use_error>\s*)?(?:Error:\s*)?")
ERROR_TEXT_CHARS = 8192  # error reports say what they are at the start: never scan further


@dataclass(frozen=True)
class OutcomeDecision:
    outcome: Outcome
    rule_id: str
    evidence: str = ""
    pointer: str = ""
    missing: tuple[str, ...] = ()  # for graphql_partial: the fields that did not come back


def decide(
    call: ToolCall,
    result: ToolResult | None,
    rules: OutcomeRules,
    *,
    payload: Payload | None = None,
    late: bool = False,
    impact: ImpactRules | None = None,
) -> OutcomeDecision:
    """The outcome of one call. ``late``: its result only came after the assistant spoke again.

    ``payload`` is the result's already-read payload, when the caller has it; ``impact`` the
    rules that say which tools run a command line (the shipped ones when None).
    """
    if result is None:
        return OutcomeDecision(Outcome.TRANSPORT_ERROR, "no-result", "no tool result came back")
    if late:
        return OutcomeDecision(
            Outcome.TRANSPORT_ERROR,
            "late-result",
            "the result came after the assistant spoke again",
        )
    if not result.returned:
        error = result.rpc_error or {}
        code = error.get("code")
        message = error.get("message", "")
        evidence = f"{code}: {message}" if code is not None else str(message)
        return OutcomeDecision(
            Outcome.TRANSPORT_ERROR,
            "jsonrpc-error",
            clip(evidence),
            f"{result.pointer}/{result.error_key}",
        )
    payload = payload or read_payload(result)
    for value in payload.values:
        if _jsonrpc_error(value.value):
            # A JSON-RPC error response passed on as the tool's text: no result came back.
            error = value.value["error"]
            return OutcomeDecision(
                Outcome.TRANSPORT_ERROR,
                "jsonrpc-error",
                clip(f"{error.get('code')}: {error.get('message', '')}"),
                result.pointer + value.pointer + "/error",
            )
    for text in payload.texts:
        unwrapped = _WRAPPER.sub("", text.text, count=1)
        for rule_id, regex in rules.transport_res:
            if regex.match(unwrapped):
                return OutcomeDecision(
                    Outcome.TRANSPORT_ERROR, rule_id, clip(unwrapped), result.pointer + text.pointer
                )
    verdict = graphql.judge(payload)
    if verdict is not None:
        return OutcomeDecision(
            verdict.outcome,
            verdict.rule_id,
            verdict.evidence,
            result.pointer + verdict.pointer,
            verdict.missing,
        )
    found = programs(call, impact)
    ignored_rule = (
        next(
            (
                rule
                for rule in rules.ignored_flag
                if rule.matches(
                    call.name,
                    [without_noise(t.text, found, rules) for t in payload.texts],
                    call.arguments,
                )
            ),
            None,
        )
        if result.is_error
        else None
    )
    ignored = ignored_rule.id if ignored_rule else None
    if ignored_rule is not None and ignored_rule.settled:
        return OutcomeDecision(Outcome.OK, f"flag-ignored:{ignored}")
    if result.is_error and ignored is None:
        first = payload.texts[0].text if payload.texts else ""
        return OutcomeDecision(
            Outcome.TOOL_ERROR, "flagged-error", clip(first), f"{result.pointer}/{result.flag_key}"
        )
    if is_identity_tool(call.name, rules) and _no_identity(payload, rules):
        shown = payload.texts[0].text if payload.texts else "(empty result)"
        where = (
            payload.values[0].pointer
            if payload.values
            else (payload.texts[0].pointer if payload.texts else f"/{result.content_key}")
        )
        return OutcomeDecision(
            Outcome.IDENTITY_NULL, "identity-null", clip(shown), result.pointer + where
        )
    # With a fallback (``a || b``) that ran, the flag tells the outcome; the text holds the
    # errors of the attempt it replaced.
    failure = None if has_fallback(call, impact) else _error_payload(call, payload, rules, found)
    if failure is not None:
        rule_id, evidence, pointer = failure
        return OutcomeDecision(
            Outcome.ERROR_PAYLOAD, rule_id, clip(evidence), result.pointer + pointer
        )
    return OutcomeDecision(Outcome.OK, f"flag-ignored:{ignored}" if ignored else "ok")


def _null_shaped(value: Any, ignore: frozenset[str]) -> bool:
    """No identity in it: null, "", "null", {}, [], or objects whose every field is such."""
    if value is None:
        return True
    if isinstance(value, str):
        return value.strip().lower() in ("", "null", "none", "{}", "undefined")
    if isinstance(value, dict):
        return all(_null_shaped(v, ignore) for k, v in value.items() if k not in ignore)
    if isinstance(value, list):
        return all(_null_shaped(v, ignore) for v in value)
    return False


def _no_identity(payload: Payload, rules: OutcomeRules) -> bool:
    ignore = frozenset(rules.identity.ignore_keys)
    keys = frozenset(rules.identity.identity_keys)
    if any(not _null_shaped(_identity_part(v.value, keys), ignore) for v in payload.values):
        return False
    return all(_null_shaped(t.text, ignore) for t in payload.plain)


def _identity_part(value: Any, keys: frozenset[str]) -> Any:
    """The fields of an answer that hold the identity (``user``, ``viewer``; at the top or
    under ``data``), when it has any; else the whole answer."""
    if not isinstance(value, dict):
        return value
    inner = value.get("data")
    for found in (value, inner if isinstance(inner, dict) else {}):
        named = {k: v for k, v in found.items() if k in keys}
        if named:
            return named
    return value


def _error_payload(
    call: ToolCall, payload: Payload, rules: OutcomeRules, programs_run: list[str] | None
) -> tuple[str, str, str] | None:
    for found in payload.values:
        value = found.value
        if not isinstance(value, dict):
            continue
        for envelope in rules.envelope:
            if envelope.key in value and envelope.matches(value[envelope.key]):
                return envelope.id, _describe(value), f"{found.pointer}/{envelope.key}"
        lone = _lone_error(value, rules)
        if lone is not None:
            return rules.lone_error.id, _describe(value), f"{found.pointer}/{lone}"
    # A search's output holds what it searched for, a viewer's what it was asked to show: error
    # words in either are data. Only rules that name the program that wrote a text read it then.
    plain = payload.plain
    data_only = bool(plain) and (_runs_a_search(call, rules) or only_shows(programs_run, rules))
    for text in plain:
        cleaned = without_noise(text.text, programs_run, rules)
        head = cleaned[:ERROR_TEXT_CHARS].lstrip()
        tail = cleaned[-ERROR_TEXT_CHARS:] if len(cleaned) > ERROR_TEXT_CHARS else ""
        lines: int | None = None
        for rule in rules.error_text_compiled:
            if rule.needs_program:
                if not runs(programs_run, call, rule.runs, rules):
                    continue
            elif data_only:
                continue
            if rule.max_lines is not None:
                lines = lines if lines is not None else _count_lines(cleaned, rule.max_lines)
                if lines > rule.max_lines:
                    continue
            match = rule.regex.search(head) or (rule.anywhere and tail and rule.regex.search(tail))
            if match:
                # the line a pattern marks as its ``evidence`` group, else where it matched
                at = match.start("evidence") if "evidence" in rule.regex.groupindex else None
                shown = _line_at(match.string, match.start() if at is None else at)
                shown = shown if rule.anywhere or at is not None else head
                return rule.id, shown.splitlines()[0] if shown else "", text.pointer
    if plain and rules.runner_re.search(call.name) and not only_shows(programs_run, rules):
        for text in plain:
            for regex in rules.test_failure_res:
                match = regex.search(text.text)
                if match:
                    return rules.test_summary.id, match.group(0).strip(), text.pointer
    return None


def _line_at(text: str, index: int) -> str:
    """The whole line of ``text`` that holds ``index``, stripped."""
    start = text.rfind("\n", 0, index) + 1
    end = text.find("\n", index)
    return text[start : end if end >= 0 else len(text)].strip()


def _runs_a_search(call: ToolCall, rules: OutcomeRules) -> bool:
    """A shell-like call whose command is a search (``grep``, ``| rg``)."""
    if not rules.general_tools_re.search(call.name):
        return False
    arguments = call.arguments
    values = arguments.values() if isinstance(arguments, dict) else [arguments]
    return any(isinstance(v, str) and rules.search_commands_re.search(v) for v in values)


def _count_lines(text: str, limit: int) -> int:
    """Non-blank lines of a text, counted no further than just past ``limit``."""
    count = 0
    for line in text.splitlines():
        if line.strip():
            count += 1
            if count > limit:
                break
    return count


def _lone_error(value: dict[str, Any], rules: OutcomeRules) -> str | None:
    """The key of a lone error object's error, or None when the object carries real data.

    Lone: nothing but error metadata beside a truthy error key or an HTTP error status; or a
    non-empty error message or object beside keys that carry no result data (scalars that echo
    the request, empty lists, keys that explain the error): ``{"error": "not found", "id": 7}``.
    """
    lone = rules.lone_error
    metadata = rules.lone_metadata_keys
    if metadata.issuperset(value):
        for key in lone.error_keys:
            if value.get(key):
                return key
        for key in lone.status_keys:
            status = value.get(key)
            if isinstance(status, int) and not isinstance(status, bool) and 400 <= status <= 599:
                return key
        return None
    error_key = next(
        (key for key in lone.error_keys if isinstance(value.get(key), (str, dict)) and value[key]),
        None,
    )
    if error_key is None or (isinstance(value[error_key], str) and not value[error_key].strip()):
        return None
    for key, item in value.items():
        if key in metadata or rules.lone_metadata_key_re.search(key):
            continue
        if isinstance(item, (list, dict)) and item:
            return None  # result data beside the error: a partial answer, not a lone error
    return error_key


def _describe(value: dict[str, Any]) -> str:
    """A short human reading of an error envelope: its error/message fields."""
    pieces = []
    for key in ("status", "statusCode", "code", "error", "message", "detail", "reason"):
        if key in value and value[key] not in (None, "", [], {}):
            shown = value[key]
            if isinstance(shown, dict):
                shown = shown.get("message") or shown.get("code") or shown
            pieces.append(f"{key}={shown}")
    return "; ".join(pieces) or str(value)


def _jsonrpc_error(value: Any) -> bool:
    """Is ``value`` a JSON-RPC 2.0 error response (``{"jsonrpc": "2.0", "error": {…}}``)?"""
    return (
        isinstance(value, dict)
        and value.get("jsonrpc") == "2.0"
        and "result" not in value
        and isinstance(value.get("error"), dict)
        and ("code" in value["error"] or "message" in value["error"])
    )
