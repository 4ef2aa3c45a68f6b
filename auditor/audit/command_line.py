"""The command line of a shell call, read far enough to say which programs it runs.

Coding agents run builds and tests through a shell tool, often piped into ``tail``, ``head`` or
``grep``: the pipe hides the exit status, so the text is all there is to judge. Which program
wrote that text decides which rules may read it: a compiler's ``error[E0277]`` printed by
``cargo build | tail`` is a failure, the same line printed by ``cat build.log`` is what the call
was asked to show.
"""

from __future__ import annotations

import re

from auditor.audit.commands import command_of, parse_command
from auditor.model import ToolCall
from auditor.rules_loader import ImpactRules, OutcomeRules

# ``a || b`` where ``b`` is another way to do it (not ``|| true``, ``|| echo``): errors ``a``
# printed were handled by ``b``, and the exit status is ``b``'s.
_FALLBACK = re.compile(r"\|\|\s*(?!(?:true|false|:|echo|printf|exit|return)\b)[A-Za-z./~$({]")


def has_fallback(call: ToolCall, impact: ImpactRules | None = None) -> bool:
    """Does the call's command line run another command when the first fails?"""
    line = command_of(call, impact)
    return line is not None and _FALLBACK.search(line) is not None


def programs(call: ToolCall, impact: ImpactRules | None = None) -> list[str] | None:
    """The programs a call's command line runs, in order, each from its program on (``cargo
    test -p x``); None when the call runs no command line. ``commands`` reads the line."""
    line = command_of(call, impact)
    if line is None:
        return None
    return [segment.command for segment in parse_command(line, impact) if segment.command]


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
