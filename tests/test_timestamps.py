"""The `timestamp` and `user_id` columns, from the formats that record them."""

import json
from datetime import UTC, datetime
from pathlib import Path

from builders import anthropic as anthropic_record
from builders import assistant, audit, audit_anthropic, call, chat, tool, tool_result, tool_use
from builders import user as person
from test_reader_benchmarks import cancellation, results, write_json
from test_reader_benchmarks import rows_of as benchmark_rows
from test_reader_claude_code import answers, asks, calls, said, step, stream, trajectory
from test_reader_claude_code import rows as claude_rows
from test_reader_protocols import (
    T0,
    batch,
    desktop,
    rows_of,
    rpc_call,
    rpc_result,
    tool_span,
    write_lines,
)

from auditor.readers.stamps import moment
from auditor.scan import scan


def a_call(**top) -> dict:
    record = chat(
        person("Close OPS-1"),
        assistant(None, call("c1", "close_ticket", key="OPS-1")),
        tool("c1", "closed"),
        assistant("OPS-1 is closed."),
    )
    return {**record, **top}


def test_a_chat_record_dates_its_calls_and_names_its_person():
    row = audit(a_call(created_at="2026-03-02T09:14:05Z", user="u-1042"))["c1"]
    assert row["timestamp"] == datetime(2026, 3, 2, 9, 14, 5, tzinfo=UTC)
    assert row["user_id"] == "u-1042"


def test_unix_seconds_and_milliseconds_are_times_too():
    assert moment(1772442845) == moment(1772442845000) == datetime(2026, 3, 2, 9, 14, 5, tzinfo=UTC)


def test_a_record_without_a_time_or_person_leaves_both_empty():
    row = audit(a_call())["c1"]
    assert row["timestamp"] is None and row["user_id"] is None


def test_anthropic_metadata_names_the_person():
    record = anthropic_record(
        {"role": "user", "content": "Close OPS-1"},
        {"role": "assistant", "content": [tool_use("t1", "close_ticket", key="OPS-1")]},
        {"role": "user", "content": [tool_result("t1", "closed")]},
        {"role": "assistant", "content": [{"type": "text", "text": "Closed."}]},
    )
    record["metadata"] = {"user_id": "u-7"}
    assert audit_anthropic(record)["t1"]["user_id"] == "u-7"


def test_an_otel_tool_span_is_dated_by_its_start(tmp_path: Path):
    path = tmp_path / "spans.jsonl"
    path.write_text(json.dumps(batch(tool_span("s1", "close_ticket", "call-1"))) + "\n")
    row = rows_of(path)["call-1"]
    assert row["timestamp"] == moment(T0 + 100 * 1_000_000)


def test_a_time_that_is_no_time_is_none():
    assert moment("yesterday") is None and moment(True) is None


def test_a_claude_code_event_dates_the_call_it_carries(tmp_path: Path):
    events = stream(
        asks("List the files", timestamp="2026-02-02T06:01:20Z"),
        calls("toolu_1", "Bash", input={"command": "ls"}, timestamp="2026-02-02T06:01:26.443Z"),
        answers("toolu_1", "Cargo.toml", timestamp="2026-02-02T06:01:27Z"),
        said("One file.", message_id="msg_2"),
    )
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(event) + "\n" for event in events))
    row = claude_rows(path)["toolu_1"]
    assert row["timestamp"] == datetime(2026, 2, 2, 6, 1, 26, 443000, tzinfo=UTC)


def test_a_runner_step_dates_the_call_it_carries(tmp_path: Path):
    path = trajectory(
        tmp_path / "run.json",
        step(1, "tool_call", (2, 100), tool="Bash", tool_id="toolu_1", input={"command": "x"}),
        step(2, "tool_result", tool_id="toolu_1", success=True, output="ok"),
        step(3, "assistant", (3, 200), content="Done."),
    )
    row = claude_rows(path)["toolu_1"]
    assert row["timestamp"] == datetime(2025, 12, 20, 2, 50, 3, tzinfo=UTC)


def test_a_claude_desktop_log_line_dates_the_call_it_carries(tmp_path: Path):
    path = write_lines(
        tmp_path / "mcp-server-tickets.log",
        [
            desktop("tickets", "client", rpc_call(7, "close_ticket", key="OPS-1")),
            desktop("tickets", "server", rpc_result(7, "closed")),
        ],
    )
    assert rows_of(path)["7"]["timestamp"] == datetime(2026, 3, 1, 9, 41, 2, 330000, tzinfo=UTC)


def test_with_emails_redacted_an_email_person_id_becomes_a_stable_hash(tmp_path: Path):
    path = tmp_path / "chat.jsonl"
    record = a_call(user="jana.novak@kestrel.example")
    path.write_text(json.dumps(record) + "\n" + json.dumps({**record, "conversation_id": "c-2"}))
    calls = scan([path], redact_emails=True).calls
    assert calls["user_id"].n_unique() == 1
    assert calls["user_id"][0].startswith("sha256:")


def test_a_tau2_simulation_dates_its_calls_by_the_assistant_message(tmp_path: Path):
    simulation = cancellation()
    simulation["messages"][2]["timestamp"] = "2026-03-20T18:42:31.339303"
    path = write_json(tmp_path / "results.json", results(simulation))
    row = benchmark_rows(scan([path]))["call_1"]
    assert row["timestamp"] == datetime(2026, 3, 20, 18, 42, 31, 339303, tzinfo=UTC)
