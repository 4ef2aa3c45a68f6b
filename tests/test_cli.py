"""The command line: outputs, formats, exit statuses, and the end-to-end scan of the samples."""

import json
import sys
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.output.columns import SPEC_COLUMNS

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_transcripts"
runner = CliRunner()

EXPECTED_FINDINGS = {
    ("chat-01-forbidden", "update_ticket", "false_success"),
    ("anth-01-forbidden", "update_ticket", "false_success"),
    ("chat-02-graphql-error", "github_graphql", "false_success"),
    ("anth-02-graphql-error", "linear_graphql", "false_success"),
    ("chat-04-partial-unlabelled", "freight_graphql", "unlabelled_partial"),
    ("anth-04-partial-unlabelled", "freight_graphql", "unlabelled_partial"),
    ("chat-05-partial-discarded", "freight_graphql", "discarded_partial"),
    ("anth-05-partial-discarded", "query", "discarded_partial"),
    ("chat-06-identity", "get_me", "identity_assumed"),
    ("anth-06-identity", "viewer", "identity_assumed"),
    ("chat-08-slack", "slack_post_message", "false_success"),
    ("anth-08-slack", "send_message", "false_success"),
}


def run(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def test_scanning_the_samples_finds_exactly_the_seeded_incidents(tmp_path: Path):
    result = run("scan", SAMPLES, "--out", tmp_path)
    assert result.exit_code == 1, result.output
    findings = pl.read_parquet(tmp_path / "findings.parquet")
    got = set(findings.select("conversation_id", "tool_name", "finding").iter_rows())
    assert got == EXPECTED_FINDINGS


def test_the_scan_writes_the_calls_table_with_the_spec_columns(tmp_path: Path):
    run("scan", SAMPLES, "--out", tmp_path)
    calls = pl.read_parquet(tmp_path / "calls.parquet")
    assert calls.columns[: len(SPEC_COLUMNS)] == SPEC_COLUMNS
    assert calls.height == 22
    recovered = calls.filter(pl.col("recovered"))
    assert sorted(recovered["conversation_id"]) == ["anth-07-retry", "chat-07-retry"]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["tool_calls"] == 22
    assert summary["findings"]["false_success"] == 6
    assert summary["severity"] == {"critical": 8, "warning": 4}


def test_the_terminal_summary_shows_findings_with_evidence_and_the_reply(tmp_path: Path):
    output = run("scan", SAMPLES, "--out", tmp_path).output
    assert "chat-01-forbidden" in output
    assert "403 Forbidden" in output
    assert "I've updated the ticket" in output


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_other_output_formats(tmp_path: Path, fmt: str):
    run("scan", SAMPLES, "--out", tmp_path, "--format", fmt)
    assert (tmp_path / f"calls.{fmt}").exists()
    assert (tmp_path / f"findings.{fmt}").exists()
    reader = pl.read_ndjson if fmt == "jsonl" else pl.read_csv
    assert reader(tmp_path / f"findings.{fmt}").height == len(EXPECTED_FINDINGS)


@pytest.mark.parametrize(("fail_on", "status"), [("critical", 1), ("warning", 1), ("never", 0)])
def test_fail_on_sets_the_exit_status(tmp_path: Path, fail_on: str, status: int):
    assert run("scan", SAMPLES, "--out", tmp_path, "--fail-on", fail_on).exit_code == status


def test_only_warnings_fail_only_at_the_warning_threshold(tmp_path: Path):
    partial_only = tmp_path / "in.jsonl"
    lines = (SAMPLES / "chat.jsonl").read_text().splitlines()
    partial_only.write_text("\n".join(x for x in lines if "partial" in x) + "\n")
    assert run("scan", partial_only, "--out", tmp_path / "o1").exit_code == 0
    assert (
        run("scan", partial_only, "--out", tmp_path / "o2", "--fail-on", "warning").exit_code == 1
    )


def test_unreadable_input_without_findings_exits_3(tmp_path: Path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"messages": [\n')
    result = run("scan", bad, "--out", tmp_path / "out")
    assert result.exit_code == 3
    rejects = pl.read_ndjson(tmp_path / "out" / "rejects.jsonl")
    assert rejects.row(0, named=True)["line"] == 1


def test_a_wrong_rule_file_stops_the_scan_with_status_2(tmp_path: Path):
    (tmp_path / "outcomes.toml").write_text("[identity]\ntools = 3\n")
    result = run("scan", SAMPLES, "--out", tmp_path / "out", "--rules", tmp_path)
    assert result.exit_code == 2
    assert "outcomes.toml" in result.output
    assert not (tmp_path / "out").exists()


def test_eval_prints_scores_as_json():
    result = run("eval", SAMPLES, "--json")
    scores = json.loads(result.output)
    assert scores["findings"]["all"]["precision"] == 1.0
    assert scores["outcome_accuracy"] == 1.0


def test_rules_lists_the_packs():
    output = run("rules").output
    assert "English" in output and "outcomes.toml" in output


def test_formats_lists_the_readers():
    output = run("formats").output
    assert "openai_chat" in output and "anthropic_messages" in output


def leaky_transcript(tmp_path: Path) -> Path:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    record = {
        "conversation_id": "leak",
        "messages": [
            {"role": "user", "content": "deploy it"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "deploy", "arguments": "{}"},
                    }
                ],
            },
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": f"Error: 401 for Authorization: Bearer {token} (ops@acme.io)",
            },
            {"role": "assistant", "content": f"Deployed with {token}, ping ops@acme.io ✅"},
        ],
    }
    path = tmp_path / "leak.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path


def test_tokens_are_redacted_in_every_output_by_default(tmp_path: Path):
    result = run("scan", leaky_transcript(tmp_path), "--out", tmp_path / "out")
    written = "".join(p.read_text(errors="replace") for p in (tmp_path / "out").glob("*.jsonl"))
    calls = pl.read_parquet(tmp_path / "out" / "calls.parquet")
    everything = result.output + written + calls.write_csv()
    assert "ghp_a1B2" not in everything
    assert "[redacted]" in calls["evidence"][0]
    assert "ops@acme.io" in calls["claim_sentence"][0]


def test_emails_are_redacted_when_asked(tmp_path: Path):
    run("scan", leaky_transcript(tmp_path), "--out", tmp_path / "out", "--redact-emails")
    calls = pl.read_parquet(tmp_path / "out" / "calls.parquet")
    assert "ops@acme.io" not in calls["claim_sentence"][0] + calls["evidence"][0]


def test_no_redact_keeps_excerpts_as_they_were(tmp_path: Path):
    run("scan", leaky_transcript(tmp_path), "--out", tmp_path / "out", "--no-redact")
    calls = pl.read_parquet(tmp_path / "out" / "calls.parquet")
    assert "ghp_a1B2" in calls["evidence"][0]


def test_escape_sequences_and_markup_in_transcripts_are_shown_as_text(tmp_path: Path):
    hostile = (
        "Done \x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\ \x1b[31mred\x1b[0m [bold]loud[/bold] ✅"
    )
    record = {
        "conversation_id": "[blink]c-1[/blink]",
        "messages": [
            {"role": "user", "content": "post it"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "post[red]x[/red]", "arguments": "{}"},
                    }
                ],
            },
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": '{"ok": false, "error": "\\u001b[2J"}',
            },
            {"role": "assistant", "content": hostile},
        ],
    }
    path = tmp_path / "hostile.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    output = run("scan", path, "--out", tmp_path / "out").output
    assert "\x1b" not in output
    assert "[bold]loud[/bold]" in output
    assert "[blink]c-1[/blink]" in output


def test_several_processes_give_the_same_table_as_one(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(sys.modules["auditor.run.local"], "PARALLEL_MIN_BYTES", 0)
    run("scan", SAMPLES, "--out", tmp_path / "one", "--jobs", "1")
    run("scan", SAMPLES, "--out", tmp_path / "two", "--jobs", "2")
    one = pl.read_parquet(tmp_path / "one" / "calls.parquet")
    two = pl.read_parquet(tmp_path / "two" / "calls.parquet")
    assert one.equals(two)


def test_the_benchmark_corpus_is_readable_and_has_failing_calls(tmp_path: Path):
    from auditor.bench import generate

    written, conversations = generate(tmp_path, 0.2)
    assert written > 0 and conversations > 0
    result = run("scan", tmp_path, "--out", tmp_path / "out", "--fail-on", "never")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert result.exit_code == 0
    assert summary["conversations"] == conversations
    failing = summary["tool_calls"] - summary["outcomes"]["ok"]
    assert 0.03 < failing / summary["tool_calls"] < 0.3


def test_the_benchmark_corpus_writes_one_format_a_file_and_every_call_is_in_the_table(
    tmp_path: Path,
):
    from auditor.bench import MANIFEST, generate
    from auditor.readers import detect

    generate(tmp_path, 0.2)
    formats = {detect(path).NAME for path in tmp_path.glob("*.jsonl")}
    assert formats == {"openai_chat", "anthropic_messages"}
    for path in tmp_path.glob("*.jsonl"):
        lines = path.read_text().splitlines()
        assert all(("tool_use" in line) == ('"tool_use"' in lines[0]) for line in lines)
    generated = json.loads((tmp_path / MANIFEST).read_text())
    run("scan", tmp_path, "--out", tmp_path / "out", "--fail-on", "never")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["tool_calls"] == generated["calls"] > 0


def test_bench_on_a_users_own_logs_says_where_the_time_goes_and_per_reader(tmp_path: Path):
    result = run("bench", SAMPLES, "--dir", tmp_path / "unused")
    assert result.exit_code == 0, result.output
    for stage in ("read", "outcomes", "claims", "write"):
        assert stage in result.output
    assert "openai_chat" in result.output and "anthropic_messages" in result.output
    assert not (tmp_path / "unused").exists()  # no corpus generated for a user's own logs


def test_a_rerun_over_the_same_input_writes_the_same_table(tmp_path: Path):
    run("scan", SAMPLES, "--out", tmp_path / "first")
    run("scan", SAMPLES, "--out", tmp_path / "second")
    first = pl.read_parquet(tmp_path / "first" / "calls.parquet")
    second = pl.read_parquet(tmp_path / "second" / "calls.parquet")
    assert first.height > 0 and first.equals(second)


def test_a_write_that_fails_leaves_the_previous_table_whole(tmp_path: Path, monkeypatch):
    from auditor.output import tables as table

    run("scan", SAMPLES, "--out", tmp_path)
    before = (tmp_path / "calls.parquet").read_bytes()

    def killed(*_args, **_kwargs):
        raise KeyboardInterrupt  # the run is stopped while it writes

    monkeypatch.setattr(pl.LazyFrame, "sink_parquet", killed)
    with pytest.raises(KeyboardInterrupt):
        table.write_frame(pl.LazyFrame({"a": [1]}), tmp_path / "calls.parquet", "parquet")
    assert (tmp_path / "calls.parquet").read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_the_dask_engine_without_its_extra_is_a_usage_error(tmp_path: Path, monkeypatch):
    from auditor.run import inputs

    monkeypatch.setattr(inputs, "available", lambda: False)
    result = run("scan", SAMPLES, "--out", tmp_path, "--engine", "dask")
    assert result.exit_code == 2
    assert "transcript-auditor[dask]" in result.output


def test_claims_are_read_where_a_finding_can_follow_unless_claims_all(tmp_path: Path):
    run("scan", SAMPLES, "--out", tmp_path / "default", "--quiet")
    run("scan", SAMPLES, "--out", tmp_path / "all", "--quiet", "--claims", "all")
    default = pl.read_parquet(tmp_path / "default" / "calls.parquet")
    every = pl.read_parquet(tmp_path / "all" / "calls.parquet")
    worked = pl.col("outcome") == "ok"
    assert default.filter(worked)["claim"].null_count() == default.filter(worked).height
    assert every["claim"].null_count() == 0
    summary = json.loads((tmp_path / "default" / "summary.json").read_text())
    assert summary["claims_read"] == default["claim"].is_not_null().sum()
    assert default["finding"].to_list() == every["finding"].to_list()
