"""``auditor rules``: every rule with its id, as a linter lists its rules, and one rule's
explanation (``auditor rules --explain ID``, like ``ruff rule B011``)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from auditor.catalogue import Entry, cue_family
from auditor.rules_loader import RuleSet

KIND_TITLES = {
    "outcome": "Outcome rules (the outcome_rule column)",
    "finding": "Findings (the finding column)",
    "claim": "Claim cue families (the claim_cue column, after the language)",
    "impact": "Impact rules (the impact column)",
}


def print_explanation(console: Console, asked: str, entry: Entry) -> None:
    """One rule: its id and kind, what it catches and why it matters, an example."""
    shown = entry.id if entry.id == asked else f"{asked} ({entry.kind} {entry.id})"
    console.print(Text.assemble((shown, "bold"), f"  {entry.kind}: {entry.title}"))
    console.print()
    console.print(entry.explanation.strip(), markup=False, highlight=False)
    console.print()
    console.print(Text("Example:", style="bold"))
    console.print(Text("  " + entry.example.strip().replace("\n", "\n  ")))


def print_rules(
    console: Console, rules: RuleSet, catalogue: dict[str, Entry], *, verbose: bool = False
) -> None:
    """Every catalogued rule by kind, then the rule files and cue packs in use."""
    for kind, title in KIND_TITLES.items():
        table = Table(title=title, title_justify="left")
        table.add_column("id", no_wrap=True)
        table.add_column("what it catches")
        if kind == "claim":
            table.add_column("languages")
        for entry in (e for e in catalogue.values() if e.kind == kind):
            row = [entry.id, entry.title]
            if kind == "claim":
                row.append(", ".join(_languages(rules, entry.id)))
            table.add_row(*row)
        console.print(table)
    console.print("Explain one: auditor rules --explain ID", highlight=False)
    console.print("Rule files:", highlight=False)
    for name in rules.files:
        console.print(f"  {name}", markup=False, highlight=False)
    packs = Table(title="Claim cue packs")
    for column in ("language", "name", "cues", "from"):
        packs.add_column(column)
    for language, pack in sorted(rules.packs.items()):
        sources = sorted({cue.source for cue in pack.cues})
        packs.add_row(language, pack.name, str(len(pack.cues)), "\n".join(sources))
    console.print(packs)
    recognised = sorted(set(rules.languages) - set(rules.packs))
    if recognised:
        console.print(
            "Recognised without a pack (claim neutral with a note): "
            + ", ".join(f"{code} ({rules.language_names.get(code, code)})" for code in recognised),
            highlight=False,
        )
    if verbose:
        cues = Table(title="Cues")
        for column in ("id", "kind", "from", "pattern"):
            cues.add_column(column, overflow="fold")
        for pack in rules.packs.values():
            for cue in pack.cues:
                cues.add_row(cue.id, cue.kind, cue.source, cue.pattern)
        console.print(cues)


def _languages(rules: RuleSet, family: str) -> list[str]:
    """The cue packs that have a cue of this family."""
    return sorted(
        language
        for language, pack in rules.packs.items()
        if any(cue_family(cue.id) == family for cue in pack.cues)
    )
