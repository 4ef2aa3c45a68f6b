"""Readers: format detection, pairing by id, and bad lines reported without losing the rest."""

import gzip
import json
import random
from pathlib import Path

import zstandard
from builders import (
    anthropic,
    assistant,
    call,
    chat,
    tool,
    tool_result,
    tool_use,
    user,
    write_jsonl,
)

from auditor import scan
from auditor.readers import detect


def test_chat_and_anthropic_files_are_detected_without_flags(tmp_path: Path):
    chat_file = write_jsonl(tmp_path / "a.jsonl", [chat(user("hi"), assistant("hello"))])
    anthropic_file = write_jsonl(
        tmp_path / "b.jsonl",
        [
            anthropic(
                {"role": "user", "content": "x"},
                {"role": "assistant", "content": [tool_use("t", "search", q="x")]},
            )
        ],
    )
    assert detect(chat_file).NAME == "openai_chat"
    assert detect(anthropic_file).NAME == "anthropic_messages"


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


def test_claude_code_sessions_join_streamed_lines_and_pass_unknown_events(tmp_path: Path):
    session = "3f6c1d2e"
    events = [
        {"type": "summary", "summary": "VAT fix", "leafUuid": "u0"},
        {
            "type": "user",
            "sessionId": session,
            "uuid": "u1",
            "parentUuid": None,
            "message": {"role": "user", "content": "link BILL-88 to the PR"},
        },
        {
            "type": "assistant",
            "sessionId": session,
            "uuid": "u2",
            "parentUuid": "u1",
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "content": [{"type": "text", "text": "Linking it."}],
            },
        },
        {
            "type": "assistant",
            "sessionId": session,
            "uuid": "u3",
            "parentUuid": "u2",
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "content": [tool_use("toolu_1", "mcp__linear__update_issue", id="BILL-88")],
            },
        },
        {"type": "brand-new-event", "sessionId": session},
        {
            "type": "user",
            "sessionId": session,
            "uuid": "u4",
            "parentUuid": "u3",
            "message": {
                "role": "user",
                "content": [
                    tool_result("toolu_1", "MCP error -32000: Connection closed", is_error=True)
                ],
            },
            "toolUseResult": "Error: MCP error -32000: Connection closed",
        },
        {
            "type": "assistant",
            "sessionId": session,
            "uuid": "u5",
            "parentUuid": "u4",
            "message": {
                "id": "msg_2",
                "role": "assistant",
                "content": [{"type": "text", "text": "Done — BILL-88 links to the PR."}],
            },
        },
    ]
    result = scan([write_jsonl(tmp_path / f"{session}.jsonl", events)])
    assert result.rejects.height == 0
    row = result.calls.row(0, named=True)
    assert (row["conversation_id"], row["outcome"], row["finding"]) == (
        session,
        "transport_error",
        "false_success",
    )
    assert row["line"] == 6


def test_a_labels_file_in_a_corpus_folder_is_passed_over(tmp_path: Path):
    write_jsonl(
        tmp_path / "labels.jsonl",
        [
            {
                "file": "a.jsonl",
                "conversation_id": "c",
                "tool_call_id": "x",
                "outcome": "ok",
                "claim": "none",
            }
        ],
    )
    result = scan([tmp_path])
    assert result.rejects.height == 0


def test_a_file_in_no_known_format_is_reported(tmp_path: Path):
    (tmp_path / "notes.jsonl").write_text('{"hello": "world"}\n', encoding="utf-8")
    result = scan([tmp_path / "notes.jsonl"])
    assert result.rejects.row(0, named=True)["reason"] == "no known transcript format"


def slack_false_success(conversation_id: str) -> dict:
    return chat(
        user("post it"),
        assistant(None, call("c1", "slack_post_message", channel="#ops")),
        tool("c1", json.dumps({"ok": False, "error": "channel_not_found"})),
        assistant("Posted ✅"),
        conversation_id=conversation_id,
    )


def test_a_json_file_holding_one_conversation_is_read(tmp_path: Path):
    path = tmp_path / "one.json"
    path.write_text(json.dumps(slack_false_success("j1"), indent=2), encoding="utf-8")
    row = scan([path]).calls.row(0, named=True)
    assert (row["conversation_id"], row["finding"], row["line"]) == ("j1", "false_success", 1)


def test_a_json_array_of_conversations_gives_each_its_starting_line(tmp_path: Path):
    path = tmp_path / "array.json"
    conversations = [slack_false_success("a"), slack_false_success("b")]
    path.write_text(json.dumps(conversations, indent=2), encoding="utf-8")
    rows = scan([path]).calls.sort("conversation_id")
    assert rows["line"].to_list()[0] == 2
    assert rows["line"].to_list()[1] > 2
    assert rows["evidence_pointer"].to_list()[1].startswith("/1/messages/2/")


def test_an_object_with_a_list_of_conversations_is_read(tmp_path: Path):
    path = tmp_path / "export.json"
    export = {"exported_at": "2024-06-18", "conversations": [slack_false_success("x")]}
    path.write_text(json.dumps(export, indent=2), encoding="utf-8")
    row = scan([path]).calls.row(0, named=True)
    assert row["evidence_pointer"].startswith("/conversations/0/messages/")


def test_gzip_and_zstd_files_are_read_through(tmp_path: Path):
    def line(conversation_id: str) -> bytes:
        return (json.dumps(slack_false_success(conversation_id)) + "\n").encode()

    (tmp_path / "a.jsonl.gz").write_bytes(gzip.compress(line("gz")))
    (tmp_path / "b.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(line("zst")))
    result = scan([tmp_path])
    assert sorted(result.calls["conversation_id"]) == ["gz", "zst"]
    assert result.rejects.height == 0


def test_a_call_already_read_from_another_file_is_counted_once(tmp_path: Path):
    write_jsonl(tmp_path / "day1.jsonl", [slack_false_success("c-1")])
    write_jsonl(tmp_path / "day1-copy.jsonl", [slack_false_success("c-1")])
    result = scan([tmp_path])
    assert result.calls.height == 1
    assert sum(result.summary()["passed_over_by_reason"].values()) == 1


def test_a_truncated_gzip_file_is_reported_not_raised(tmp_path: Path):
    noise = random.Random(7)
    records = [slack_false_success(f"c{i}-{noise.getrandbits(128):032x}") for i in range(2000)]
    packed = gzip.compress("".join(json.dumps(r) + "\n" for r in records).encode())
    (tmp_path / "cut.jsonl.gz").write_bytes(packed[: len(packed) // 2])
    result = scan([tmp_path / "cut.jsonl.gz"])
    assert result.calls.height > 0
    assert "compressed" in result.rejects.row(-1, named=True)["reason"]


def test_licences_and_readmes_are_passed_over_with_a_reason(tmp_path: Path):
    (tmp_path / "LICENSE").write_text("MIT License\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("# logs\n", encoding="utf-8")
    result = scan([tmp_path])
    assert result.rejects.height == 0
    assert result.summary()["skipped_files"] == 2


def test_json_nested_too_deeply_is_a_reject_not_a_crash(tmp_path: Path):
    deep = "[" * 100_000 + "]" * 100_000
    good = json.dumps(slack_false_success("ok-1"))
    (tmp_path / "deep.jsonl").write_text(deep + "\n" + good + "\n", encoding="utf-8")
    result = scan([tmp_path / "deep.jsonl"])
    assert result.calls["conversation_id"].to_list() == ["ok-1"]
    assert result.rejects.row(0, named=True)["line"] == 1


def test_a_one_megabyte_run_on_reply_is_read(tmp_path: Path):
    crafted = "could not " * 50_000 + "a" * 500_000
    record = slack_false_success("long")
    record["messages"][-1]["content"] = crafted
    write_jsonl(tmp_path / "long.jsonl", [record])
    result = scan([tmp_path / "long.jsonl"])
    assert result.calls.row(0, named=True)["claim"] == "failure"


def test_a_reader_that_fails_on_a_file_costs_one_reject_not_the_scan(tmp_path: Path, monkeypatch):
    from auditor.readers import openai_chat

    def broken(path, source):
        raise RuntimeError("reader bug")

    monkeypatch.setattr(openai_chat, "read", broken)
    write_jsonl(tmp_path / "a.jsonl", [slack_false_success("a")])
    result = scan([tmp_path / "a.jsonl"])
    assert "reader failed: RuntimeError" in result.rejects.row(0, named=True)["reason"]
