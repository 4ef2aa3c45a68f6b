"""Recovery and probes: how the assistant got past a failed call.

A failed call is *recovered* when what it tried to do got done by a call that worked: the same
*target* (the record, file, path, channel or subject it acts on) with the same *effect* (a
write by a write, a read by a read), later in its turn, beside it in the same message, or in
the next turn after the assistant put a corrected request to the person. The tool's name does
not decide: ``Read`` then ``Edit`` after a "read the file first" refusal recovers the first
``Edit``; ``update_ticket`` 43 does not recover ``update_ticket`` 42. What names a target is
rule data (``rules/recovery.toml``).

A *probe* is a failed read the assistant moved past with further calls in the same turn.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from typing import Any

from auditor.audit.command_line import programs
from auditor.audit.commands import command_of, parse_command
from auditor.audit.pairing import CallSlot, Texts
from auditor.audit.tools import call_actions
from auditor.audit.words import argument_strings, has_digit, name_words, words
from auditor.model import (
    FAILED_OUTCOMES,
    Outcome,
    ToolCall,
)
from auditor.rules_loader import RecoveryRules, RuleSet, default_recovery_rules

COMPLAINT_CHARS = 2000  # the part of a failed result that says what was wrong


SAME_COMMAND_SHARE = 0.5  # share of its words a rerun keeps, changing only what the error named


SAME_COMMAND_CLOSE = 0.7  # share of its words a rerun keeps to be the same command whatever changed


SAME_CONTENT_SHARE = 0.5  # share of the smaller edit's words that a retry of a write keeps


PATH_RUN = 2  # components two paths must share, aligned, to name one place


PHRASE_WORDS, PHRASE_CHARS = 4, 160  # a quoted title or name: words at least, characters at most


_HELP = re.compile(r"(?:^|\s)(?:--help|-h|help)(?:\s|$)")


_FILE_NAME = re.compile(r"^[\w.-]+\.[A-Za-z]\w{0,5}$")


_KEY_SPLIT = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|-")


# The table an SQL statement acts on: what it deletes from, inserts into, updates, merges into,
# truncates, drops, alters or creates, or else the first it selects from.
_SQL_START = re.compile(
    r"^\s*(?:with|select|insert|update|delete|merge|truncate|drop|alter|create|copy)\b", re.I
)
_SQL_TABLE = re.compile(
    r"\b(?:delete\s+from|insert\s+(?:overwrite\s+)?into|update|merge\s+into|truncate(?:\s+table)?"
    r"|(?:drop|alter|create(?:\s+or\s+replace)?)\s+table(?:\s+if\s+(?:not\s+)?exists)?)"
    r"\s+([\w.\"`\[\]]+)|\bfrom\s+([\w.\"`\[\]]+)",
    re.I,
)


# Programs that only move about or print: they say nothing of what a command line is for.
PLUMBING = frozenset({"cd", "echo", "printf", "sleep", "pwd", "export", "source", "set", "true"})


# Programs that filter another's output on a pipe (``cargo test | tail -20``).
FILTERS = frozenset(
    {"tail", "head", "grep", "rg", "sort", "uniq", "wc", "less", "more", "tee", "xargs", "cut"}
    | {"tr", "jq", "column", "nl", "awk", "sed", "cat"}
)


# Subcommands that run another program: the words after them say what it does.
RUNNERS = frozenset({"run", "exec", "x", "dlx", "script"})


RUNNER_WORDS = 3  # leading words of a command that say what it does


# Options that name the program or package a command acts on.
NAMING_OPTIONS = ("--bin=", "-p=", "--package=")


_OBJECT = re.compile(r"^[A-Za-z][\w.-]{2,}$")  # a name a command acts on: ``uuid``, ``autopilot``


@dataclass
class Target:
    """What a call acts on, read from its arguments."""

    values: dict[str, str] = field(default_factory=dict)  # target key -> value
    paths: list[tuple[str, ...]] = field(default_factory=list)  # path components
    commands: set[tuple[str, tuple[str, ...]]] = field(default_factory=set)  # see _invocation
    query: set[str] = field(default_factory=set)  # the words a read looks for
    content: set[str] = field(default_factory=set)  # the words a write puts in place
    help_only: bool = False  # a command that only asks for its usage (``--help``)
    objects: set[str] = field(default_factory=set)  # what a command acts on (``uuid``)
    values_named: set[str] = field(default_factory=set)  # its ids and numbers (``d-016``)
    phrases: set[str] = field(default_factory=set)  # a title or name it gave, several words
    text: str = ""  # the call's arguments as lower-cased text
    places: set[str] = field(default_factory=set)  # where a command acts: hosts, env files, apps
    # the place each place option or argument names: ``{"context": "staging-eu-1"}``
    place_of: dict[str, str] = field(default_factory=dict)
    table: str = ""  # the table an SQL statement in its arguments acts on


def recover(
    slots: list[CallSlot],
    rules: RuleSet,
    texts: Texts | None = None,
    requests: dict[int, str] | None = None,
) -> None:
    """Set ``recovered_by`` on failed calls whose target and effect a call that worked
    achieved (see the module's docstring)."""
    recovery = rules.recovery or default_recovery_rules()
    noise = rules.outcomes.command_noise_re
    targets: dict[int, Target] = {}

    def target(slot: CallSlot) -> Target:
        if id(slot) not in targets:
            targets[id(slot)] = target_of(slot.call, recovery)
        return targets[id(slot)]

    actions: dict[int, frozenset[str] | None] = {}

    def actions_of(slot: CallSlot) -> frozenset[str] | None:
        """What a call does (``actions.toml``); None for a command line, whose goal an edit
        of a file can reach (``cargo add uuid``, then Cargo.toml edited)."""
        if id(slot) not in actions:
            call = slot.call
            runs = programs(call, rules.impact) is not None
            actions[id(slot)] = (
                None if runs else call_actions(call.name, call.arguments, None, rules.actions)
            )
        return actions[id(slot)]

    for slot in slots:
        if slot.outcome not in FAILED_OUTCOMES and slot.outcome != Outcome.IDENTITY_NULL:
            continue
        complaint = _complaint(slot)
        asked = _asked_person(slot, texts or {}, recovery)
        answer = (requests or {}).get(slot.turn + 1, "")
        request = set(words((requests or {}).get(slot.turn, "")))
        for other in slots:
            if other is slot or other.outcome != Outcome.OK or not _same_effect(slot, other):
                continue
            if _other_actions(actions_of(slot), actions_of(other)):
                # Another action on the same record (assigning the issue it failed to add to a
                # sprint, mailing a confirmation for a claim whose photos failed to attach) does
                # not do what the failed call tried, whatever impact the rules gave either.
                continue
            if (
                slot.impact in ("write", "unknown")
                and other.position < _ready(slot)
                and not _twin(slot, other)
            ):
                # A write is recovered by a call doing the same action on the same record: a
                # retry made once its failure was known, or a duplicate sent beside it. Not by
                # a call beside it for another item (the same tool for another SKU), nor by
                # another step for the same record (accounts made beside a failed enrolment);
                # nor is a call that may be a write, by what its name does not say.
                continue
            same_turn = other.turn == slot.turn and (
                other.position > slot.position or other.group == slot.group
            )
            if same_turn and _each_asked_for(
                _without_noise(slot.call.arguments, noise),
                _without_noise(other.call.arguments, noise),
                request,
            ):
                # "Move chemistry for 7B and 7C": the call for 7C is the next item the person
                # asked for, not a correction of 7B, even when the error named 7B.
                continue
            if same_turn and _same_target(slot, other, target, complaint, noise):
                slot.recovered_by = other.call.id
                break
            if (
                asked
                and other.turn == slot.turn + 1
                and other.call.name == slot.call.name
                and _corrected_as_put(
                    slot.call.arguments, other.call.arguments, asked + answer, recovery.months
                )
            ):
                # A corrected request (another value, option or target) the person answered.
                slot.recovered_by = other.call.id
                break


def _share_a_word(first: str, second: str) -> bool:
    """Do two names share a word of three letters or more (``orders_2023`` and ``orders``,
    ``page_views_2025`` and ``events.page_views``)?"""
    first_words, second_words = (
        {w for w in name_words(name).lower().split() if len(w) >= 3 and w.isalpha()}
        for name in (first, second)
    )
    return bool(first_words & second_words)


def _each_asked_for(before: Any, after: Any, request: set[str]) -> bool:
    """Do the two calls differ only in words the person's request named on both sides: the old
    value and the new one (``7B`` and ``7C``; ``git push origin main`` and ``… v2.3.1`` after
    "push main and tag v2.3.1")? Then they are two items of one request, not a correction."""
    if not request or not isinstance(before, dict) or not isinstance(after, dict):
        return False
    changed = [
        (before[key], after[key])
        for key in before.keys() & after.keys()
        if before[key] != after[key]
        and isinstance(before[key], (str, int))
        and isinstance(after[key], (str, int))
    ]
    for old, new in changed:
        old_words, new_words = set(words(str(old))), set(words(str(new)))
        dropped, added = old_words - new_words, new_words - old_words
        if not dropped or not added or not (dropped | added) <= request:
            return False
    return bool(changed)


def _ready(slot: CallSlot) -> int:
    """Where the call's result came back (its own position when none did)."""
    return slot.result_position if slot.result_position is not None else slot.position


def _twin(failed: CallSlot, other: CallSlot) -> bool:
    """Is ``other``, sent before the failure was known, the same request again: the same tool,
    naming every id and code the failed call named (``book_reservation`` sent twice with the
    same flights, one with a payment in the wrong shape)?"""
    if failed.call.name != other.call.name:
        return False
    theirs = set(_ids(other.call.arguments))
    return all(value in theirs for value in _ids(failed.call.arguments))


def _ids(arguments: Any) -> list[str]:
    """The id-like values of a call's arguments: strings and numbers with digits in them."""
    return [
        str(value)
        for value in argument_strings(arguments, 200)
        if len(str(value)) >= 3 and has_digit(str(value))
    ]


def _other_actions(mine: frozenset[str] | None, theirs: frozenset[str] | None) -> bool:
    """Do both calls name what they do, and name different actions? Command lines (None) are
    not compared."""
    return bool(mine and theirs and not mine & theirs)


def mark_probes(slots: list[CallSlot]) -> None:
    """A failed read after which the assistant made further calls in the same turn is a
    probe: it reacted to the failure and moved past it. An identity call never is one."""
    for slot in slots:
        if slot.outcome not in FAILED_OUTCOMES or slot.impact != "read":
            continue
        done = slot.result_position if slot.result_position is not None else slot.position
        slot.probe = any(
            other.turn == slot.turn and other.position > done and other is not slot
            for other in slots
        )


def _same_effect(failed: CallSlot, other: CallSlot) -> bool:
    """A write is recovered only by a write; a read by a read (or the same tool again)."""
    if failed.impact == "write":
        return other.impact == "write"
    if failed.impact == "identity":
        return other.impact == "identity"
    if failed.impact == "read":
        return other.impact == "read" or other.call.name == failed.call.name
    return other.impact != "read" or other.call.name == failed.call.name


def _same_target(
    failed: CallSlot,
    other: CallSlot,
    target: Any,
    complaint: str,
    noise: re.Pattern[str],
) -> bool:
    if failed.impact == "identity":
        return True  # every identity lookup asks who the signed-in person is
    before, after = target(failed), target(other)
    if before.help_only != after.help_only:
        return False  # looking up how a command is used is not running it
    if before.places and after.places and not before.places & after.places:
        return False  # the same program against another place (staging, then local)
    if any(before.place_of.get(key, value) != value for key, value in after.place_of.items()):
        return False  # the same namespace on another cluster (``--context staging-us-1``)
    if (
        before.table
        and after.table
        and before.table != after.table
        # a table the error named ("relation orders_2023 does not exist"), corrected, is the
        # same query; another table in its place (``fct_reservations`` after
        # ``cancellations_v2``) is another target
        and not (
            before.table.rsplit(".", 1)[-1] in complaint
            and _share_a_word(before.table, after.table)
        )
    ):
        return False  # the same DELETE run on ANALYTICS.EVENTS after RAW.EVENTS failed
    if (
        failed.impact == "write"
        and not before.commands  # a command rerun may correct its words
        and before.content
        and after.content
        and not _shares(before.content, after.content, SAME_CONTENT_SHARE)
    ):
        return False  # another edit of the same file
    if before.paths and after.paths:
        return any(
            same_path(a, b) or (holds(b, a) and _mentions(other, a[-1]))
            for a in before.paths
            for b in after.paths
        )
    if before.values and after.values:
        shared = set(before.values) & set(after.values)
        if shared:
            return all(same_value(before.values[k], after.values[k]) for k in shared)
        return any(same_value(a, b) for a in before.values.values() for b in after.values.values())
    if any(same_invocation(a, b, complaint) for a in before.commands for b in after.commands):
        # a corrected invocation keeps what the command acted on (``directive get d-16`` is
        # not done by ``directive list``)
        return all(value in after.text for value in before.values_named)
    if failed.impact == "write" and any(phrase in after.text for phrase in before.phrases):
        # The same record by the title it was to have: ``issue create "Add APM command"`` that
        # failed, then the issue created with that title another way.
        return True
    if (
        before.objects
        and not after.commands
        and after.paths
        and all(o in after.text for o in before.objects)
    ):
        # A command's goal reached by editing files: ``cargo add uuid`` failed, then an edit
        # of Cargo.toml added uuid. (A message that names it, "restarted api-gateway", edits
        # no file and reaches nothing.)
        return True
    if before.commands and after.commands:
        return False  # two command lines that run different things
    if failed.call.name != other.call.name:
        return bool(before.query and after.query and _shares(before.query, after.query, 0.5))
    # The same tool with no target to compare: the same arguments, or the same with only the
    # values the error complained about corrected.
    general = bool(command_of(failed.call) or command_of(other.call))
    return same_purpose(
        _without_noise(failed.call.arguments, noise),
        _without_noise(other.call.arguments, noise),
        complaint,
        general=general,
    )


def _shares(a: set[str], b: set[str], share: float) -> bool:
    smaller = min(len(a), len(b))
    return smaller > 0 and len(a & b) / smaller >= share


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$")


def target_of(call: ToolCall, rules: RecoveryRules) -> Target:
    """The target a call's arguments name: its target keys' values, paths, the program and
    subcommand of a shell command, what a read looks for and what a write puts in place."""
    found = Target(text=json.dumps(call.arguments, default=str).lower())
    command = command_of(call)
    if command is not None:
        _command_target(command, found)
        named = _named_places(command, rules.place_options)
        found.places = _places(command, named)
        found.place_of = dict(named)
        found.help_only = bool(_HELP.search(command))
        return found
    arguments = call.arguments
    if not isinstance(arguments, dict):
        return found
    id_like: tuple[str, str] | None = None
    place_keys = _place_keys(rules.place_options)
    for key, value in arguments.items():
        norm = _KEY_SPLIT.sub("_", str(key)).lower()
        if isinstance(value, (dict, list)):
            if norm in rules.content_keys:
                found.content |= _content_words(str(value))
            continue
        text = str(value).strip()
        if not text:
            continue
        if norm in place_keys:
            # ``"environment": "staging"`` after a deploy to prod was refused: another place
            found.places.add(text.lower())
            found.place_of[norm] = text.lower()
        if not found.table and _SQL_START.match(text):
            found.table = _sql_table(text)
        if norm in rules.content_keys:
            found.content |= _content_words(text)
        elif norm in rules.query_keys:
            found.query |= set(words(text))
        elif norm in rules.target_keys and not _DATE.match(text):
            # a date under such a key is when, not what ("to": "2026-06-30" of a freeze)
            if "/" in text or _FILE_NAME.match(text):
                found.paths.append(path_components(text))
            else:
                found.values[norm] = text
        elif id_like is None and norm.endswith(("_id", "_key")):
            id_like = (norm, text)
    if not found.values and id_like is not None:
        found.values[id_like[0]] = id_like[1]
    return found


def _sql_table(statement: str) -> str:
    """The table a statement writes to, or else the first it reads, lower-cased and unquoted."""
    matches = list(_SQL_TABLE.finditer(statement))
    chosen = next((m.group(1) for m in matches if m.group(1)), None) or next(
        (m.group(2) for m in matches if m.group(2)), ""
    )
    return re.sub(r'["`\[\]]', "", chosen).lower()


@functools.cache
def _place_keys(place_options: frozenset[str]) -> frozenset[str]:
    """The argument keys of a tool call that say where it acts: the command line's place
    options as keys."""
    return frozenset(_option_key(option) for option in place_options if len(option.lstrip("-")) > 1)


def _content_words(text: str) -> set[str]:
    """What an edit puts in place, by its runs of letters and of digits: a retry that corrected
    ``node-version: 18`` to ``node-version: '18.x'`` after reading the file keeps them."""
    return set(_ALNUM.findall(text.lower()))


_ALNUM = re.compile(r"[^\W\d_]+|\d+")


def _command_target(command: str, found: Target) -> None:
    segments = [s for s in parse_command(command) if s.program not in PLUMBING]
    doing = [s for s in segments if s.program not in FILTERS] or segments[:1]
    for segment in doing:
        found.values_named |= {  # ids and numbers, not a quoted phrase that holds a number
            word.lower()
            for word in segment.arguments
            if has_digit(word) and not any(ch.isspace() for ch in word)
        }
        found.phrases |= {
            word.lower()
            for word in segment.arguments
            if len(word.split()) >= PHRASE_WORDS and len(word) <= PHRASE_CHARS
        }
        found.objects |= {
            word.lower()
            for word in [*segment.arguments, *_named(segment)]
            if _OBJECT.match(word) and "/" not in word
        }
        found.commands.add(_invocation(segment))
    for segment in segments:
        for word in [*segment.arguments, *segment.redirects]:
            if "*" in word or word.startswith("-") or any(ch.isspace() for ch in word):
                continue  # a glob, an option, or a quoted phrase (a title, a message)
            if "/" in word or _FILE_NAME.match(word):
                found.paths.append(path_components(word))
            elif segment in doing:
                found.content |= set(words(word))


_URL_HOST = re.compile(r"\b[a-z][\w+.-]*://(?:[^@\s'\"/]+@)?([^\s'\"/:?#]+)", re.I)


_OPTION_VALUE = re.compile(r"(?:^|\s)(-{1,2}[\w-]+)(?:=|\s+)['\"]?([^\s'\"]+)")


def _named_places(command: str, place_options: frozenset[str]) -> list[tuple[str, str]]:
    """``(key, value)`` of each place option of a command line (``--app wxrp-staging``, ``-n
    payments``), the key written as a tool call's argument key would be."""
    return [
        (_option_key(option), value.lower())
        for option, value in _OPTION_VALUE.findall(command)
        if option.lower() in place_options and not value.startswith("-")
    ]


def _option_key(option: str) -> str:
    """An option as an argument key: ``--kube-context`` is ``kube_context``."""
    return option.lower().lstrip("-").replace("-", "_")


def _places(command: str, named: list[tuple[str, str]]) -> set[str]:
    """Where a command line acts: the hosts of the URLs it names, the env files it sources and
    the values of its place options (``named``)."""
    found = {host.lower() for host in _URL_HOST.findall(command)}
    for segment in parse_command(command):
        if segment.program in (".", "source"):
            found |= {word.rsplit("/", 1)[-1].lower() for word in segment.arguments}
    return found | {value for _, value in named}


def _named(segment: Any) -> list[str]:
    """The program or package a command names by option (``--bin x``, ``-p x``)."""
    return [o.split("=", 1)[1] for o in segment.options if o.startswith(NAMING_OPTIONS)]


_GRAPH_MARKS = re.compile(r"^(?:\d*\+|@)|\+\d*$")  # dbt's 2+model, model+, @model


def _invocation(segment: Any) -> tuple[str, tuple[str, ...]]:
    """What a command runs, however it is started: its program and leading words. A runner
    counts as the program it runs: ``cargo run --bin autopilot -- issue create`` and
    ``./target/debug/autopilot issue create`` are both ``(autopilot, (issue, create))``."""
    leading: list[str] = []
    for word in [segment.subcommand or "", *segment.arguments][0 if segment.subcommand else 1 :]:
        if word.startswith("-") or " " in word or len(leading) == RUNNER_WORDS:
            break
        leading.append(word)
    program = segment.program
    if leading and leading[0] in RUNNERS:
        named, leading = _named(segment), leading[1:]
        if named:
            program = named[0]
        elif leading:
            program, leading = leading[0], leading[1:]
        # without a selector's graph marks: ``dbt run -s stg_payments+`` runs stg_payments and
        # what depends on it, so it does what ``-s stg_payments`` was to do
        program = _GRAPH_MARKS.sub("", program) or program
    program = re.sub(r"\.(?:py|js|ts|mjs|sh|rb)$", "", program.rsplit("/", 1)[-1])
    return program, tuple(leading)


def same_invocation(
    a: tuple[str, tuple[str, ...]], b: tuple[str, tuple[str, ...]], complaint: str = ""
) -> bool:
    """The same program, and the leading words of one begin the other's (``git push`` and
    ``git push origin main``), or differ where the error named a word (``alembic upgrade-head``
    after "invalid choice: 'upgrade-head'", then ``alembic upgrade head``)."""
    if a[0] != b[0]:
        return False
    shorter, longer = sorted((a[1], b[1]), key=len)
    if not shorter:
        return not longer  # a bare ``pytest`` is not ``pytest tests/test_one.py``
    if longer[: len(shorter)] == shorter:
        return True
    pairs = zip(a[1], b[1], strict=False)
    differ = next(i for i, (x, y) in enumerate(pairs) if x != y)
    if any(word not in b[1] for word in a[1][differ + 1 :]):
        return False  # what came after the corrected word is gone (``push origin main``, then
        # ``tag v2.3.1``): another command, not a correction
    changed = {*a[1][differ : differ + 1], *b[1][differ : differ + 1]}
    return any(len(word) >= 3 and word.lower() in complaint for word in changed)


def path_components(path: str) -> tuple[str, ...]:
    """A path as its components, without quotes, ``.``, ``~`` or a trailing slash."""
    cleaned = path.strip().strip("'\"`")
    return tuple(part for part in cleaned.split("/") if part not in ("", ".", "~"))


def same_path(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Do two paths name one place, or one inside the other? ``src/app.py`` and
    ``/home/me/repo/src/app.py`` do (one is the other's tail, as a path relative to another
    working folder); so do ``crates/x/src`` and ``/home/me/repo/crates/x/src/main.rs`` (a file
    in that folder). A lone shared name counts only when it is a file name."""
    if not a or not b:
        return False
    short, long = sorted((a, b), key=len)
    for start in range(len(long) - len(short) + 1):
        if long[start : start + len(short)] == short:
            return len(short) >= PATH_RUN or bool(_FILE_NAME.match(short[-1]))
    return False


def holds(folder: tuple[str, ...], path: tuple[str, ...]) -> bool:
    """Is ``folder`` a folder above ``path``, written from another working folder? The head of
    the path is the folder's tail: ``/home/me/repo/crates/x`` holds ``crates/x/src/main.rs``."""
    for size in range(min(len(folder), len(path) - 1), PATH_RUN - 1, -1):
        if path[:size] == folder[-size:]:
            return True
    return False


def same_value(a: str, b: str) -> bool:
    """Do two target values name one record? Equal, or equal but for letters and signs around
    the same number (``9502127`` and ``#W9502127``); ``42`` and ``43`` do not."""
    if a == b:
        return True
    short, long = sorted((a.lower(), b.lower()), key=len)
    if len(short) < 4 or short not in long or not has_digit(short):
        return False
    rest = long.replace(short, "", 1)
    return not has_digit(rest)


def _mentions(slot: CallSlot, name: str) -> bool:
    """Does a result that worked mention ``name`` (what a search in a folder above found)?"""
    if slot.payload is None:
        return False
    return any(name in text.text for text in slot.payload.texts)


def _asked_person(slot: CallSlot, texts: Texts, rules: RecoveryRules) -> str:
    """The assistant's last text of the turn, after this call, when it asks the person
    something (a corrected request for them to confirm or complete); else ""."""
    after = [text for position, _, text in texts.get(slot.turn, []) if position > slot.position]
    if not after:
        return ""
    last = after[-1].strip()
    asks = "?" in last[-300:] or any(pattern.search(last) for pattern in rules.asks)
    return last if asks else ""


def _corrected_as_put(before: Any, after: Any, exchange: str, months: tuple[str, ...] = ()) -> bool:
    """Does the retry differ from the failed call by values the assistant put to the person or
    the person gave (``375`` after "the total is actually $375, shall I proceed?")? A retry
    with values nobody named is another request."""
    if before == after:
        return False
    said = set(words(exchange))
    old = set(words(json.dumps(before, default=str)))
    new = set(words(json.dumps(after, default=str))) - old
    if any(word in said for word in new if len(word) >= 2):
        return True
    # A value's part named alone: "E3" for the sku SPE_E3 after SPE_E5
    old_parts = {part for word in old for part in _parts(word)}
    if any(part in said for word in new for part in _parts(word) - old_parts if len(part) >= 2):
        return True
    # A time or number said one way and sent another: "the 9:40" and service "GW-0940-BRI".
    said_numbers = {_number(found) for found in _SAID_NUMBER.findall(exchange)}
    if any(
        len(number) >= 3 and number in said_numbers
        for word in new
        for number in map(_number, re.findall(r"\d+", word))
    ):
        return True
    # A date sent as ``2026-03-15`` and put to the person as "15/03", "3/15", "15.03." or
    # "15 March"
    said_dates = {(int(a), int(b)) for a, b in _SAID_DAY_MONTH.findall(exchange)}
    return any(
        (int(day), int(month)) in said_dates
        or (int(month), int(day)) in said_dates
        or _day_of_month_said(int(day), int(month), exchange, months)
        for word in new
        for month, day in _ISO_DATE.findall(word)
    )


def _day_of_month_said(day: int, month: int, exchange: str, months: tuple[str, ...]) -> bool:
    """Does the text name the day by its month's name ("10 september", "Sept. 10th")?"""
    if not 1 <= month <= len(months) or not months[month - 1]:
        return False
    name = rf"(?:{months[month - 1]})[^\W\d]*\.?"
    number = rf"0?{day}(?:st|nd|rd|th|er|e|º|°|\.)?"
    said = rf"(?<!\d){number}\s+(?:de\s+|of\s+)?{name}|{name}\s+{number}(?!\d)"
    return re.search(said, exchange, re.IGNORECASE) is not None


_SAID_NUMBER = re.compile(r"\d+(?:[:.h]\d\d)?")
_ISO_DATE = re.compile(r"\d{4}-(\d\d)-(\d\d)")
_SAID_DAY_MONTH = re.compile(r"(?<![\d/.-])(\d{1,2})[/.](\d{1,2})(?![\d/])")


def _parts(word: str) -> set[str]:
    """The parts of a value joined by ``_``, ``-`` or ``.`` ("spe" and "e3" of "spe_e3")."""
    return {part for part in re.split(r"[_.\-]", word) if part}


def _number(text: str) -> str:
    """Digits only, without leading zeros ("09:40" and "0940" are "940")."""
    return re.sub(r"\D", "", text).lstrip("0")


def _without_noise(arguments: Any, noise: Any) -> Any:
    """Arguments with the parts of a command that only trim its output (``| tail -20``) removed,
    and the free-text ``description`` some hosts add beside a command."""
    if isinstance(arguments, str):
        return noise.sub("", arguments).strip()
    if isinstance(arguments, dict):
        return {
            key: _without_noise(value, noise)
            for key, value in arguments.items()
            if key not in ("description", "timeout")
        }
    return arguments


def _complaint(slot: CallSlot) -> str:
    """What the failed result said (its start), lower-cased, to find what the error named."""
    pieces = [slot.decision.evidence if slot.decision else ""]
    if slot.payload is not None:
        pieces.extend(t.text for t in slot.payload.texts)
    if slot.result is not None and slot.result.rpc_error:
        pieces.append(str(slot.result.rpc_error))
    return " ".join(pieces)[:COMPLAINT_CHARS].lower()


def same_purpose(before: Any, after: Any, complaint: str, *, general: bool) -> bool:
    """Same arguments, or the same with only the values the error complained about corrected.

    For a tool that runs arbitrary commands (``general``), only the same command counts: run
    again as it was, or with the words the error named corrected (``_corrected_text``).
    """
    if before == after:
        return True
    if not isinstance(before, dict) or not isinstance(after, dict):
        return _corrected_text(before, after, complaint) if general else False
    for key in set(before) | set(after):
        old, new = before.get(key), after.get(key)
        if (
            old == new
            or (old is None and isinstance(new, bool))
            or (new is None and isinstance(old, bool))
        ):
            continue  # the same, or an output option (a flag) switched on or off
        if isinstance(old, str) and isinstance(new, str) and _corrected_text(old, new, complaint):
            continue
        if (
            isinstance(old, list)
            and isinstance(new, list)
            and _named_items_dropped(old, new, complaint)
        ):
            continue
        if not general and (_named_key(key, complaint) or _quoted_value(old, complaint)):
            continue
        return False
    return True


def _named_items_dropped(old: list[Any], new: list[Any], complaint: str) -> bool:
    """A list argument that only lost the items the error named (a flight the error said was
    full), keeping the rest."""
    dropped = [item for item in old if item not in new]
    added = [item for item in new if item not in old]
    if not dropped or added:
        return False
    return all(
        any(has_digit(word) and word in complaint for word in words(str(item))) for item in dropped
    )


def _named_key(key: str, complaint: str) -> bool:
    """The error names this argument ("payment" for payment_methods)."""
    lowered = key.lower()
    return lowered in complaint or any(
        len(word) >= 4 and word in complaint for word in re.split(r"[_\W]+", lowered)
    )


def _quoted_value(value: Any, complaint: str) -> bool:
    """The error names this value: as a whole, or by its words ("gift card" for gift_card_5)."""
    if value is None or isinstance(value, (dict, list)):
        return False
    text = str(value).lower()
    if text in complaint:
        return True
    return any(len(w) >= 4 and w.isalpha() and w in complaint for w in re.split(r"[_\W]+", text))


def _corrected_text(before: Any, after: Any, complaint: str) -> bool:
    """A command or query run again: nearly all of its words kept, or most of them with the
    words it dropped named by the error (``orders_2023`` after ``relation "orders_2023" does not
    exist``)."""
    if not isinstance(before, str) or not isinstance(after, str):
        return False
    if _HELP.search(after) and not _HELP.search(before):
        return False  # looking up how a command is used is not running it
    if before.strip() and before.strip() in after:
        return True  # the same command, run again after others (``git add … && <it>``)
    if len(after.split()) >= 2 and after.strip() in before:
        return True  # the same command without what ran before it (``sleep 60 && <it>``)
    old, new = set(words(before)), set(words(after))
    share = len(old & new) / len(old | new) if old else 0.0
    if share >= SAME_COMMAND_CLOSE:
        return True  # a corrected query or a rerun with a changed flag: nearly all of it kept
    return share >= SAME_COMMAND_SHARE and all(word in complaint for word in old - new)
