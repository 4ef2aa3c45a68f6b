"""OpenAI Chat Completions conversations: JSONL lines and JSON documents, pairing by id, bad lines
reported without losing the rest, the time and person of a record."""

import json
from datetime import UTC, datetime
from pathlib import Path

from builders import assistant, audit, call, chat, tool, user, write_jsonl

from auditor import scan
from auditor.readers import detect, read_file

HERE = Path(__file__).parent


def test_the_gateway_sample_gives_its_conversations_calls_and_flags(calls_of, flags_of):
    path = HERE / "chat_gateway.jsonl"
    assert detect(path).NAME == "openai_chat"
    result = read_file(path, str(path))
    assert result.rejects == []
    assert [(c.id, c.line) for c in result.conversations] == [
        ("gw-0001", 1),
        ("gw-0002", 2),
        ("gw-0003", 3),
    ]
    assert calls_of(result) == [
        ("gw-0001", "call_S3r0OgtSl1U5q3Rn9TXf3bYL", "jira_transition_issue"),
        ("gw-0002", "call_n5zZOLzgWT4Bp15jlgTQ1G8o", "linear_graphql"),
        ("gw-0003", "call_RzVeGOVdlPPaRyLB5QUqPh6f", "github_graphql"),
    ]
    assert flags_of(result) == {
        "call_S3r0OgtSl1U5q3Rn9TXf3bYL": True,
        "call_n5zZOLzgWT4Bp15jlgTQ1G8o": None,
        "call_RzVeGOVdlPPaRyLB5QUqPh6f": None,
    }


def test_results_pair_with_calls_by_id_not_by_position(tmp_path: Path):
    record = chat(
        user("two things"),
        assistant(None, call("first", "lookup", q=1), call("second", "lookup", q=2)),
        tool("second", json.dumps({"ok": False, "error": "boom"})),
        tool("first", "fine"),
        assistant("First is fine; the second one failed."),
    )
    result = scan([write_jsonl(tmp_path / "c.jsonl", [record])])
    rows = {r["tool_call_id"]: r for r in result.calls.iter_rows(named=True)}
    assert rows["first"]["outcome"] == "ok"
    assert rows["second"]["outcome"] == "error_payload"


def test_a_malformed_line_is_reported_and_every_other_line_is_audited(tmp_path: Path):
    good = chat(
        user("hi"), assistant(None, call("c1", "ping")), tool("c1", "pong"), assistant("pong")
    )
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        json.dumps(good | {"conversation_id": "one"})
        + "\n"
        + '{"conversation_id": "broken", "messages": [\n'
        + json.dumps(good | {"conversation_id": "three"})
        + "\n",
        encoding="utf-8",
    )
    result = scan([path])
    assert sorted(result.calls["conversation_id"].to_list()) == ["one", "three"]
    reject = result.rejects.row(0, named=True)
    assert (reject["source"], reject["line"]) == (str(path), 2)
    assert "JSON" in reject["reason"]
    assert result.summary()["rejects"] == 1


def test_the_line_column_points_at_the_line_holding_the_result(tmp_path: Path):
    records = [
        chat(user("a"), assistant("b")),
        chat(user("x"), assistant(None, call("c", "ping")), tool("c", "pong"), assistant("ok")),
    ]
    result = scan([write_jsonl(tmp_path / "d.jsonl", records)])
    assert result.calls.row(0, named=True)["line"] == 2


def test_conversation_id_falls_back_to_file_and_line(tmp_path: Path):
    record = {"messages": [user("x"), assistant(None, call("c", "ping")), tool("c", "pong")]}
    result = scan([write_jsonl(tmp_path / "e.jsonl", [record])])
    assert result.calls.row(0, named=True)["conversation_id"] == "e.jsonl:1"


# ----------------------------------------------------------------------------- JSON documents
def test_a_json_file_holding_one_conversation_is_read(tmp_path: Path, slack_false_success):
    path = tmp_path / "one.json"
    path.write_text(json.dumps(slack_false_success("j1"), indent=2), encoding="utf-8")
    row = scan([path]).calls.row(0, named=True)
    assert (row["conversation_id"], row["finding"], row["line"]) == ("j1", "false_success", 1)


def test_a_json_array_of_conversations_gives_each_its_starting_line(
    tmp_path: Path, slack_false_success
):
    path = tmp_path / "array.json"
    conversations = [slack_false_success("a"), slack_false_success("b")]
    path.write_text(json.dumps(conversations, indent=2), encoding="utf-8")
    rows = scan([path]).calls.sort("conversation_id")
    assert rows["line"].to_list()[0] == 2
    assert rows["line"].to_list()[1] > 2
    assert rows["evidence_pointer"].to_list()[1].startswith("/1/messages/2/")


def test_an_object_with_a_list_of_conversations_is_read(tmp_path: Path, slack_false_success):
    path = tmp_path / "export.json"
    export = {"exported_at": "2024-06-18", "conversations": [slack_false_success("x")]}
    path.write_text(json.dumps(export, indent=2), encoding="utf-8")
    row = scan([path]).calls.row(0, named=True)
    assert row["evidence_pointer"].startswith("/conversations/0/messages/")


# ----------------------------------------------------------------------------- time and person
def a_call(**top) -> dict:
    record = chat(
        user("Close OPS-1"),
        assistant(None, call("c1", "close_ticket", key="OPS-1")),
        tool("c1", "closed"),
        assistant("OPS-1 is closed."),
    )
    return {**record, **top}


def test_a_chat_record_dates_its_calls_and_names_its_person():
    row = audit(a_call(created_at="2026-03-02T09:14:05Z", user="u-1042"))["c1"]
    assert row["timestamp"] == datetime(2026, 3, 2, 9, 14, 5, tzinfo=UTC)
    assert row["user_id"] == "u-1042"


def test_a_record_without_a_time_or_person_leaves_both_empty():
    row = audit(a_call())["c1"]
    assert row["timestamp"] is None and row["user_id"] is None


def test_with_emails_redacted_an_email_person_id_becomes_a_stable_hash(tmp_path: Path):
    path = tmp_path / "chat.jsonl"
    record = a_call(user="jana.novak@kestrel.example")
    path.write_text(json.dumps(record) + "\n" + json.dumps({**record, "conversation_id": "c-2"}))
    calls = scan([path], redact_emails=True).calls
    assert calls["user_id"].n_unique() == 1
    assert calls["user_id"][0].startswith("sha256:")
