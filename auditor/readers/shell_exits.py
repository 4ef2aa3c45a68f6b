"""What a shell tool's record says about its command, for formats that keep the exit status in a
field of its own (OpenHands ``metadata.exit_code``): did the command fail, and its output without
the terminal's control sequences.

An exit status other than 0 is a failure, except where the program answers with it:

- ``grep`` and its kin (``rg``, ``ag``, ``ack``, ``git grep``) exit 1 when no line matched, and
  ``diff`` / ``cmp`` / ``git diff`` exit 1 when the inputs differ: an answer, not a failure
  (``ANSWER_EXITS``). The status of a command line is that of the last program it runs, so only
  that program counts: ``grep x f | head`` is ``head``'s status, ``cd src && grep x f`` is
  ``grep``'s (when ``cd`` worked; a failed ``cd`` also exits 1, and prints why, which the outcome
  rules still read).
- ``-1`` is no exit status at all: the host stopped waiting (no new output for a while, or its
  own timeout) while the command went on running, a server started in the foreground say. There
  is no verdict then (``None``): what the command printed decides, as for a format with no flag.

The outcome rules' ``ignored_flag`` table (``rules/outcomes.toml``) does the same for hosts that
only say "Exit code 1" in the text; a reader cannot consult it (readers sit below the audit), so
the programs are listed here.
"""

from __future__ import annotations

import re
import shlex

# Program (basename, or "git <subcommand>") -> exit statuses that answer rather than fail.
ANSWER_EXITS: dict[str, frozenset[int]] = {
    "grep": frozenset({1}),
    "egrep": frozenset({1}),
    "fgrep": frozenset({1}),
    "zgrep": frozenset({1}),
    "rg": frozenset({1}),
    "ag": frozenset({1}),
    "ack": frozenset({1}),
    "git grep": frozenset({1}),
    "diff": frozenset({1}),
    "cmp": frozenset({1}),
    "git diff": frozenset({1}),
}
_ANSWER_CODES = frozenset().union(*ANSWER_EXITS.values())
# The exit status a host records for a command it stopped waiting for (still running).
STILL_RUNNING = -1

_OPERATORS = {";", "&", "&&", "|", "||", "|&", ";;", "(", ")", "{", "}"}
# Words before the program that run it unchanged.
_PREFIXES = {"sudo", "time", "command", "exec", "nice", "nohup", "env", "builtin", "!"}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# Terminal control sequences in recorded output: CSI (colours, bracketed-paste mode switches
# ``ESC[?2004h`` / ``ESC[?2004l``) and OSC (window titles) sequences.
_TERMINAL = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


def command_failed(exit_code: object, command: object) -> bool | None:
    """The failure flag an exit status gives (see the module docstring): None when there is no
    status (not an integer, or ``STILL_RUNNING``), False for 0 and for a program's answer."""
    if not isinstance(exit_code, int) or isinstance(exit_code, bool):
        return None
    if exit_code == STILL_RUNNING:
        return None
    if exit_code == 0:
        return False
    if exit_code not in _ANSWER_CODES or not isinstance(command, str):
        return True
    if not any(name.rsplit(" ", 1)[-1] in command for name in ANSWER_EXITS):
        return True  # none of the programs is named: no need to read the line
    program = last_program(command)
    return not (program is not None and exit_code in ANSWER_EXITS.get(program, frozenset()))


def last_program(command: str) -> str | None:
    """The program whose status a command line ends with (its basename; ``git <subcommand>``
    for git), or None when the line cannot be read (unbalanced quotes, nothing to run)."""
    lexer = shlex.shlex(command.replace("\n", " ; "), posix=True, punctuation_chars=";&|(){}")
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return None
    segments: list[list[str]] = [[]]
    for token in tokens:
        if token in _OPERATORS:
            segments.append([])
        else:
            segments[-1].append(token)
    words = next((segment for segment in reversed(segments) if segment), [])
    position = 0
    while position < len(words) and (
        words[position] in _PREFIXES or _ASSIGNMENT.match(words[position])
    ):
        position += 1
    if position >= len(words):
        return None
    program = words[position].rsplit("/", 1)[-1]
    if program == "git":
        rest = words[position + 1 :]
        while rest and rest[0].startswith("-"):  # git's own options, -C and -c with a value
            rest = rest[2:] if rest[0] in ("-C", "-c") else rest[1:]
        return f"git {rest[0]}" if rest else "git"
    return program


def without_terminal_codes(text: str) -> str:
    """Recorded output without the terminal's control sequences (they are not the program's)."""
    return _TERMINAL.sub("", text) if "\x1b" in text else text
