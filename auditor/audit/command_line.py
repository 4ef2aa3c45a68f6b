"""The command line of a shell call, read far enough to say which programs it runs.

Coding agents run builds and tests through a shell tool, often piped into ``tail``, ``head`` or
``grep``: the pipe hides the exit status, so the text is all there is to judge. Which program
wrote that text decides which rules may read it: a compiler's ``error[E0277]`` printed by
``cargo build | tail`` is a failure, the same line printed by ``cat build.log`` is what the call
was asked to show.
"""

from __future__ import annotations

import re

from auditor.model import ToolCall
from auditor.rules_loader import OutcomeRules

_SHELLS = re.compile(r"^(?:/\S*/)?(?:ba|z|da|k)?sh$")
_ASSIGNMENT = re.compile(r"""^[A-Za-z_]\w*=(?:"[^"]*"|'[^']*'|\S)*\s*""")
_REDIRECT = re.compile(r"^(?:\d?[<>]&?\d*\s*\S+\s*)+")


def command_line(call: ToolCall, rules: OutcomeRules) -> str | None:
    """The command line of a call to a tool that runs commands, or None (no such argument)."""
    if not rules.runner_re.search(call.name):
        return None
    arguments = call.arguments
    if isinstance(arguments, str):
        return arguments
    if not isinstance(arguments, dict):
        return None
    for key in rules.shell.command_keys:
        value = arguments.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            # ["bash", "-lc", "cargo test"] runs its last word; ["cargo", "test"] is the line.
            if _SHELLS.match(value[0]) and len(value) >= 3 and value[-2].endswith("c"):
                return value[-1]
            return " ".join(value)
    return None


def simple_commands(line: str) -> list[str]:
    """The simple commands of a command line: split at unquoted ``&& || ; | &``, new lines,
    parentheses and command substitutions."""
    parts: list[str] = []
    current: list[str] = []
    quote = ""
    index = 0
    while index < len(line):
        char = line[index]
        if quote:
            if char == "\\" and quote == '"' and index + 1 < len(line):
                current.append(line[index : index + 2])
                index += 2
                continue
            if char == quote:
                quote = ""
            current.append(char)
        elif char == "\\" and index + 1 < len(line):
            current.append(line[index : index + 2])
            index += 2
            continue
        elif char in "'\"":
            quote = char
            current.append(char)
        elif char in "&|;\n()`" or (char == "$" and line[index + 1 : index + 2] == "("):
            if char == "&" and current and current[-1] in "<>":
                current.append(char)  # 2>&1 is a redirection, not a separator
            else:
                parts.append("".join(current))
                current = []
        else:
            current.append(char)
        index += 1
    parts.append("".join(current))
    return [part.strip() for part in parts if part.strip()]


def program_of(command: str, rules: OutcomeRules) -> str:
    """A simple command from its program on: without variable assignments, redirections and
    wrappers such as ``time``, ``sudo``, ``env`` or ``timeout 60``."""
    previous = None
    while previous != command:
        previous = command
        command = _ASSIGNMENT.sub("", command, count=1)
        command = _REDIRECT.sub("", command, count=1)
        wrapper = rules.shell_wrappers_re.match(command)
        if wrapper and wrapper.end() > 0:
            command = command[wrapper.end() :].lstrip()
    return command


def programs(line: str | None, rules: OutcomeRules) -> list[str] | None:
    """The programs a command line runs, in order; None when the call has no command line."""
    if line is None:
        return None
    return [p for p in (program_of(c, rules) for c in simple_commands(line)) if p]


def runs(
    found: list[str] | None, call: ToolCall, regex: re.Pattern[str] | None, rules: OutcomeRules
) -> bool:
    """Does the call run a program that ``regex`` matches (None: any program that is not a
    viewer)? ``found`` is ``programs()`` of its command line. A tool that runs commands but
    names none (``run_tests``) runs itself."""
    if found is None:
        if regex is None:
            return rules.runner_re.search(call.name) is not None
        return regex.match(call.name) is not None
    if regex is None:
        return any(not rules.shell_viewers_re.match(p) for p in found)
    return any(regex.match(p) for p in found)


def only_shows(found: list[str] | None, rules: OutcomeRules) -> bool:
    """A command line whose every program prints stored text or filters it (``cat``, ``grep``,
    ``gh run view``): what it prints is what the call was asked to show."""
    return bool(found) and all(rules.shell_viewers_re.match(p) for p in found or [])


def without_noise(text: str, found: list[str] | None, rules: OutcomeRules) -> str:
    """The text without the lines a shell hook or build tool printed beside the command's own
    output (the ``[[shell.noise]]`` rules whose program the command line runs; ``found`` is
    ``programs()`` of the line)."""
    if found is None or not rules.shell_noise_res:
        return text
    patterns = [
        pattern
        for runs_re, lines in rules.shell_noise_res
        if any(runs_re.match(p) for p in found)
        for pattern in lines
    ]
    if not patterns:
        return text
    kept = [row for row in text.splitlines() if not any(p.match(row) for p in patterns)]
    return "\n".join(kept)
