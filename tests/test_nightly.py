"""Nightly runs: two nights over the same folder of logs, told the way cron would run them.

Night 1 scans the folder. On day 2 the gateway log gets new lines, a new log appears, and an
``auditor-ignore.toml`` suppresses a known Slack problem. Night 2 reads only what is new,
marks only the new findings ``new``, knows a failure pattern it saw on night 1, and stays green
(``--fail-on-new``) because the only new critical finding is suppressed. When the rules then
change, a finding that no longer holds is written to ``resolved``.
"""

import json
import shutil
from pathlib import Path

import polars as pl
import pytest
from builders import assistant, call, chat, text_block, tool, user, write_jsonl
from typer.testing import CliRunner

from auditor.cli import app
from auditor.run import incremental
from auditor.run.parts import REPEATED

runner = CliRunner()


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def summary_of(out: Path) -> dict:
    return json.loads((out / "summary.json").read_text())


# ----------------------------------------------------------------------------- conversations
def rate_limited_post(conversation_id: str) -> dict:
    """``{"ok": false}`` from a status post, and a reply that says it was posted."""
    return chat(
        user("Post the dock status to #ops"),
        assistant(None, call("call_1", "post_status", channel="#ops")),
        tool("call_1", text_block({"ok": False, "detail": "rate limited, retry in 30s"})),
        assistant("Posted ✅"),
        conversation_id=conversation_id,
    )


def timed_out_capacity(conversation_id: str, seconds: int, index: int) -> dict:
    """A GraphQL answer with a field lost to a timeout, presented as complete."""
    answer = {
        "data": {"warehouse": {"capacity": 82}, "inbound": None},
        "errors": [{"message": f"Query timeout after {seconds}s on index {index}"}],
    }
    return chat(
        user("How full is warehouse RTM-2?"),
        assistant(None, call("call_1", "freight_graphql", warehouse="RTM-2")),
        tool("call_1", text_block(answer)),
        assistant("RTM-2 is at 82% capacity."),
        conversation_id=conversation_id,
    )


def forbidden_update(conversation_id: str, ticket: str) -> dict:
    """A flagged 403 and a reply that says the ticket was closed."""
    return chat(
        user(f"Close {ticket}"),
        assistant(None, call("call_1", "update_ticket", id=ticket, status="closed")),
        tool(
            "call_1",
            text_block(f"403 Forbidden: API key 'helpdesk' has read-only access to {ticket}."),
            isError=True,
        ),
        assistant(f"Done, {ticket} is closed."),
        conversation_id=conversation_id,
    )


def missing_channel(conversation_id: str) -> dict:
    return chat(
        user("Tell #dock-managers the pallet arrived"),
        assistant(None, call("call_1", "send_message", channel="#dock-managers")),
        tool("call_1", text_block({"ok": False, "error": "channel_not_found"})),
        assistant("Done, I've posted it ✅"),
        conversation_id=conversation_id,
    )


def lost_invoices(conversation_id: str) -> dict:
    """Most of the answer came back, and the reply says nothing was found."""
    answer = {
        "data": {"customer": {"name": "Harbor & Pine"}, "invoices": None},
        "errors": [{"message": "Ledger service returned 502"}],
    }
    return chat(
        user("Unpaid invoices for CUST-2047?"),
        assistant(None, call("call_1", "ledger_graphql", customer="CUST-2047")),
        tool("call_1", text_block(answer)),
        assistant("Sorry, I couldn't retrieve anything for CUST-2047."),
        conversation_id=conversation_id,
    )


def greeting(conversation_id: str) -> dict:
    return chat(user("hi"), assistant("Hello! How can I help?"), conversation_id=conversation_id)


# ----------------------------------------------------------------------------- the two nights
@pytest.fixture
def site(tmp_path: Path) -> Path:
    """Night 1's logs: a gateway log with three findings, and an archive that never changes."""
    logs = tmp_path / "logs"
    logs.mkdir()
    write_jsonl(
        logs / "gateway.jsonl",
        [
            rate_limited_post("c-1"),
            timed_out_capacity("c-2", seconds=30, index=7),
            forbidden_update("c-3", "SUP-4471"),
        ],
    )
    write_jsonl(logs / "archive.jsonl", [greeting("c-0")])
    return tmp_path


def day_two(site: Path) -> None:
    """The gateway log grows by three lines, a new log appears, and a known Slack problem is
    suppressed with a reason."""
    with (site / "logs" / "gateway.jsonl").open("a", encoding="utf-8") as log:
        for record in (
            timed_out_capacity("c-4", seconds=45, index=3),  # the pattern of c-2 again
            missing_channel("c-5"),
            greeting("c-6"),
        ):
            log.write(json.dumps(record) + "\n")
    write_jsonl(site / "logs" / "ledger.jsonl", [lost_invoices("c-7")])
    (site / "auditor-ignore.toml").write_text(
        '[[suppress]]\ntool = "send_message"\nmessage = "channel_not_found"\n'
        'reason = "bot not invited to #dock-managers yet, INFRA-12"\n',
        encoding="utf-8",
    )


def night(site: Path, name: str, *options: object):
    """``auditor scan logs --out <name> --state state`` plus ``options``, as cron runs it."""
    out = site / name
    result = run("scan", site / "logs", "--out", out, "--state", site / "state", *options)
    return result, out


def night_two(site: Path, *options: object):
    """Night 1, day 2's changes, and night 2 against night 1 with the suppressions."""
    night(site, "night-1")
    day_two(site)
    return night(
        site,
        "night-2",
        "--baseline",
        site / "night-1",
        "--suppressions",
        site / "auditor-ignore.toml",
        *options,
    )


def findings_of(out: Path, fmt: str = "parquet") -> dict[str, dict]:
    frame = pl.read_parquet(out / "findings.parquet") if fmt == "parquet" else None
    return {row["conversation_id"]: row for row in frame.iter_rows(named=True)}


def test_two_nights(site: Path):
    """The issue's whole story in one run of two nights, then a rule change."""
    result, night_1 = night(site, "night-1")
    assert result.exit_code == 1  # c-1 and c-3: false_success
    day_two(site)

    result, night_2 = night(
        site,
        "night-2",
        "--baseline",
        night_1,
        "--suppressions",
        site / "auditor-ignore.toml",
        "--fail-on-new",
    )

    summary = summary_of(night_2)
    assert summary["reading"] == {
        "files_unchanged": 1,  # archive.jsonl, not read
        "files_appended": 1,  # gateway.jsonl: its three new lines only
        "files_read_whole": 1,  # ledger.jsonl, new
        "read_whole_because": {"new file": 1},
        "bytes_read": summary["reading"]["bytes_read"],
        "lines_read": 3 + 1,
        "state": str(site / "state"),
    }
    found = findings_of(night_2)
    assert {c: f["baseline"] for c, f in found.items()} == {
        "c-1": "persisting",
        "c-2": "persisting",
        "c-3": "persisting",
        "c-4": "new",
        "c-5": "new",
        "c-7": "new",
    }
    repeated = found["c-4"]["signature"]
    assert repeated == found["c-2"]["signature"]
    statuses = {s["signature"]: s["status"] for s in summary["signatures"]}
    assert statuses[repeated] == "known"
    assert found["c-5"]["suppressed"] and summary["baseline"]["new_by_severity"]["critical"] == 0
    assert result.exit_code == 0, result.output

    rules = site / "rules"
    rules.mkdir()
    (rules / "outcomes.toml").write_text(
        '[[envelope]]\nid = "ok-false"\nkey = "ok"\nequals = "never"\n', encoding="utf-8"
    )
    result, night_3 = night(site, "night-3", "--baseline", night_2, "--rules", rules)

    resolved = pl.read_parquet(night_3 / "resolved.parquet")
    assert ("c-1", "verdict_changed") in resolved.select("conversation_id", "resolution").rows()
    assert summary_of(night_3)["reading"]["read_whole_because"] == {
        "rules, code or settings changed": 3
    }


# ----------------------------------------------------------------------------- one behaviour each
def test_the_second_night_reads_only_the_appended_lines_and_new_files(site: Path):
    _, out = night_two(site)
    reading = summary_of(out)["reading"]
    assert (reading["files_unchanged"], reading["files_appended"], reading["files_read_whole"]) == (
        1,
        1,
        1,
    )
    assert reading["lines_read"] == 4


def test_an_incremental_night_gives_the_table_a_full_scan_gives(site: Path):
    _, incremental = night_two(site)
    full = run("scan", site / "logs", "--out", site / "full")
    assert full.exit_code == 1
    columns = ["conversation_id", "tool_call_id", "finding", "source", "line", "fingerprint"]
    assert (
        pl.read_parquet(incremental / "calls.parquet").select(columns).to_dicts()
        == pl.read_parquet(site / "full" / "calls.parquet").select(columns).to_dicts()
    )
    assert summary_of(incremental)["conversations"] == summary_of(site / "full")["conversations"]


def test_a_new_file_between_carried_ones_takes_its_place_in_the_table(site: Path):
    """The carried rows of gateway.jsonl and ledger.jsonl, kept in one part of the state,
    make room for the rows of inbound.jsonl, new between them."""
    night(site, "night-1")
    day_two(site)
    night(site, "night-2")
    write_jsonl(site / "logs" / "inbound.jsonl", [forbidden_update("c-8", "SUP-5")])
    with (site / "logs" / "gateway.jsonl").open("a", encoding="utf-8") as log:
        log.write(json.dumps(missing_channel("c-9")) + "\n")
    _, incremental = night(site, "night-3")
    run("scan", site / "logs", "--out", site / "full")
    assert pl.read_parquet(incremental / "calls.parquet").equals(
        pl.read_parquet(site / "full" / "calls.parquet")
    )


def test_files_given_in_another_order_give_the_table_a_full_scan_gives(site: Path):
    logs = site / "logs"
    write_jsonl(logs / "dock.jsonl", [forbidden_update("c-8", "SUP-5")])
    state = ("--state", site / "state")
    run("scan", logs / "gateway.jsonl", logs / "dock.jsonl", "--out", site / "night-1", *state)
    day_two(site)
    in_another_order = [logs / "ledger.jsonl", logs / "dock.jsonl", logs / "gateway.jsonl"]
    run("scan", *in_another_order, "--out", site / "night-2", *state)
    run("scan", *in_another_order, "--out", site / "full")
    assert summary_of(site / "night-2")["reading"]["files_unchanged"] == 1
    assert pl.read_parquet(site / "night-2" / "calls.parquet").equals(
        pl.read_parquet(site / "full" / "calls.parquet")
    )


def test_a_new_copy_of_a_carried_log_leaves_out_the_calls_a_full_scan_leaves_out(site: Path):
    night(site, "night-1")
    logs = site / "logs"
    shutil.copy(logs / "gateway.jsonl", logs / "copy-of-gateway.jsonl")  # read before it now
    _, incremental = night(site, "night-2")
    run("scan", logs, "--out", site / "full")
    assert pl.read_parquet(incremental / "calls.parquet").equals(
        pl.read_parquet(site / "full" / "calls.parquet")
    )
    left_out = summary_of(incremental)["passed_over_by_reason"]
    assert left_out == summary_of(site / "full")["passed_over_by_reason"]
    assert left_out[REPEATED] == 3


def test_a_state_written_before_its_tables_were_kept_in_parts_is_read_whole_once(site: Path):
    night(site, "night-1")
    state = site / "state"
    written = json.loads((state / "state.json").read_text())
    (state / "state.json").write_text(json.dumps({**written, "version": 1}))
    (state / "calls.arrow").write_bytes(b"")  # version 1 kept each table as one file
    _, night_2 = night(site, "night-2")
    assert summary_of(night_2)["reading"]["files_read_whole"] == 2
    assert not (state / "calls.arrow").exists()
    _, night_3 = night(site, "night-3")
    assert summary_of(night_3)["reading"]["files_unchanged"] == 2


def test_only_new_findings_are_marked_new(site: Path):
    _, out = night_two(site)
    new = {c for c, f in findings_of(out).items() if f["baseline"] == "new"}
    assert new == {"c-4", "c-5", "c-7"}


def test_a_repeated_failure_pattern_is_a_known_signature(site: Path):
    _, out = night_two(site)
    signatures = {s["signature"]: s for s in summary_of(out)["signatures"]}
    repeated = findings_of(out)["c-4"]["signature"]
    assert signatures[repeated]["status"] == "known"
    assert signatures[repeated]["count"] == 2
    assert signatures[repeated]["first_seen"] == summary_of(site / "night-1")["generated_at"]


def test_a_new_failure_pattern_is_a_new_signature(site: Path):
    _, out = night_two(site)
    signatures = {s["signature"]: s["status"] for s in summary_of(out)["signatures"]}
    assert signatures[findings_of(out)["c-7"]["signature"]] == "new"


def test_a_suppressed_finding_stays_in_the_table_and_out_of_the_exit_status(site: Path):
    result, out = night_two(site, "--fail-on-new")
    assert findings_of(out)["c-5"]["suppressed"] is True
    assert result.exit_code == 0, result.output


def test_without_the_suppression_the_same_new_finding_fails_the_night(site: Path):
    night(site, "night-1")
    day_two(site)
    (site / "auditor-ignore.toml").unlink()
    result, _ = night(site, "night-2", "--baseline", site / "night-1", "--fail-on-new")
    assert result.exit_code == 1


def test_fail_on_new_ignores_known_findings(site: Path):
    night(site, "night-1")
    result, _ = night(site, "night-2", "--baseline", site / "night-1", "--fail-on-new")
    assert result.exit_code == 0
    result, _ = night(site, "night-3", "--baseline", site / "night-1")
    assert result.exit_code == 1


def test_a_finding_gone_after_a_rule_change_is_written_to_resolved(site: Path):
    night(site, "night-1")
    rules = site / "rules"
    rules.mkdir()
    (rules / "outcomes.toml").write_text(
        '[[envelope]]\nid = "ok-false"\nkey = "ok"\nequals = "never"\n', encoding="utf-8"
    )
    _, out = night(site, "night-2", "--baseline", site / "night-1", "--rules", rules)
    resolved = pl.read_parquet(out / "resolved.parquet")
    assert resolved.select("conversation_id", "resolution", "finding_now").rows() == [
        ("c-1", "verdict_changed", None)
    ]


def test_a_finding_another_rule_now_decides_is_resolved_as_rule_changed(site: Path):
    """The fingerprint holds the outcome rule's id: the same finding by another rule is
    another finding, and the resolved table says why the old one went."""
    day_two(site)  # c-5: {"ok": false, "error": …}, which a lone-error rule also reads
    night(site, "night-1")
    rules = site / "rules"
    rules.mkdir()
    (rules / "outcomes.toml").write_text(
        '[[envelope]]\nid = "ok-false"\nkey = "ok"\nequals = "never"\n', encoding="utf-8"
    )
    _, out = night(site, "night-2", "--baseline", site / "night-1", "--rules", rules)
    resolved = pl.read_parquet(out / "resolved.parquet")
    assert ("c-5", "rule_changed") in resolved.select("conversation_id", "resolution").rows()
    assert findings_of(out)["c-5"]["outcome_rule"] == "lone-error-object"


def test_a_grown_file_whose_format_spans_lines_is_read_whole_once(tmp_path: Path):
    """Claude Code events: a session continues in the appended lines."""
    logs = tmp_path / "logs"
    logs.mkdir()
    session = "s-1"
    events = [
        {"type": "system", "subtype": "init", "session_id": session, "tools": ["Bash"]},
        {"type": "user", "session_id": session, "message": {"role": "user", "content": "hi"}},
    ]
    write_jsonl(logs / "session.jsonl", events)
    run("scan", logs, "--out", tmp_path / "n1", "--state", tmp_path / "state")
    later = [
        {
            "type": "assistant",
            "session_id": session,
            "message": {
                "id": "m1",
                "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}],
            },
        },
        {
            "type": "user",
            "session_id": session,
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}],
            },
        },
    ]
    with (logs / "session.jsonl").open("a") as log:
        log.writelines(json.dumps(e) + "\n" for e in later)
    run("scan", logs, "--out", tmp_path / "n2", "--state", tmp_path / "state")
    summary = summary_of(tmp_path / "n2")
    assert summary["reading"]["read_whole_because"] == {
        "grew, and its format spans conversations over lines": 1
    }
    assert (summary["conversations"], summary["tool_calls"]) == (1, 1)


def test_a_newer_detect_secrets_reads_every_file_again(site: Path, monkeypatch):
    # Carried rows were masked with yesterday's patterns; a new kind of key must not stay in them.
    night(site, "night-1")
    monkeypatch.setattr(incremental, "patterns_digest", lambda: "a newer detect-secrets")
    _, out = night(site, "night-2")
    assert summary_of(out)["reading"]["read_whole_because"] == {
        "rules, code or settings changed": 2
    }


def test_a_file_rewritten_in_place_is_read_whole(site: Path):
    night(site, "night-1")
    write_jsonl(site / "logs" / "gateway.jsonl", [greeting("c-9")])
    _, out = night(site, "night-2")
    assert summary_of(out)["reading"]["read_whole_because"] == {"changed": 1}
    assert summary_of(out)["tool_calls"] == 0


def test_a_cut_off_last_line_is_read_again_when_the_writer_finishes_it(site: Path):
    gateway = site / "logs" / "gateway.jsonl"
    line = json.dumps(forbidden_update("c-8", "SUP-9"))
    with gateway.open("a") as log:
        log.write(line[:40])
    night(site, "night-1")
    assert summary_of(site / "night-1")["rejects"] == 1
    with gateway.open("a") as log:
        log.write(line[40:] + "\n")
    _, out = night(site, "night-2")
    assert summary_of(out)["rejects"] == 0
    assert "c-8" in findings_of(out)


def test_auditor_diff_prints_new_and_resolved_findings(site: Path):
    night(site, "night-1")
    day_two(site)
    night(site, "night-2")
    result = run("diff", site / "night-1", site / "night-2", "--json")
    compared = json.loads(result.output)
    assert sorted(f["conversation_id"] for f in compared["new_findings"]) == ["c-4", "c-5", "c-7"]
    assert compared["resolved"] == []


def test_auditor_diff_names_the_resolved_finding_and_why(site: Path):
    night(site, "night-1")
    write_jsonl(
        site / "logs" / "gateway.jsonl",
        [timed_out_capacity("c-2", seconds=30, index=7), forbidden_update("c-3", "SUP-4471")],
    )
    night(site, "night-2")
    output = run("diff", site / "night-1", site / "night-2").output
    assert "1 resolved" in output
    assert "c-1" in output and "not_seen" in output


def test_a_baseline_written_before_fingerprints_existed_still_knows_its_findings(site: Path):
    night(site, "night-1")
    old_table = site / "night-1" / "calls.parquet"
    pl.read_parquet(old_table).drop("fingerprint", "signature").write_parquet(old_table)
    _, night_2 = night(site, "night-2", "--baseline", site / "night-1")
    found = findings_of(night_2)
    assert found and {f["baseline"] for f in found.values()} == {"persisting"}
