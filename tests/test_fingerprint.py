"""Fingerprints name a finding across runs; signatures name a failure pattern."""

import shutil
from pathlib import Path

import pytest
from builders import one_call, text_block, write_jsonl
from test_nightly import forbidden_update

from auditor import scan
from auditor.output.fingerprint import normalise_message


@pytest.mark.parametrize(
    ("message", "pattern"),
    [
        (
            "403 Forbidden: API key 'kestrel-helpdesk' has read-only access to project SUP.",
            "403 Forbidden: API key <q> has read-only access to project SUP.",
        ),
        (
            "not enough seats on flight HAT229 (need 3)",
            "not enough seats on flight <id> (need <n>)",
        ),
        (
            "HTTP 500 at 2026-11-30T05:12:00Z for request 123e4567-e89b-12d3-a456-426614174000",
            "HTTP 500 at <time> for request <uuid>",
        ),
        ("lock held by 0x7f3a since 09:14:03", "lock held by <hex> since <time>"),
        ("commit 3f2a9b8c7d6e5f40 not found", "commit <hex> not found"),
        ('{"data": {"viewer": null}}', '{"data": {"viewer": null}}'),
        ("Query timeout after 30s on index 7", "Query timeout after <n> on index <n>"),
    ],
)
def test_an_error_message_loses_its_particulars(message: str, pattern: str):
    assert normalise_message(message) == pattern


def test_the_same_failure_on_other_tickets_is_one_signature():
    def refused(ticket: str) -> dict:
        result = {
            "content": text_block(f"403 Forbidden: no write access to {ticket} (request 81723)"),
            "isError": True,
        }
        return one_call(f"Done, {ticket} is closed.", result, id=ticket)

    first, second = refused("SUP-4471"), refused("OPS-318")
    assert first["signature"] == second["signature"]
    assert first["signature"].startswith("update_ticket | tool_error | false_success | 403")


def test_a_call_that_worked_has_no_signature_and_no_fingerprint():
    row = one_call("Done.", {"content": text_block({"ok": True})})
    assert (row["signature"], row["fingerprint"]) == (None, None)


def test_a_failure_reported_honestly_has_a_signature_but_no_fingerprint():
    result = {"content": text_block("403 Forbidden"), "isError": True}
    row = one_call("Sorry, I couldn't update it: access was refused.", result)
    assert row["finding"] is None
    assert row["signature"] == "update_ticket | tool_error | no finding | 403 Forbidden"
    assert row["fingerprint"] is None


def test_a_fingerprint_survives_moving_the_file_and_new_lines_above_it(tmp_path: Path):
    (tmp_path / "a").mkdir()
    first = write_jsonl(tmp_path / "a" / "gateway.jsonl", [forbidden_update("c-3", "SUP-1")])
    before = scan([first]).findings.row(0, named=True)
    moved = tmp_path / "archive" / "2026" / "gateway.jsonl"
    moved.parent.mkdir(parents=True)
    shutil.copy(first, moved)
    write_jsonl(moved, [forbidden_update("c-0", "SUP-0"), forbidden_update("c-3", "SUP-1")])
    after = scan([moved]).findings.filter(conversation_id="c-3").row(0, named=True)
    assert (after["source"], after["line"]) != (before["source"], before["line"])
    assert after["fingerprint"] == before["fingerprint"]


def test_a_fingerprint_survives_a_rule_pack_change_that_keeps_the_verdict(tmp_path: Path):
    logs = write_jsonl(tmp_path / "gateway.jsonl", [forbidden_update("c-3", "SUP-1")])
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "outcomes.toml").write_text(
        '[[error_text]]\nid = "quota-exceeded"\npattern = "^Quota exceeded"\n', encoding="utf-8"
    )
    before = scan([logs]).findings["fingerprint"].to_list()
    after = scan([logs], rules_dir=rules).findings["fingerprint"].to_list()
    assert after == before
