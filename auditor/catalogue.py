"""The rule catalogue: a code and a plain-English explanation for every id the auditor can put
in the calls table (``outcome_rule``, ``finding``, ``claim_cue``) and for the impact rules.

The entries live in the shipped ``rules/catalogue.toml``, one section per kind.

>>> explain("en.failure.inability").title
'Says it could not'
"""

from __future__ import annotations

import difflib
import re
from functools import cache
from typing import Literal

from pydantic import BaseModel, ConfigDict

from auditor.model import Finding
from auditor.rules_loader import (
    SHIPPED,
    RuleFileError,
    RuleSet,
    default_impact_rules,
    read_toml,
    validate_file,
)

Kind = Literal["outcome", "finding", "claim", "impact"]
KINDS: tuple[Kind, ...] = ("outcome", "finding", "claim", "impact")

CATALOGUE_FILE = "catalogue.toml"

# Outcome rule ids that the outcome code gives itself (no rule file declares them). The outcome
# code writes ``flag-ignored:<ignored_flag id>`` when a failure flag was ignored by that rule.
CODE_OUTCOME_IDS: tuple[str, ...] = (
    "no-result",
    "late-result",
    "jsonrpc-error",
    "graphql-partial-data",
    "graphql-no-data",
    "flagged-error",
    "identity-null",
    "ok",
    "flag-ignored",
)
FLAG_IGNORED_PREFIX = "flag-ignored:"

# What the claim reader writes in ``claim_cue`` when no cue of a pack decided the claim.
CODE_CLAIM_READINGS: tuple[str, ...] = (
    "states it as fact",
    "says nothing about this call",
    "no reply",
    "restates the error",
    "deals with the failed step",
    "puts a corrected request",
    "no cue pack",
)

# The steps of the impact decision that carry no ``id`` in ``impact.toml`` (the
# ``[[write_argument]]`` and ``[[editor]]`` rules carry their own ids).
IMPACT_STEP_IDS: tuple[str, ...] = (
    "tool-annotations",
    "coding-tool",
    "agent-state",
    "shell-command",
    "shell-redirect",
    "shell-help",
    "shell-sql",
    "shell-words",
    "graphql-mutation",
    "graphql-query",
    "identity-tool",
    "write-words",
    "read-words",
)

_CUE_ID = re.compile(r"^(?P<language>[a-z]{2,3}(?:[-_][A-Za-z]{2,4})?)\.(?P<family>.+)$")


class Entry(BaseModel):
    """One catalogue entry: what a rule catches and why a reader of findings should care."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    kind: Kind
    title: str
    explanation: str
    example: str


class _Written(BaseModel):
    """An entry as written in the file: its kind is the section it sits in."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    title: str
    explanation: str
    example: str


class _CatalogueFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    outcome: list[_Written] = []
    finding: list[_Written] = []
    claim: list[_Written] = []
    impact: list[_Written] = []


class UnknownRuleError(KeyError):
    """An id with no catalogue entry; the message names the closest known ids."""

    def __init__(self, rule_id: str, close: list[str]) -> None:
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        self.rule_id, self.close = rule_id, close
        self.message = f"no catalogue entry for {rule_id!r}{hint}"
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


@cache
def load_catalogue() -> dict[str, Entry]:
    """The shipped catalogue by id. A broken file raises ``RuleFileError``."""
    label = f"<shipped>/rules/{CATALOGUE_FILE}"
    written = validate_file(_CatalogueFile, read_toml(SHIPPED / CATALOGUE_FILE, label), label)
    assert isinstance(written, _CatalogueFile)
    entries: dict[str, Entry] = {}
    for kind in KINDS:
        for index, item in enumerate(getattr(written, kind)):
            if item.id in entries:
                raise RuleFileError(label, f"{kind}.{index}.id", f"{item.id!r} is listed twice")
            entries[item.id] = Entry(kind=kind, **item.model_dump())
    return entries


def explain(rule_id: str) -> Entry:
    """The entry for an id as the calls table shows it: a rule id, a finding, a full cue id
    (``en.failure.inability`` -> ``failure.inability``) or ``flag-ignored:<ignored_flag id>``."""
    catalogue = load_catalogue()
    if rule_id in catalogue:
        return catalogue[rule_id]
    if rule_id.startswith(FLAG_IGNORED_PREFIX):
        flag = rule_id.removeprefix(FLAG_IGNORED_PREFIX)
        if flag in catalogue and catalogue[flag].kind == "outcome":
            return catalogue[flag]
    cue = _CUE_ID.match(rule_id)
    family = catalogue.get(cue["family"]) if cue else None
    if family is not None and family.kind == "claim":
        return family
    candidates = [rule_id, cue["family"]] if cue else [rule_id]
    close = [
        match
        for candidate in candidates
        for match in difflib.get_close_matches(candidate, catalogue, n=3, cutoff=0.6)
    ]
    raise UnknownRuleError(rule_id, list(dict.fromkeys(close))[:3])


def cue_family(cue_id: str) -> str:
    """A cue id without its language: ``de.failure.timeout`` -> ``failure.timeout``."""
    match = _CUE_ID.match(cue_id)
    return match["family"] if match else cue_id


def known_ids(rules: RuleSet) -> dict[str, str]:
    """Every id the rules and the code can emit, with its kind (outcome, finding, claim,
    impact). ``flag-ignored:<id>`` is listed as ``flag-ignored`` and the ignored_flag ids."""
    outcomes = rules.outcomes
    ids: dict[str, str] = {}
    for section in (outcomes.transport_text, outcomes.envelope, outcomes.error_text):
        ids.update((rule.id, "outcome") for rule in section)
    ids[outcomes.lone_error.id] = "outcome"
    ids[outcomes.test_summary.id] = "outcome"
    ids.update((rule.id, "outcome") for rule in outcomes.ignored_flag)
    ids.update((rule_id, "outcome") for rule_id in CODE_OUTCOME_IDS)
    ids.update((finding.value, "finding") for finding in Finding)
    for pack in rules.packs.values():
        ids.update((cue_family(cue.id), "claim") for cue in pack.cues)
    ids.update((reading, "claim") for reading in CODE_CLAIM_READINGS)
    impact = rules.impact or default_impact_rules()
    ids.update((rule_id, "impact") for rule_id in impact.write_argument_ids + impact.editor_ids)
    ids.update((rule_id, "impact") for rule_id in IMPACT_STEP_IDS)
    return ids


__all__ = [
    "CODE_CLAIM_READINGS",
    "CODE_OUTCOME_IDS",
    "IMPACT_STEP_IDS",
    "Entry",
    "UnknownRuleError",
    "cue_family",
    "explain",
    "known_ids",
    "load_catalogue",
]
