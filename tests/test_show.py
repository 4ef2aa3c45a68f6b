"""`auditor show`: a conversation as a timeline, re-read from its source file."""

from pathlib import Path

import polars as pl
import pytest
from builders import assistant, call, chat, text_block, tool, user, write_jsonl
from typer.testing import CliRunner

from auditor.cli import app
from auditor.output.tables import read_calls
from auditor.views.timeline import build, find_rows, to_html, to_markdown

runner = CliRunner()
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"


def forbidden_update(conversation_id: str = "c-403") -> dict:
    return chat(
        user("Move OPS-318 to In Review, please."),
        assistant(None, call("call_1", "update_ticket", key="OPS-318", status="In Review")),
        tool("call_1", text_block("403 Forbidden: relay-bot lacks Edit Issues."), isError=True),
        assistant("I've updated the ticket. OPS-318 is now In Review."),
        conversation_id=conversation_id,
    )


def scanned(tmp_path: Path, *records: dict) -> Path:
    write_jsonl(tmp_path / "logs.jsonl", list(records))
    out = tmp_path / "out"
    runner.invoke(app, ["scan", str(tmp_path / "logs.jsonl"), "--out", str(out), "-q"])
    return out


def show(out: Path, key: str, *options: str):
    return runner.invoke(app, ["show", key, "--out", str(out), *options], env={"COLUMNS": "200"})


def test_show_gives_the_request_the_call_its_result_and_the_reply(tmp_path: Path):
    result = show(scanned(tmp_path, forbidden_update()), "c-403")
    assert result.exit_code == 0, result.output
    lines = result.output
    assert lines.index("Move OPS-318") < lines.index("update_ticket") < lines.index("403 Forbidden")
    assert lines.index("403 Forbidden") < lines.index("I've updated the ticket")
    assert '"status":"In Review"' in lines  # the call's arguments
    assert "false_success" in lines and "write" in lines


def test_a_fingerprint_shows_that_findings_turn_marked(tmp_path: Path):
    out = scanned(tmp_path, forbidden_update())
    calls = read_calls(out)
    if "fingerprint" not in calls.columns:
        pytest.skip("the table has no fingerprint column")
    fingerprint = calls.filter(pl.col("finding").is_not_null())["fingerprint"][0]
    result = show(out, fingerprint)
    assert result.exit_code == 0, result.output
    assert "▶ update_ticket" in result.output


def test_the_evidence_in_the_result_is_marked(tmp_path: Path):
    record = chat(
        user("Who has DISP-77?"),
        assistant(None, call("g1", "linear_graphql", query="query { issue(id: 7) { title } }")),
        tool("g1", text_block({"data": None, "errors": [{"message": "Entity not found"}]})),
        assistant("DISP-77 is assigned to Tomás."),
    )
    rows, _ = find_rows(read_calls(scanned(tmp_path, record)), "c-1")
    result = next(step for step in build(rows).steps if step.kind == "result")
    start, end = result.marks[0]
    assert result.text[start:end] == "Entity not found"


def test_the_sentence_that_made_the_claim_is_marked(tmp_path: Path):
    rows, _ = find_rows(read_calls(scanned(tmp_path, forbidden_update())), "c-403")
    reply = [step for step in build(rows).steps if step.kind == "assistant"][-1]
    start, end = reply.marks[0]
    assert reply.text[start:end] == rows["claim_sentence"][0] == "I've updated the ticket."


def test_secrets_in_the_transcript_are_redacted(tmp_path: Path):
    record = chat(
        user(f"Use my token {TOKEN} to open the PR."),
        assistant(None, call("c1", "create_pr", token=TOKEN)),
        tool("c1", text_block(f"401 Unauthorized: Bearer {TOKEN} expired"), isError=True),
        assistant("The PR is open."),
    )
    result = show(scanned(tmp_path, record), "c-1")
    assert TOKEN not in result.output
    assert "[redacted]" in result.output


def test_markup_and_escape_sequences_are_shown_as_text(tmp_path: Path):
    record = chat(
        user("[bold red]urgent[/bold red] \x1b[31mred\x1b[0m please"),
        assistant(None, call("c1", "send_message", text="[link=http://evil]x[/link]")),
        tool("c1", text_block({"ok": False, "error": "channel_not_found"})),
        assistant("Posted ✅"),
    )
    result = show(scanned(tmp_path, record), "c-1")
    assert "[bold red]urgent[/bold red]" in result.output
    assert "[link=http://evil]" in result.output
    assert "\x1b[31m" not in result.output


def test_when_the_source_is_gone_the_table_alone_is_shown(tmp_path: Path):
    out = scanned(tmp_path, forbidden_update())
    (tmp_path / "logs.jsonl").unlink()
    result = show(out, "c-403")
    assert result.exit_code == 0, result.output
    assert "source not re-read" in result.output
    assert "403 Forbidden" in result.output


def test_an_unknown_key_is_a_usage_error(tmp_path: Path):
    result = show(scanned(tmp_path, forbidden_update()), "no-such-thing")
    assert result.exit_code == 2


def test_the_same_timeline_draws_as_escaped_html_and_fenced_markdown(tmp_path: Path):
    record = chat(
        user("<script>alert(1)</script> ``` end"),
        assistant(None, call("c1", "update_ticket", key="A-1")),
        tool("c1", text_block("Error: <b>nope</b>"), isError=True),
        assistant("Done."),
    )
    rows, _ = find_rows(read_calls(scanned(tmp_path, record)), "c-1")
    timeline = build(rows)
    assert "<script>" not in to_html(timeline)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in to_html(timeline)
    assert "````text" in to_markdown(timeline)  # a fence longer than the ``` inside


def test_a_finding_in_a_long_turn_is_shown_with_the_steps_around_it(tmp_path: Path):
    probes = []
    for n in range(12):
        probes += [assistant(None, call(f"ls{n}", "list_files", page=n)), tool(f"ls{n}", "a.txt")]
    record = chat(
        user("Tidy the repo and close OPS-318."),
        *probes,
        assistant(None, call("call_1", "update_ticket", key="OPS-318")),
        tool("call_1", text_block("403 Forbidden"), isError=True),
        assistant("All tidy, and OPS-318 is closed."),
    )
    rows, _ = find_rows(read_calls(scanned(tmp_path, record)), "c-1")
    steps = build(rows, focus="call_1").steps
    assert steps[0].kind == "request"
    assert any(step.kind == "gap" and "left out" in step.text for step in steps)
    assert len(steps) < 12
    assert len(build(rows, focus="call_1", whole=True).steps) > 24
