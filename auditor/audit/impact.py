"""What a tool call would have done, had it worked: a write, a read, an identity lookup.

The knowledge is rule data (``rules/impact.toml``); this module applies it. A false success on a
write ranks above one on a read: ``rank`` gives the order findings are listed in.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from auditor.audit.commands import command_impact, command_of
from auditor.audit.tools import bare_tool_name, is_identity_tool, tool_words
from auditor.model import Impact, ToolCall
from auditor.rules_loader import (
    ImpactRules,
    OutcomeRules,
)

__all__ = ["IMPACT_RANK", "Impact", "argument_strings", "coding_tool_impact", "impact_of", "ranked"]

# Lower ranks first: what the person was told changed comes before what they were told.
IMPACT_RANK = {Impact.WRITE: 0, Impact.UNKNOWN: 1, Impact.READ: 2, Impact.IDENTITY: 2}
SEVERITY_RANK = {"critical": 0, "warning": 1}
RANK_COLUMNS = ("severity", "impact", "source", "line", "tool_call_id")  # what ``ranked`` reads


def argument_strings(value: Any, depth: int = 0) -> list[tuple[str, str]]:
    """(key, string) pairs of an argument value, a few levels deep."""
    if depth > 3:
        return []
    if isinstance(value, dict):
        found: list[tuple[str, str]] = []
        for key, inner in value.items():
            if isinstance(inner, str):
                found.append((str(key), inner))
            else:
                found.extend(argument_strings(inner, depth + 1))
        return found
    if isinstance(value, list):
        return [pair for item in value[:20] for pair in argument_strings(item, depth + 1)]
    if isinstance(value, str):
        return [("", value)]
    return []


def impact_of(
    call: ToolCall,
    rules: ImpactRules,
    outcome_rules: OutcomeRules,
    annotations: dict[str, dict[str, Any]] | None = None,
) -> Impact:
    """What ``call`` would have done: its annotations, a coding-agent tool's name or editor
    command, its shell command, its GraphQL document, identity, its arguments, then the words
    of its name decide (see ``rules/impact.toml``)."""
    hints = (annotations or {}).get(call.name)
    if hints is None and annotations:
        bare = bare_tool_name(call.name)
        hints = annotations.get(bare)
    if isinstance(hints, dict):
        if hints.get("destructiveHint") is True or hints.get("readOnlyHint") is False:
            return Impact.WRITE
        if hints.get("readOnlyHint") is True:
            return Impact.READ
    coding = coding_tool_impact(call, rules)
    if coding is not None:
        return coding
    command = command_of(call, rules)
    if command is not None:
        return command_impact(command, rules)
    strings = argument_strings(call.arguments)
    for _, text in strings:
        if rules.mutation.search(text):
            return Impact.WRITE
    if any(rules.query.search(text) for _, text in strings):
        return Impact.READ
    if is_identity_tool(call.name, outcome_rules):
        return Impact.IDENTITY
    for key, text in strings:
        if any(key in keys and pattern.search(text) for keys, pattern in rules.write_arguments):
            return Impact.WRITE
    for key, text in strings:
        if any(key in keys and pattern.search(text) for keys, pattern in rules.read_arguments):
            return Impact.READ
    for word in tool_words(call.name):
        if word in rules.write_words:
            return Impact.WRITE
        if word in rules.read_words:
            return Impact.READ
    return Impact.UNKNOWN


def coding_tool_impact(call: ToolCall, rules: ImpactRules) -> Impact | None:
    """A coding-agent tool known by name (``Read``, ``Edit``, SWE-agent ``open``), or an editor
    tool by its command argument (``str_replace_editor`` view / create); None for others."""
    names = {call.name.lower(), bare_tool_name(call.name).lower()}
    arguments = call.arguments if isinstance(call.arguments, dict) else {}
    for tools, key, reads, writes in rules.editors:
        if names & tools and isinstance(arguments.get(key), str):
            command = arguments[key].strip().lower()
            if command in reads:
                return Impact.READ
            if command in writes:
                return Impact.WRITE
    for name in names:
        if name in rules.coding_tools:
            return Impact(rules.coding_tools[name])
    return None


def ranked(frame: pl.DataFrame | pl.LazyFrame) -> Any:
    """Findings in the order to read them: critical first, and within a severity, writes before
    unknown calls before reads; then by file and line."""
    impact_rank = pl.col("impact").replace_strict(
        {k.value: v for k, v in IMPACT_RANK.items()}, default=1, return_dtype=pl.Int8
    )
    severity_rank = pl.col("severity").replace_strict(
        SEVERITY_RANK, default=2, return_dtype=pl.Int8
    )
    columns = frame.collect_schema().names()
    keys = [severity_rank, impact_rank] if "impact" in columns else [severity_rank]
    return frame.sort([*keys, "source", "line", "tool_call_id"], nulls_last=True)
