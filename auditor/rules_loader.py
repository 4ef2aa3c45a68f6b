"""Rule packs: TOML files under ``rules/``, validated on load, layered with a user's own folder.

The shipped pack is the checkout's top-level ``rules/`` folder; a wheel installs it inside the
package as ``auditor/rules``, so a pip-installed auditor finds it too.
A user's ``--rules DIR`` holds files of the same names (``outcomes.toml``, ``claims/<lang>.toml``):
lists of named rules replace shipped rules with the same ``id`` and add the others; plain lists
(such as identity tool names) are extended; other values replace the shipped ones. A new
``claims/<lang>.toml`` adds a language.

A wrong rule file stops the load with a ``RuleFileError`` naming the file, the key and the problem.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache
from importlib import resources
from pathlib import Path
from re import _constants as sre_constants  # re's own parser: how a cue pattern begins
from re import _parser as sre_parse
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from auditor.cue_filter import CueFilter


def _shipped() -> Any:
    """The shipped rule pack: inside the installed package, else the checkout's ``rules/``."""
    installed = resources.files("auditor") / "rules"
    if installed.is_dir():
        return installed
    return Path(__file__).resolve().parent.parent / "rules"


SHIPPED = _shipped()


class RuleFileError(ValueError):
    """A rule file that cannot be used: names the file, the key and the problem."""

    def __init__(self, file: str, key: str, problem: str) -> None:
        super().__init__(f"{file}: {key}: {problem}")
        self.file, self.key, self.problem = file, key, problem


def check_pattern(pattern: str, compile: Callable[[str], Any] = re.compile) -> str:
    """A rule file's regular expression, or a ValueError that says why it is not one."""
    try:
        compile(pattern)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression ({exc})") from exc
    return pattern


class Strict(BaseModel):
    """A rule-file section: unknown keys are errors, values are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class PatternRule(Strict):
    id: str
    pattern: str
    # The text must be this short (non-blank lines) for the rule to apply: an error line at the
    # top of long normal output (a warning printed before a build log) is not the answer.
    max_lines: int | None = None
    # Only for a call whose command line runs a program matching this (at the start of one of its
    # simple commands); "any" for any program that is not one of [shell] viewers. The named
    # program wrote the text, so the rule also reads output that went through grep/head/tail.
    runs: str | None = None
    # Search the whole text (its head and its tail) instead of matching at its start: for the
    # summary lines a runner prints at the end.
    anywhere: bool = False

    _check = field_validator("pattern")(classmethod(lambda cls, v: check_pattern(v)))
    _check_runs = field_validator("runs")(
        classmethod(lambda cls, v: v if v in (None, "any") else check_pattern(v))
    )


class Envelope(Strict):
    id: str
    key: str
    equals: bool | int | str | list[bool | int | str]

    def matches(self, value: Any) -> bool:
        wanted = self.equals if isinstance(self.equals, list) else [self.equals]
        # bool is an int in Python: compare types too, so 0 never equals false.
        return any(type(value) is type(w) and value == w for w in wanted)


class LoneError(Strict):
    id: str
    error_keys: list[str]
    status_keys: list[str]
    metadata_keys: list[str]
    # Keys beside a non-empty error that explain it (validation_errors, allowed_values, hint_...):
    # metadata too, whatever they hold.
    metadata_key_pattern: str = "(?!)"

    _check = field_validator("metadata_key_pattern")(classmethod(lambda cls, v: check_pattern(v)))


class Identity(Strict):
    tools: list[str]
    ignore_keys: list[str] = []
    # Keys that hold the identity itself: when an answer has one, the others describe the
    # connection ({"user": null, "server": "ssl:helix:1666"} names nobody)
    identity_keys: list[str] = []


class TestSummary(Strict):
    id: str
    runner_tools: str
    failure_patterns: list[str]

    _check_runner = field_validator("runner_tools")(classmethod(lambda cls, v: check_pattern(v)))
    _check_patterns = field_validator("failure_patterns")(
        classmethod(lambda cls, v: [check_pattern(p) for p in v])
    )


class IgnoredFlag(Strict):
    id: str
    tools: str
    text: str
    command: str | None = None
    # The text itself says the call's purpose holds: the call is ok without reading the payload.
    settled: bool = False

    _check = field_validator("tools", "text")(classmethod(lambda cls, v: check_pattern(v)))

    def matches(self, tool: str, texts: list[str], arguments: Any) -> bool:
        if not re.search(self.tools, tool):
            return False
        if self.command is not None:
            values = arguments.values() if isinstance(arguments, dict) else [arguments]
            if not any(isinstance(v, str) and re.search(self.command, v) for v in values):
                return False
        return re.match(self.text, "\n".join(texts)) is not None


class OutputNoise(Strict):
    """Lines a shell hook or a build tool prints into a command's output that say nothing about
    the command: removed before the text rules read it, for calls that run ``runs``."""

    runs: str
    lines: list[str]

    _check_runs = field_validator("runs")(classmethod(lambda cls, v: check_pattern(v)))
    _check_lines = field_validator("lines")(
        classmethod(lambda cls, v: [check_pattern(p) for p in v])
    )


class Shell(Strict):
    """How the outcome rules read a shell call's command line."""

    # Programs whose output is stored text or a filter of other output (cat, grep, gh run view):
    # errors in what they print are what the call was asked to show.
    viewers: str = "(?!)"
    noise: list[OutputNoise] = []

    _check = field_validator("viewers")(classmethod(lambda cls, v: check_pattern(v)))


class GeneralTools(Strict):
    pattern: str
    command_noise: str = "(?!)"
    search_commands: str = "(?!)"

    _check = field_validator("pattern", "command_noise", "search_commands")(
        classmethod(lambda cls, v: check_pattern(v))
    )


@dataclass(frozen=True)
class CompiledTextRule:
    """An [[error_text]] rule, compiled: ``runs`` None with ``needs_program`` means "any"."""

    id: str
    regex: re.Pattern[str]
    max_lines: int | None
    runs: re.Pattern[str] | None
    needs_program: bool
    anywhere: bool


class OutcomeRulesFile(Strict):
    """One outcomes.toml as written; every section optional so a user file can hold a few."""

    identity: Identity | None = None
    transport_text: list[PatternRule] = []
    envelope: list[Envelope] = []
    lone_error: LoneError | None = None
    error_text: list[PatternRule] = []
    test_summary: TestSummary | None = None
    ignored_flag: list[IgnoredFlag] = []
    general_tools: GeneralTools | None = None
    shell: Shell | None = None


class OutcomeRules(Strict):
    """The outcome rules in force after layering."""

    model_config = ConfigDict(extra="forbid", frozen=True, ignored_types=(cached_property,))

    identity: Identity
    transport_text: list[PatternRule]
    envelope: list[Envelope]
    lone_error: LoneError
    error_text: list[PatternRule]
    test_summary: TestSummary
    ignored_flag: list[IgnoredFlag] = []
    general_tools: GeneralTools
    shell: Shell = Shell()

    @cached_property
    def identity_tools(self) -> frozenset[str]:
        return frozenset(t.lower() for t in self.identity.tools)

    @cached_property
    def transport_res(self) -> list[tuple[str, re.Pattern[str]]]:
        return [(r.id, re.compile(r.pattern)) for r in self.transport_text]

    @cached_property
    def error_text_res(self) -> list[tuple[str, re.Pattern[str], int | None]]:
        return [(r.id, re.compile(r.pattern), r.max_lines) for r in self.error_text]

    @cached_property
    def error_text_compiled(self) -> list[CompiledTextRule]:
        return [
            CompiledTextRule(
                r.id,
                re.compile(r.pattern),
                r.max_lines,
                None if r.runs in (None, "any") else re.compile(r.runs),
                r.runs is not None,
                r.anywhere,
            )
            for r in self.error_text
        ]

    @cached_property
    def lone_metadata_keys(self) -> frozenset[str]:
        return frozenset(self.lone_error.metadata_keys)

    @cached_property
    def lone_metadata_key_re(self) -> re.Pattern[str]:
        return re.compile(self.lone_error.metadata_key_pattern)

    @cached_property
    def shell_viewers_re(self) -> re.Pattern[str]:
        return re.compile(self.shell.viewers)

    @cached_property
    def shell_noise_res(self) -> list[tuple[re.Pattern[str], list[re.Pattern[str]]]]:
        return [(re.compile(n.runs), [re.compile(p) for p in n.lines]) for n in self.shell.noise]

    @cached_property
    def runner_re(self) -> re.Pattern[str]:
        return re.compile(self.test_summary.runner_tools)

    @cached_property
    def test_failure_res(self) -> list[re.Pattern[str]]:
        return [re.compile(p) for p in self.test_summary.failure_patterns]

    @cached_property
    def general_tools_re(self) -> re.Pattern[str]:
        return re.compile(self.general_tools.pattern)

    @cached_property
    def command_noise_re(self) -> re.Pattern[str]:
        return re.compile(self.general_tools.command_noise)

    @cached_property
    def search_commands_re(self) -> re.Pattern[str]:
        return re.compile(self.general_tools.search_commands)


CueKind = Literal[
    "failure",  # says the action failed or the information could not be had
    "not_failure",  # failure words that say the opposite ("no errors", "0 failed")
    "success",  # says outright that it was done ("done", "all set", ✅)
    "offer",  # offers or asks for something else; not a claim
    "filler",  # greetings and acknowledgements; not a claim
    "universal",  # speaks of every call at once ("both", "everything")
    "identity",  # speaks of who the person is (ties a sentence to an identity tool)
    "contrast",  # a clause after it outweighs the clause before ("but", "however")
    "clause",  # a clause boundary without contrast (", and I ..."): parts may speak of other calls
    "past",  # speaks of an earlier turn's action ("my earlier request"): no claim on this turn
    "confirm",  # asks the person to confirm before acting: what the reply lists is a proposal
    "concession",  # the clause it opens is outweighed by the rest ("although")
    "action",  # a verb of one action (id ends in the action's name, see actions.toml)
    "empty",  # states that there is nothing ("no new notifications"): an answer to a lookup
    "recounts",  # says what a fetched thing showed ("the log showed …"): group "thing" names it
    "advice",  # advice or a tip for the person ("remember to …", "in the meantime you can …")
    "hypothetical",  # a condition ("if the card is declined, …"): its words report nothing
    "regret",  # a word of regret: a weak failure cue after a failed call, if nothing claims success
    "result",  # a state the action left, said as now holding ("it's with Jana now")
    "underway",  # an agent starting its next step ("Pushing the branch.", "Now prod.")
    "habitual",  # what usually happens ("this usually surfaces type errors"): no report
]


class Cue(Strict):
    id: str
    kind: CueKind
    pattern: str

    # Checked by compiling it as the claim reader will use it (kept, so compiled only once).
    _check = field_validator("pattern")(classmethod(lambda cls, v: check_pattern(v, compile_cue)))


class CuePackFile(Strict):
    language: str
    name: str
    markers: list[str] = []
    stopwords: list[str] = []
    # German writes every noun with a capital: a capital there does not mark a name.
    capitalises_nouns: bool = False
    cue: list[Cue] = []


class LanguageProfile(Strict):
    name: str
    markers: list[str]


class LanguagesFile(Strict):
    languages: dict[str, LanguageProfile] = {}


@dataclass(frozen=True)
class CompiledCue:
    id: str
    kind: str
    regex: re.Pattern[str]
    source: str
    pattern: str = ""  # as the rule file wrote it (``regex`` may begin with a lookahead)
    # The pack's filter, and this cue's bit in it: a text without the cue's literals is not
    # searched (the same matches, found faster). Without a filter every text is searched.
    filter: CueFilter | None = field(default=None, compare=False, repr=False)
    bit: int = 0

    def may_match(self, text: str) -> bool:
        """False when the cue cannot match ``text`` (it lacks the literals every match has)."""
        found = self.filter
        if found is None:
            return True
        mask = found.masks.get(text)
        return bool((found.mask(text) if mask is None else mask) >> self.bit & 1)

    def search(self, text: str) -> re.Match[str] | None:
        found = self.filter  # may_match, written out: this is called millions of times
        if found is not None:
            mask = found.masks.get(text)
            if not (found.mask(text) if mask is None else mask) >> self.bit & 1:
                return None
        return self.regex.search(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.regex.finditer(text) if self.may_match(text) else iter(())

    def sub(self, replacement: str, text: str) -> str:
        return self.regex.sub(replacement, text) if self.may_match(text) else text

    # A scan's worker processes get the rules pickled. A pickled regular expression is compiled
    # again when unpickled, and the 458 cues cost a worker 0.3 s before its first file; they
    # were compiled (so checked) where the rules were loaded, and a worker compiles each when
    # first asked for it: most logs are in one or two of the seven languages.

    def __reduce__(self) -> tuple[Any, ...]:
        fields = (getattr(self, name) for name in _PICKLED_FIELDS)
        return _unpickled_cue, (self.regex.pattern, self.regex.flags, *fields)

    def __getattr__(self, name: str) -> Any:
        """``regex`` of an unpickled cue, compiled when first asked for (then an attribute)."""
        if name == "regex" and "_uncompiled" in self.__dict__:
            regex = re.compile(*self.__dict__["_uncompiled"])
            object.__setattr__(self, "regex", regex)
            return regex
        raise AttributeError(name)


_PICKLED_FIELDS = ("id", "kind", "source", "pattern", "filter", "bit")  # all but ``regex``


def _unpickled_cue(written: str, flags: int, *fields: Any) -> CompiledCue:
    """A cue as pickled by ``CompiledCue.__reduce__``, its ``regex`` not compiled yet."""
    cue = object.__new__(CompiledCue)
    for name, value in zip(_PICKLED_FIELDS, fields, strict=True):
        object.__setattr__(cue, name, value)
    object.__setattr__(cue, "_uncompiled", (written, flags))
    return cue


@cache
def compile_cue(pattern: str) -> re.Pattern[str]:
    """A cue's pattern compiled to match exactly as written, but faster.

    Python's engine skips quickly to where a match can start only when the pattern begins with
    something that consumes a character. Cue patterns often begin with assertions instead (a
    word boundary, a row of "not after 'will be'" lookbehinds), and are then tried at every
    position of every sentence. Where the characters a match can start with are known, a
    lookahead of them is put in front: it matches nothing itself, so the matches are the same.
    """
    first = first_characters(pattern)
    if first:
        pattern = f"(?=[{''.join(re.escape(chr(c)) for c in sorted(first))}])(?:{pattern})"
    return re.compile(pattern, re.IGNORECASE)


_ZERO_WIDTH = {sre_constants.AT, sre_constants.ASSERT, sre_constants.ASSERT_NOT}
_MOST_FIRST_CHARACTERS = 40  # more than this, and the lookahead costs what it saves


def first_characters(pattern: str) -> set[int] | None:
    """The characters (code points) a match of ``pattern`` can begin with, when few and sure;
    None when unknown (a class such as a word character, an optional start, a pattern that can
    match nothing)."""
    try:
        items = list(sre_parse.parse(pattern, re.IGNORECASE))
    except (re.error, RecursionError):
        return None
    found = _first_of(items)
    return found if found and len(found) <= _MOST_FIRST_CHARACTERS else None


def _first_of(items: list[Any]) -> set[int] | None:
    c = sre_constants
    for op, value in items:
        if op in _ZERO_WIDTH:
            continue  # matches nothing: the first character is that of what follows
        if op is c.LITERAL:
            return {value}
        if op is c.IN:
            chars: set[int] = set()
            for kind, item in value:
                if kind is c.LITERAL:
                    chars.add(item)
                elif kind is c.RANGE and item[1] - item[0] < _MOST_FIRST_CHARACTERS:
                    chars.update(range(item[0], item[1] + 1))
                else:
                    return None
            return chars
        if op is c.SUBPATTERN:
            return _first_of(list(value[-1]))
        if op is c.BRANCH:
            found: set[int] = set()
            for branch in value[1]:
                first = _first_of(list(branch))
                if first is None:
                    return None
                found |= first
            return found
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and value[0] >= 1:
            return _first_of(list(value[2]))
        return None
    return None


@dataclass
class CuePack:
    """Claim cues of one language, compiled once."""

    language: str
    name: str
    markers: frozenset[str]
    stopwords: frozenset[str]
    cues: list[CompiledCue]
    capitalises_nouns: bool = False

    def __post_init__(self) -> None:
        self._by_kind: dict[str, list[CompiledCue]] = {}
        self._kind_bits: dict[str, int] = {}
        for cue in self.cues:
            self._by_kind.setdefault(cue.kind, []).append(cue)
            self._kind_bits[cue.kind] = self._kind_bits.get(cue.kind, 0) | 1 << cue.bit

    def of_kind(self, kind: str, text: str | None = None) -> list[CompiledCue]:
        """The cues of a kind, in pack order; with ``text``, only those that may match it (the
        others cannot: see ``CompiledCue.may_match``)."""
        cues = self._by_kind.get(kind, [])
        if text is None or not cues or cues[0].filter is None:
            return cues
        mask = cues[0].filter.mask(text)
        if not mask & self._kind_bits[kind]:
            return []
        return [cue for cue in cues if mask >> cue.bit & 1]


@dataclass
class RuleSet:
    """Everything the audit needs from rule files, with where each rule came from."""

    outcomes: OutcomeRules
    packs: dict[str, CuePack]
    languages: dict[str, frozenset[str]] = field(default_factory=dict)  # language -> markers
    language_names: dict[str, str] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    origins: dict[str, str] = field(default_factory=dict)  # "outcomes:<id>" -> file
    impact: Any = None  # ImpactRules: what a call would have done
    host_written: re.Pattern[str] | None = None  # user-role text the host wrote (turns.toml)
    recovery: Any = None  # RecoveryRules: what names a call's target (recovery.toml)
    actions: dict[str, frozenset[str]] = field(default_factory=dict)  # name word -> actions
    reasoning_tools: frozenset[str] = frozenset()  # tools an agent thinks aloud with
    claims_all: bool = False  # read the claim of every call, not only where a finding can follow

    @cached_property
    def marker_weights(self) -> dict[str, list[tuple[str, float]]]:
        """Per marker word, the languages using it, each with weight 1 / how many do."""
        by_word: dict[str, list[str]] = {}
        for language, markers in self.languages.items():
            for marker in markers:
                by_word.setdefault(marker, []).append(language)
        return {
            word: [(language, 1 / len(languages)) for language in languages]
            for word, languages in by_word.items()
        }


def read_toml(path: Any, label: str) -> dict[str, Any]:
    """A rule or settings file's TOML; a syntax error is a RuleFileError naming the file."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise RuleFileError(label, "(syntax)", str(exc)) from exc
    except UnicodeDecodeError as exc:
        raise RuleFileError(label, "(encoding)", f"not UTF-8 text ({exc})") from exc


def validate_file(model: type[BaseModel], data: dict[str, Any], label: str) -> BaseModel:
    """``data`` checked against ``model``; the first problem is a RuleFileError naming the
    file, the key and the problem."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"]) or "(top level)"
        raise RuleFileError(label, key, error["msg"]) from exc


def merge_layers(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """A user's rule file layered over the shipped one: lists of rules by id, tables by key."""
    merged = dict(base)
    for key, value in extra.items():
        old = merged.get(key)
        if isinstance(value, list) and isinstance(old, list):
            if all(isinstance(v, dict) and "id" in v for v in value + old):
                by_id = {v["id"]: v for v in old}
                by_id.update({v["id"]: v for v in value})
                merged[key] = list(by_id.values())
            else:
                merged[key] = old + [v for v in value if v not in old]
        elif isinstance(value, dict) and isinstance(old, dict):
            merged[key] = merge_layers(old, value)
        else:
            merged[key] = value
    return merged


def rule_layers(name: str, user_dir: Path | None) -> list[tuple[Any, str]]:
    layers = []
    shipped = SHIPPED.joinpath(*name.split("/"))
    if shipped.is_file():
        layers.append((shipped, f"<shipped>/rules/{name}"))
    if user_dir is not None and (user_dir / name).is_file():
        layers.append((user_dir / name, str(user_dir / name)))
    return layers


M = TypeVar("M", bound=BaseModel)


def load_layered(name: str, model: type[M], user_dir: Path | None, files: list[str] | None) -> M:
    """A rule file of one name, the shipped one with a user's layered over it (``merge_layers``),
    each layer validated as ``model``; the labels of the files read go to ``files``."""
    merged: dict[str, Any] = {}
    for path, label in rule_layers(name, user_dir):
        data = read_toml(path, label)
        validate_file(model, data, label)
        merged = merge_layers(merged, data)
        if files is not None:
            files.append(label)
    checked = validate_file(model, merged, name)
    assert isinstance(checked, model)
    return checked


def load_rules(user_dir: Path | str | None = None) -> RuleSet:
    """The shipped rule pack, with a user's folder layered over it when given."""
    user = Path(user_dir) if user_dir is not None else None
    if user is not None and not user.is_dir():
        raise RuleFileError(str(user), "(folder)", "rules folder does not exist")
    files: list[str] = []
    origins: dict[str, str] = {}

    merged: dict[str, Any] = {}
    for path, label in rule_layers("outcomes.toml", user):
        data = read_toml(path, label)
        checked = validate_file(OutcomeRulesFile, data, label)
        for section in ("transport_text", "envelope", "error_text", "ignored_flag"):
            for rule in getattr(checked, section):
                origins[f"outcomes:{rule.id}"] = label
        merged = merge_layers(merged, data)
        files.append(label)
    try:
        outcomes = OutcomeRules.model_validate(merged)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"])
        raise RuleFileError(files[-1] if files else "outcomes.toml", key, error["msg"]) from exc

    names = {
        f"claims/{p.name}" for p in SHIPPED.joinpath("claims").iterdir() if p.name.endswith(".toml")
    }
    if user is not None and (user / "claims").is_dir():
        names |= {f"claims/{p.name}" for p in (user / "claims").glob("*.toml")}
    packs: dict[str, CuePack] = {}
    for name in sorted(names):
        merged, cue_origin = {}, {}
        for path, label in rule_layers(name, user):
            data = read_toml(path, label)
            checked = validate_file(CuePackFile, data, label)
            for cue in checked.cue:
                cue_origin[cue.id] = label
            merged = merge_layers(merged, data)
            files.append(label)
        pack_file = validate_file(CuePackFile, merged, name)
        cue_filter = CueFilter([c.pattern for c in pack_file.cue])
        packs[pack_file.language] = CuePack(
            language=pack_file.language,
            name=pack_file.name,
            markers=frozenset(m.lower() for m in pack_file.markers),
            stopwords=frozenset(w.lower() for w in pack_file.stopwords),
            capitalises_nouns=pack_file.capitalises_nouns,
            cues=[
                CompiledCue(
                    c.id,
                    c.kind,
                    compile_cue(c.pattern),
                    cue_origin[c.id],
                    c.pattern,
                    filter=cue_filter,
                    bit=bit,
                )
                for bit, c in enumerate(pack_file.cue)
            ],
        )
    languages: dict[str, frozenset[str]] = {}
    language_names: dict[str, str] = {}
    known = load_layered("languages.toml", LanguagesFile, user, files)
    for code, profile in known.languages.items():
        languages[code] = frozenset(m.lower() for m in profile.markers)
        language_names[code] = profile.name
    for code, pack in packs.items():
        languages[code] = pack.markers
        language_names[code] = pack.name
    impact = load_impact_rules(user, files)
    host_written, reasoning_tools = load_turns(user, files)
    recovery = load_recovery_rules(user, files)
    actions = load_actions(user, files)
    return RuleSet(
        actions=actions,
        outcomes=outcomes,
        host_written=host_written,
        reasoning_tools=reasoning_tools,
        recovery=recovery,
        packs=packs,
        languages=languages,
        language_names=language_names,
        files=files,
        origins=origins,
        impact=impact,
    )


# ----------------------------------------------------------------------------- impact.toml
class _Pattern(Strict):
    @field_validator("pattern", "mutation", "query", check_fields=False)
    @classmethod
    def _compiles(cls, value: str) -> str:
        return check_pattern(value)


class GraphQLRule(_Pattern):
    mutation: str
    query: str


class WriteArgument(_Pattern):
    id: str
    keys: list[str]
    pattern: str


class NameWords(Strict):
    write_words: list[str] = Field(default_factory=list)
    read_words: list[str] = Field(default_factory=list)


class CodingTools(Strict):
    read: list[str] = Field(default_factory=list)
    write: list[str] = Field(default_factory=list)
    agent_state: list[str] = Field(default_factory=list)  # the agent's own state: a read


class EditorRule(Strict):
    id: str
    tools: list[str]
    key: str
    read: list[str] = Field(default_factory=list)
    write: list[str] = Field(default_factory=list)


COMMAND_KINDS = ("read", "write", "unknown", "words", "sql", "graphql")


class ShellCommands(Strict):
    """Command patterns by what a matching segment does (see ``rules/impact.toml``)."""

    read: list[str] = Field(default_factory=list)
    write: list[str] = Field(default_factory=list)
    unknown: list[str] = Field(default_factory=list)
    words: list[str] = Field(default_factory=list)
    sql: list[str] = Field(default_factory=list)
    graphql: list[str] = Field(default_factory=list)

    @field_validator(*COMMAND_KINDS)
    @classmethod
    def _patterns(cls, values: list[str]) -> list[str]:
        for value in values:
            if not value.split() or value.split()[0].startswith("-"):
                raise ValueError(f"{value!r} does not start with a program")
        return values


class ShellRules(Strict):
    tools: list[str] = Field(default_factory=list)
    argument_keys: list[str] = Field(default_factory=list)
    max_chars: int = 20000
    max_segments: int = 200
    prefixes: dict[str, int] = Field(default_factory=dict)
    prefix_commands: list[str] = Field(default_factory=list)
    shells: list[str] = Field(default_factory=list)
    module_options: dict[str, str] = Field(default_factory=dict)
    aliases: dict[str, str] = Field(default_factory=dict)
    keywords: list[str] = Field(default_factory=list)
    harmless_redirects: str = "(?!)"
    help_options: list[str] = Field(default_factory=list)
    help_only: list[str] = Field(default_factory=list)
    sql_write: str = "(?!)"
    sql_read: str = "(?!)"
    value_options: dict[str, list[str]] = Field(default_factory=dict)
    runner_name_options: list[str] = Field(default_factory=list)
    # PowerShell cmdlets are named Verb-Noun: the verb says what it does (Get-ADUser reads)
    cmdlet_verbs: dict[str, list[str]] = Field(default_factory=dict)
    commands: ShellCommands = Field(default_factory=ShellCommands)

    _check = field_validator("harmless_redirects", "sql_write", "sql_read")(
        classmethod(lambda cls, v: check_pattern(v))
    )


class ImpactRulesFile(Strict):
    graphql: GraphQLRule | None = None
    write_argument: list[WriteArgument] = Field(default_factory=list)
    read_argument: list[WriteArgument] = Field(default_factory=list)  # same shape: a read
    names: NameWords = Field(default_factory=NameWords)
    coding_tools: CodingTools = Field(default_factory=CodingTools)
    editor: list[EditorRule] = Field(default_factory=list)
    shell: ShellRules = Field(default_factory=ShellRules)


@dataclass(frozen=True)
class CommandPattern:
    """One entry of ``[shell.commands]``: ``git branch --list`` is the program ``git``, the
    word ``branch`` and the option ``--list``; ``curl -X=POST`` an option with its value."""

    text: str
    kind: str  # one of COMMAND_KINDS
    program: str
    words: tuple[str, ...]  # positional words in order; ``*`` is any one word
    options: tuple[tuple[str, str | None], ...]  # (option, wanted value or None)

    @property
    def specificity(self) -> float:
        literal = sum(1 for w in self.words if w != "*") + 0.5 * self.words.count("*")
        return literal + sum(2 if value is not None else 1 for _, value in self.options)

    @classmethod
    def parse(cls, text: str, kind: str) -> CommandPattern:
        program, *rest = text.split()
        words: list[str] = []
        options: list[tuple[str, str | None]] = []
        for token in rest:
            if token.startswith("-") and len(token) > 1:
                name, sep, value = token.partition("=")
                options.append((name, value if sep else None))
            else:
                words.append(token)
        return cls(text, kind, program.lower(), tuple(words), tuple(options))


def command_table(layers: list[ShellCommands], label: str) -> dict[str, str]:
    """Pattern -> kind over the layers: a later layer moves a pattern to another kind; one file
    listing a pattern under two kinds is an error."""
    table: dict[str, str] = {}
    for layer in layers:
        seen: dict[str, str] = {}
        for kind in COMMAND_KINDS:
            for pattern in getattr(layer, kind):
                key = " ".join(pattern.split())
                if seen.get(key, kind) != kind:
                    problem = f"{key!r} is listed under both {seen[key]} and {kind}"
                    raise RuleFileError(label, "shell.commands", problem)
                seen[key] = table[key] = kind
    return table


class ShellImpact:
    """Compiled ``[shell]``: which calls run a command and how to read a command line."""

    def __init__(self, shell: ShellRules, table: dict[str, str]) -> None:
        self.tools = frozenset(t.lower() for t in shell.tools)
        self.argument_keys = tuple(shell.argument_keys)
        self.max_chars, self.max_segments = shell.max_chars, shell.max_segments
        self.prefixes = {k.lower(): v for k, v in shell.prefixes.items()}
        self.prefix_commands = frozenset(
            tuple(p.lower().split()[:2]) for p in shell.prefix_commands if len(p.split()) >= 2
        )
        self.shells = frozenset(s.lower() for s in shell.shells)
        self.module_options = {k.lower(): v for k, v in shell.module_options.items()}
        self.aliases = {k.lower(): v.split() for k, v in shell.aliases.items() if v.split()}
        self.keywords = frozenset(shell.keywords)
        self.harmless_redirects = re.compile(shell.harmless_redirects)
        self.help_options = frozenset(shell.help_options)
        self.help_only = frozenset(shell.help_only)
        self.sql_write = re.compile(shell.sql_write)
        self.sql_read = re.compile(shell.sql_read)
        self.value_options = {k.lower(): frozenset(v) for k, v in shell.value_options.items()}
        self.runner_name_options = frozenset(shell.runner_name_options)
        self.cmdlet_verbs = {
            verb.lower(): kind for kind, verbs in shell.cmdlet_verbs.items() for verb in verbs
        }
        self.patterns: dict[str, list[CommandPattern]] = {}
        for text, kind in table.items():
            pattern = CommandPattern.parse(text, kind)
            self.patterns.setdefault(pattern.program, []).append(pattern)
        # Programs with a subcommand: those a pattern names a literal word after.
        self.subcommand_programs = frozenset(
            program
            for program, patterns in self.patterns.items()
            if any(p.words and p.words[0] != "*" for p in patterns)
        )


class ImpactRules:
    """Compiled ``impact.toml``."""

    def __init__(self, rules: ImpactRulesFile, table: dict[str, str] | None = None) -> None:
        graphql = rules.graphql or GraphQLRule(mutation=r"^\s*mutation\b", query=r"^\s*query\b")
        self.mutation = re.compile(graphql.mutation, re.IGNORECASE)
        self.query = re.compile(graphql.query, re.IGNORECASE)
        self.write_arguments = [
            (frozenset(rule.keys), re.compile(rule.pattern)) for rule in rules.write_argument
        ]
        self.read_arguments = [
            (frozenset(rule.keys), re.compile(rule.pattern)) for rule in rules.read_argument
        ]
        self.write_argument_ids = tuple(
            rule.id for rule in [*rules.write_argument, *rules.read_argument]
        )
        self.write_words = frozenset(w.lower() for w in rules.names.write_words)
        self.read_words = frozenset(w.lower() for w in rules.names.read_words)
        coding = rules.coding_tools
        self.coding_tools: dict[str, str] = {}
        for kind, names in (("read", coding.agent_state), ("read", coding.read)):
            self.coding_tools.update((name.lower(), kind) for name in names)
        self.coding_tools.update((name.lower(), "write") for name in coding.write)
        self.agent_state = frozenset(name.lower() for name in coding.agent_state)
        self.editors = [
            (
                frozenset(t.lower() for t in rule.tools),
                rule.key,
                frozenset(v.lower() for v in rule.read),
                frozenset(v.lower() for v in rule.write),
            )
            for rule in rules.editor
        ]
        self.editor_ids = tuple(rule.id for rule in rules.editor)
        if table is None:
            table = command_table([rules.shell.commands], "impact.toml")
        self.shell = ShellImpact(rules.shell, table)


def load_impact_rules(user_dir: Path | None, files: list[str] | None = None) -> ImpactRules:
    """The shipped ``impact.toml`` with a user's own layered over it; labels go to ``files``."""
    merged: dict[str, Any] = {}
    tables: list[ShellCommands] = []
    for path, label in rule_layers("impact.toml", user_dir):
        data = read_toml(path, label)
        layer = validate_file(ImpactRulesFile, data, label)
        assert isinstance(layer, ImpactRulesFile)
        tables.append(layer.shell.commands)
        command_table([layer.shell.commands], label)  # one file names a pattern once
        merged = merge_layers(merged, data)
        if files is not None:
            files.append(label)
    checked = validate_file(ImpactRulesFile, merged, "impact.toml")
    assert isinstance(checked, ImpactRulesFile)
    return ImpactRules(checked, command_table(tables, "impact.toml"))


@lru_cache(maxsize=1)
def default_impact_rules() -> ImpactRules:
    """The shipped ``impact.toml``, read once (for rule sets built without one)."""
    return load_impact_rules(None)


# ----------------------------------------------------------------------------- turns.toml
class HostWritten(Strict):
    patterns: list[str] = Field(default_factory=list)

    @field_validator("patterns")
    @classmethod
    def _compile(cls, value: list[str]) -> list[str]:
        return [check_pattern(pattern) for pattern in value]


class Reasoning(Strict):
    tools: list[str] = Field(default_factory=list)


class TurnsFile(Strict):
    host_written: HostWritten = Field(default_factory=HostWritten)
    reasoning: Reasoning = Field(default_factory=Reasoning)


def load_turns(
    user_dir: Path | None, files: list[str] | None = None
) -> tuple[re.Pattern[str], frozenset[str]]:
    """``turns.toml`` (a user's lists added): one pattern for the user-role texts a host
    writes, and the names of the tools an agent thinks aloud with."""
    checked = load_layered("turns.toml", TurnsFile, user_dir, files)
    joined = "|".join(f"(?:{pattern})" for pattern in checked.host_written.patterns) or r"(?!)"
    reasoning = frozenset(name.lower() for name in checked.reasoning.tools)
    return re.compile(joined, re.IGNORECASE), reasoning


# ----------------------------------------------------------------------------- actions.toml
class ActionsFile(Strict):
    actions: dict[str, list[str]] = Field(default_factory=dict)


def load_actions(
    user_dir: Path | None, files: list[str] | None = None
) -> dict[str, frozenset[str]]:
    """``actions.toml`` (a user's lists added) as a map from a word of a tool's name to the
    actions it names."""
    checked = load_layered("actions.toml", ActionsFile, user_dir, files)
    by_word: dict[str, set[str]] = {}
    for action, words in checked.actions.items():
        for word in words:
            by_word.setdefault(word.lower(), set()).add(action)
    return {word: frozenset(actions) for word, actions in by_word.items()}


# ----------------------------------------------------------------------------- recovery.toml
class TargetKeys(Strict):
    keys: list[str] = Field(default_factory=list)
    content_keys: list[str] = Field(default_factory=list)
    query_keys: list[str] = Field(default_factory=list)
    place_options: list[str] = Field(default_factory=list)


class NextTurn(Strict):
    asks: list[str] = Field(default_factory=list)
    months: dict[str, str] = Field(default_factory=dict)

    @field_validator("asks")
    @classmethod
    def _compile(cls, value: list[str]) -> list[str]:
        return [check_pattern(pattern) for pattern in value]

    @field_validator("months")
    @classmethod
    def _months(cls, value: dict[str, str]) -> dict[str, str]:
        unknown = sorted(set(value) - set(MONTHS))
        if unknown:
            raise ValueError(f"not a month: {', '.join(unknown)} (use {', '.join(MONTHS)})")
        return {month: check_pattern(pattern) for month, pattern in value.items()}


MONTHS = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip


class RecoveryFile(Strict):
    targets: TargetKeys = Field(default_factory=TargetKeys)
    next_turn: NextTurn = Field(default_factory=NextTurn)


@dataclass(frozen=True)
class RecoveryRules:
    """Compiled ``recovery.toml``."""

    target_keys: frozenset[str]
    content_keys: frozenset[str]
    query_keys: frozenset[str]
    asks: tuple[re.Pattern[str], ...]
    place_options: frozenset[str] = frozenset()  # options of a command that say where it acts
    months: tuple[str, ...] = ()  # per month in order, a pattern of its names' starts ("" none)


def load_recovery_rules(user_dir: Path | None, files: list[str] | None = None) -> RecoveryRules:
    """The shipped ``recovery.toml`` with a user's lists added."""
    checked = load_layered("recovery.toml", RecoveryFile, user_dir, files)
    return RecoveryRules(
        target_keys=frozenset(k.lower() for k in checked.targets.keys),
        content_keys=frozenset(k.lower() for k in checked.targets.content_keys),
        query_keys=frozenset(k.lower() for k in checked.targets.query_keys),
        asks=tuple(re.compile(pattern) for pattern in checked.next_turn.asks),
        place_options=frozenset(o.lower() for o in checked.targets.place_options),
        months=tuple(checked.next_turn.months.get(month, "") for month in MONTHS),
    )


@lru_cache(maxsize=1)
def default_recovery_rules() -> RecoveryRules:
    """The shipped ``recovery.toml``, read once (for rule sets built without one)."""
    return load_recovery_rules(None)
