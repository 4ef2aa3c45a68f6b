"""Every rule has a catalogue entry and a fixture, and every fixture still gives its row.

A fixture, ``fixtures/<id>.json``, is one small transcript and the row the auditor must make of
one of its tool calls:

    {"note": "...", "format_hint": "openai_chat",
     "transcript": [<conversation record>, ...],          # each becomes one JSONL line
     "expect": {"tool_call_id": "call_1", "outcome": "tool_error", "outcome_rule": "..."}}

A format that is not one record per line is given as ``"transcript_text"`` (the file's content)
with its ``"suffix"``. ``"xfail"`` names a known gap between the code and the spec: the fixture
holds what the spec asks for and the test is expected to fail until the code does it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from auditor import load_rules, scan
from auditor.catalogue import (
    CODE_CLAIM_READINGS,
    UnknownRuleError,
    explain,
    known_ids,
    load_catalogue,
)

FIXTURES = Path(__file__).parent / "fixtures"


def fixture_file(rule_id: str) -> Path:
    """The fixture of an id (the readings the claim code writes have spaces: dashes here)."""
    return FIXTURES / f"{rule_id.replace(' ', '-')}.json"


def read_fixture(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def write_transcript(fixture: dict[str, Any], folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if "transcript_text" in fixture:
        path = folder / f"transcript{fixture.get('suffix', '.jsonl')}"
        path.write_text(fixture["transcript_text"], encoding="utf-8")
    else:
        path = folder / "transcript.jsonl"
        lines = (json.dumps(record, ensure_ascii=False) + "\n" for record in fixture["transcript"])
        path.write_text("".join(lines), encoding="utf-8")
    return path


def row_of(fixture: dict[str, Any], folder: Path, rules: Any = None) -> dict[str, Any]:
    """The calls-table row of the fixture's expected tool call."""
    path = write_transcript(fixture, folder)
    result = scan([path], rules=rules, input_format=fixture.get("format_hint"))
    call_id = fixture["expect"]["tool_call_id"]
    rows = result.calls.filter(pl.col("tool_call_id") == call_id).to_dicts()
    assert len(rows) == 1, f"{len(rows)} rows for {call_id}; rejects: {result.rejects.to_dicts()}"
    return rows[0]


def fixture_params() -> list[Any]:
    params = []
    for path in sorted(FIXTURES.glob("*.json")):
        reason = read_fixture(path).get("xfail")
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(path, id=path.stem, marks=marks))
    return params


@pytest.fixture(scope="module")
def ids() -> dict[str, str]:
    return known_ids(load_rules())


# ----------------------------------------------------------------------------- fixtures hold
@pytest.mark.parametrize("path", fixture_params())
def test_the_fixture_gives_its_expected_row(path: Path, tmp_path: Path):
    fixture = read_fixture(path)
    row = row_of(fixture, tmp_path)
    expected = fixture["expect"]
    assert {key: row[key] for key in expected} == expected


def test_every_id_has_a_fixture(ids: dict[str, str]):
    missing = sorted(rule_id for rule_id in ids if not fixture_file(rule_id).is_file())
    assert missing == []


def test_every_fixture_is_named_after_a_known_id(ids: dict[str, str]):
    named = {fixture_file(rule_id).name for rule_id in ids}
    stale = sorted(path.name for path in FIXTURES.glob("*.json") if path.name not in named)
    assert stale == []


def test_every_fixture_exercises_the_rule_it_is_named_after(ids: dict[str, str]):
    """An outcome fixture expects its rule in outcome_rule, a finding fixture its finding, a cue
    family fixture a cue of its family (or a note on the effect of a family that modifies other
    cues), an impact fixture an impact."""
    wrong = []
    for rule_id, kind in ids.items():
        if not fixture_file(rule_id).is_file():
            continue  # test_every_id_has_a_fixture reports it
        fixture = read_fixture(fixture_file(rule_id))
        expect = fixture["expect"]
        if kind == "outcome":
            rule = expect.get("outcome_rule", "")
            ok = "outcome" in expect and (
                rule in (rule_id, f"flag-ignored:{rule_id}")
                or (rule_id == "flag-ignored" and rule.startswith("flag-ignored:"))
            )
        elif kind == "finding":
            ok = expect.get("finding") == rule_id and "severity" in expect
        elif kind == "claim":
            cue = expect.get("claim_cue", "")
            ok = "claim" in expect and (
                cue == rule_id
                or cue.split(".", 1)[-1] == rule_id
                or (bool(fixture.get("note")) and rule_id not in CODE_CLAIM_READINGS)
            )
        else:
            ok = "impact" in expect
        if not ok:
            wrong.append(rule_id)
    assert wrong == []


def rules_without(cue: Any, pack: Any, folder: Path) -> Any:
    """The shipped rules with one cue switched off, through a user rules folder."""
    (folder / "claims").mkdir(parents=True)
    (folder / "claims" / f"{pack.language}.toml").write_text(
        f'language = "{pack.language}"\nname = "{pack.name}"\n'
        f'[[cue]]\nid = "{cue.id}"\nkind = "{cue.kind}"\npattern = "(?!)"\n',
        encoding="utf-8",
    )
    return load_rules(folder)


def test_a_cue_family_fixture_reads_otherwise_without_its_family(tmp_path: Path):
    """With the family's cue switched off the fixture's row changes: the fixture shows what the
    family does (for the families that only modify other cues too)."""
    rules = load_rules()
    cues = {cue.id: (pack, cue) for pack in rules.packs.values() for cue in pack.cues}
    unchanged = []
    for path in sorted(FIXTURES.glob("*.json")):
        fixture = read_fixture(path)
        cue_id = f"{fixture['expect'].get('language', 'en')}.{path.stem}"
        if cue_id not in cues:
            continue  # not a cue family
        pack, cue = cues[cue_id]
        folder = tmp_path / path.stem
        keys = ("claim", "claim_cue", "finding")
        with_cue = row_of(fixture, folder / "with", rules)
        without_cue = row_of(fixture, folder / "without", rules_without(cue, pack, folder))
        if [with_cue[k] for k in keys] == [without_cue[k] for k in keys]:
            unchanged.append(path.stem)
    assert unchanged == []


# ----------------------------------------------------------------------------- catalogue
def test_every_known_id_has_a_catalogue_entry(ids: dict[str, str]):
    missing = sorted(set(ids) - set(load_catalogue()))
    assert missing == []


def test_every_catalogue_entry_names_an_id_that_still_exists(ids: dict[str, str]):
    gone = sorted(set(load_catalogue()) - set(ids))
    assert gone == []


def test_every_catalogue_entry_sits_in_the_section_of_its_kind(ids: dict[str, str]):
    misplaced = sorted(e.id for e in load_catalogue().values() if ids.get(e.id, e.kind) != e.kind)
    assert misplaced == []


def test_no_catalogue_entry_has_an_empty_title_explanation_or_example():
    empty = sorted(
        entry.id
        for entry in load_catalogue().values()
        if not (entry.title.strip() and entry.explanation.strip() and entry.example.strip())
    )
    assert empty == []


# ----------------------------------------------------------------------------- explain
def test_explain_reads_a_full_cue_id_as_its_family():
    entry = explain("de.failure.timeout")
    assert (entry.id, entry.kind) == ("failure.timeout", "claim")


def test_explain_takes_a_family_id():
    assert explain("success.done").title == explain("en.success.done").title


def test_explain_takes_an_outcome_rule_as_the_calls_table_shows_it():
    assert explain("flag-ignored:search-found-nothing").id == "search-found-nothing"


def test_explain_of_an_unknown_id_names_a_close_match():
    with pytest.raises(UnknownRuleError) as raised:
        explain("en.failure.inabilty")
    assert "did you mean 'failure.inability'" in str(raised.value)


def test_an_unknown_id_is_a_key_error():
    with pytest.raises(KeyError):
        explain("no-such-rule")
