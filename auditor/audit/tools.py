"""Tool names: the one place that knows how hosts prefix a tool with its MCP server, and what a
tool's name says it does.

``mcp__github__get_me`` (Claude Code), ``github.get_me``, ``github/get_me`` and
``github:get_me`` all name the tool ``get_me`` of the server ``github``.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from auditor.audit.words import argument_strings, name_words
from auditor.rules_loader import OutcomeRules

# What separates a server from its tool in the names hosts give.
SERVER_SEPARATORS = r"__|[./:]"
_SEPARATORS = re.compile(SERVER_SEPARATORS)
_WORD_SPLIT = re.compile(r"[_\-.\s/:]+|(?<=[a-z0-9])(?=[A-Z])")


@functools.lru_cache(maxsize=4096)
def bare_tool_name(name: str) -> str:
    """A tool name without its MCP server prefix (``mcp__github__get_me`` -> ``get_me``)."""
    pieces = [p for p in _SEPARATORS.split(name) if p]
    return pieces[-1] if pieces else name


def tool_words(name: str) -> list[str]:
    """The words of a tool name, MCP prefix removed: ``mcp__slack__postMessage`` → post, message."""
    return [w.lower() for w in _WORD_SPLIT.split(bare_tool_name(name)) if w]


def is_identity_tool(name: str, rules: OutcomeRules) -> bool:
    """Is this one of the rules' identity tools (``get_me``, ``whoami``...), prefix or not?"""
    lowered = name.lower()
    return lowered in rules.identity_tools or bare_tool_name(lowered) in rules.identity_tools


_PLAIN_WORD = re.compile(r"[a-z][a-z_:-]*")
_GRAPHQL_OPERATION = re.compile(
    r"^\s*(?:mutation|subscription)\b[^{]*\{\s*(?:\w+\s*:\s*)?(\w+)", re.IGNORECASE
)


def call_actions(
    name: str, arguments: Any, commands: list[str] | None, actions: dict[str, frozenset[str]]
) -> frozenset[str]:
    """The actions a call that changes something did, from the words of its name, of the
    programs and subcommands its command line runs (``git push``), and of the first field of a
    GraphQL mutation it sends (``issueAssign``)."""
    text = name_words(name)
    for command in commands or ():
        words = command.split()
        # the program and subcommand, and a task a runner runs ("python manage.py migrate",
        # "npm run migrate", "flyway -url=… migrate"): the plain words among the next three
        text += " " + " ".join(words[:2] + [w for w in words[2:4] if _PLAIN_WORD.fullmatch(w)])
    for value in argument_strings(arguments, 50):
        if isinstance(value, str) and (found := _GRAPHQL_OPERATION.match(value)):
            text += " " + name_words(found.group(1))
    found_actions: set[str] = set()
    for word in re.findall(r"[a-z]+", text.lower()):
        found_actions |= actions.get(word, frozenset())
    return frozenset(found_actions)
