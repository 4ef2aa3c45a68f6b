"""Rule files: validated on load, errors name the file and key, a user's folder layers over."""

from pathlib import Path

import pytest
from builders import one_call, text_block

from auditor import RuleFileError, load_rules
from auditor.run.local import scan


def test_the_shipped_pack_loads_with_every_language():
    rules = load_rules()
    assert {"en", "de", "es", "fr", "pt"} <= set(rules.packs)


def test_a_wrong_rule_file_names_the_file_and_the_key(tmp_path: Path):
    (tmp_path / "outcomes.toml").write_text('[[error_text]]\nid = "x"\npattern = "(unclosed"\n')
    with pytest.raises(RuleFileError) as raised:
        load_rules(tmp_path)
    assert raised.value.file == str(tmp_path / "outcomes.toml")
    assert raised.value.key == "error_text.0.pattern"


def test_an_unknown_key_is_refused(tmp_path: Path):
    (tmp_path / "outcomes.toml").write_text('[identity]\ntools = ["me"]\ntypo = 1\n')
    with pytest.raises(RuleFileError, match=r"identity\.typo"):
        load_rules(tmp_path)


def test_a_toml_syntax_error_is_reported(tmp_path: Path):
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "en.toml").write_text("language = \n")
    with pytest.raises(RuleFileError, match=r"claims/en\.toml"):
        load_rules(tmp_path)


def test_a_user_folder_adds_an_identity_tool(tmp_path: Path):
    (tmp_path / "outcomes.toml").write_text('[identity]\ntools = ["describe_caller"]\n')
    rules = load_rules(tmp_path)
    assert "describe_caller" in rules.outcomes.identity_tools
    assert "get_me" in rules.outcomes.identity_tools


def test_a_user_cue_replaces_the_shipped_one_with_the_same_id(tmp_path: Path):
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "en.toml").write_text(
        'language = "en"\nname = "English"\n'
        '[[cue]]\nid = "en.failure.emoji"\nkind = "failure"\npattern = "🙈"\n'
    )
    rules = load_rules(tmp_path)
    cue = next(c for c in rules.packs["en"].cues if c.id == "en.failure.emoji")
    assert cue.pattern == "🙈"
    assert cue.source == str(tmp_path / "claims" / "en.toml")


def test_scan_uses_the_user_rules(tmp_path: Path):
    rules_dir = tmp_path / "rules"
    rules_dir.mkdir()
    (rules_dir / "outcomes.toml").write_text('[identity]\ntools = ["describe_caller"]\n')
    row = one_call("hi", {"content": text_block("null")}, "describe_caller")
    assert row["outcome"] == "ok"  # the shipped rules don't know this tool
    assert "describe_caller" in load_rules(rules_dir).outcomes.identity_tools
    assert scan([], rules_dir=rules_dir).calls.height == 0


def test_a_month_the_recovery_rules_do_not_know_is_refused(tmp_path: Path):
    (tmp_path / "recovery.toml").write_text('[next_turn.months]\nseptembre = "sep"\n')
    with pytest.raises(RuleFileError, match=r"not a month: septembre"):
        load_rules(tmp_path)


def test_a_users_month_names_replace_the_shipped_ones(tmp_path: Path):
    (tmp_path / "recovery.toml").write_text('[next_turn.months]\nseptember = "syys"\n')
    months = load_rules(tmp_path).recovery.months
    assert (months[8], months[9]) == ("syys", "oct|okt|ott|out")
