"""The `timestamp` and `user_id` columns, from the formats that record them."""

import json
from datetime import UTC, datetime
from pathlib import Path

from builders import anthropic as anthropic_record
from builders import assistant, audit, audit_anthropic, call, chat, tool, tool_result, tool_use
from builders import user as said
from test_reader_protocols import T0, batch, rows_of, tool_span

from auditor.readers.stamps import moment


def a_call(**top) -> dict:
    record = chat(
        said("Close OPS-1"),
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
