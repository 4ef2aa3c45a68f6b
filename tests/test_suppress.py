"""Suppressions: a reason for each, an expiry that is enforced, errors that say where."""

from datetime import date
from pathlib import Path

import pytest
from builders import write_jsonl
from test_nightly import forbidden_update, missing_channel

from auditor import scan
from auditor.output.suppress import SuppressionFileError, apply_suppressions, load_suppressions

TODAY = date(2026, 11, 30)


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    return write_jsonl(
        tmp_path / "gateway.jsonl", [missing_channel("c-5"), forbidden_update("c-3", "SUP-1")]
    )


def ignore_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "auditor-ignore.toml"
    path.write_text(text, encoding="utf-8")
    return path


def suppressed(logs: Path, ignore: Path, today: date = TODAY) -> dict[str, bool]:
    result = apply_suppressions(scan([logs]), load_suppressions(ignore), today)
    return {row["conversation_id"]: row["suppressed"] for row in result.findings.to_dicts()}


def test_a_pattern_suppresses_the_findings_it_matches_and_no_other(tmp_path: Path, logs: Path):
    ignore = ignore_file(
        tmp_path,
        '[[suppress]]\ntool = "send_message"\nfinding = "false_success"\n'
        'message = "channel_not_found"\nreason = "INFRA-12"\n',
    )
    assert suppressed(logs, ignore) == {"c-5": True, "c-3": False}


def test_a_fingerprint_suppresses_that_finding(tmp_path: Path, logs: Path):
    target = scan([logs]).findings.filter(conversation_id="c-3")["fingerprint"].item()
    ignore = ignore_file(tmp_path, f'[[suppress]]\nfingerprint = "{target}"\nreason = "fixed"\n')
    assert suppressed(logs, ignore) == {"c-5": False, "c-3": True}


def test_suppressed_findings_do_not_count_in_the_severity_summary(tmp_path: Path, logs: Path):
    ignore = ignore_file(
        tmp_path, '[[suppress]]\ntool = "send_message"\nreason = "bot not invited yet"\n'
    )
    result = apply_suppressions(scan([logs]), load_suppressions(ignore), TODAY)
    summary = result.summary()
    assert summary["severity"]["critical"] == 1
    assert summary["suppressed"] == 1


def test_an_expired_suppression_suppresses_nothing_and_is_reported(tmp_path: Path, logs: Path):
    ignore = ignore_file(
        tmp_path,
        '[[suppress]]\ntool = "send_message"\nreason = "until the bot is invited"\n'
        "expires = 2026-11-01\n",
    )
    result = apply_suppressions(scan([logs]), load_suppressions(ignore), TODAY)
    assert not result.findings["suppressed"].any()
    expired = result.summary()["suppressions"]["expired"]
    assert [(e["tool"], e["expires"], e["findings"]) for e in expired] == [
        ("send_message", "2026-11-01", 1)
    ]


def test_a_suppression_before_its_expiry_applies(tmp_path: Path, logs: Path):
    ignore = ignore_file(
        tmp_path, '[[suppress]]\ntool = "send_message"\nreason = "r"\nexpires = 2026-12-31\n'
    )
    assert suppressed(logs, ignore)["c-5"] is True


@pytest.mark.parametrize(
    ("text", "key", "problem"),
    [
        ('[[suppress]]\ntool = "x"\n', "suppress.0.reason", "Field required"),
        ('[[suppress]]\ntool = "x"\nreason = "  "\n', "suppress.0.reason", "needs a reason"),
        ('[[suppress]]\nreason = "why"\n', "suppress.0", "at least one of"),
        ('[[suppress]]\nmessage = "(unclosed"\nreason = "r"\n', "suppress.0.message", "regular"),
        ('[[suppress]]\nfinding = "oops"\nreason = "r"\n', "suppress.0.finding", "Input should"),
        ('[[suppress]]\ntool = "x"\nreason = "r"\nexpires = "soon"\n', "suppress.0.expires", ""),
        ('[[suppres]]\ntool = "x"\nreason = "r"\n', "suppres", "Extra inputs"),
    ],
)
def test_a_wrong_suppressions_file_names_the_file_the_key_and_the_problem(
    tmp_path: Path, text: str, key: str, problem: str
):
    with pytest.raises(SuppressionFileError) as raised:
        load_suppressions(ignore_file(tmp_path, text))
    assert raised.value.file.endswith("auditor-ignore.toml")
    assert raised.value.key == key
    assert problem in raised.value.problem
