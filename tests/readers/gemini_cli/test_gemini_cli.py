"""Gemini CLI: saved chats (``session-*.json``), whose ``toolCalls[]`` entries hold the call and
its result together, the ``logs.json`` prompt log, and ``-o stream-json`` output with console
lines around it."""

import copy
import json
from pathlib import Path

from auditor import scan
from auditor.model import TextPart, ToolCall, ToolResult
from auditor.readers import detect, read_file
from auditor.readers.gemini_cli import CONSOLE, NO_CONTENT, NOTICE, PROMPT_LOG

HERE = Path(__file__).parent
CHAT = HERE / "session-2026-01-16T11-01-file-ops-37b7abef.json"
PROMPTS = HERE / "logs.json"
STREAM = HERE / "gemini_out.txt"
SESSION = "37b7abef-713d-4522-85f0-8ff15a4e6d17"


def chat_document() -> dict:
    return json.loads(CHAT.read_text(encoding="utf-8"))


def failed_write(status: str = "error") -> dict:
    """The fixture's first write, failed with Gemini CLI's error response."""
    document = chat_document()
    entry = document["messages"][1]["toolCalls"][0]
    entry["status"] = status
    entry["result"][0]["functionResponse"]["response"] = {
        "error": "File path must be within one of the workspace directories: /repo"
    }
    entry["resultDisplay"] = "File path must be within one of the workspace directories: /repo"
    return document


# ----------------------------------------------------------------------------- saved chats
def test_a_saved_chat_splits_each_tool_call_entry_into_call_and_result(calls_of, flags_of):
    assert detect(CHAT).NAME == "gemini_cli"
    result = read_file(CHAT, str(CHAT))
    assert result.rejects == [] and result.passed_over == {}
    assert calls_of(result) == [
        (SESSION, "write_file-1768566819675-5726cf966781a", "write_file"),
        (SESSION, "read_file-1768566842046-c55520512f11c8", "read_file"),
        (SESSION, "write_file-1768566849430-8a94507d2a9798", "write_file"),
    ]
    assert set(flags_of(result).values()) == {False}  # status: "success"
    messages = result.conversations[0].messages
    assert [m.role for m in messages] == [
        "user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant",
    ]  # fmt: skip
    request, call, answer, reply = messages[:4]
    assert request.from_person and request.parts[0].text == "create hello.md file"
    assert call.parts[0].arguments == {"content": "# Hello World", "file_path": "hello.md"}
    (written,) = answer.parts
    assert written.content.startswith("Successfully created and wrote to new file")
    assert written.pointer == "/messages/1/toolCalls/0"
    assert written.content_key == "result/0/functionResponse/response/output"
    assert reply.parts == [TextPart(text="I've created the `hello.md` file for you.", line=1)]
    # Two calls of one model message come back in one tool message, in order.
    assert [p.call_id for p in messages[6].parts] == [
        "read_file-1768566842046-c55520512f11c8",
        "write_file-1768566849430-8a94507d2a9798",
    ]


def test_status_error_is_the_failure_flag_and_the_error_is_the_text(
    tmp_path: Path, write_json, rows_of
):
    path = write_json(tmp_path / "session-x.json", failed_write())
    row = rows_of(path)["write_file-1768566819675-5726cf966781a"]
    assert (row["outcome"], row["outcome_rule"]) == ("tool_error", "flagged-error")
    assert row["evidence"].startswith("File path must be within one of the workspace directories")
    # "I've created the `hello.md` file for you." after a write that failed.
    assert row["finding"] == "false_success"


def test_a_cancelled_call_failed_and_an_unfinished_one_has_no_result(
    tmp_path: Path, write_json, flags_of
):
    document = failed_write("cancelled")
    pending = document["messages"][4]["toolCalls"][1]
    pending["status"] = "executing"
    pending.pop("result")
    result = read_file(write_json(tmp_path / "session-y.json", document), "y")
    assert flags_of(result) == {
        "write_file-1768566819675-5726cf966781a": True,
        "read_file-1768566842046-c55520512f11c8": False,
    }


def test_notices_of_the_cli_are_passed_over_and_counted(tmp_path: Path, write_json):
    document = chat_document()
    notices = [
        {"id": "n1", "timestamp": "2026-01-16T12:35:00Z", "type": kind, "content": "..."}
        for kind in ("info", "warning", "error", "info")
    ]
    document["messages"] += notices
    result = read_file(write_json(tmp_path / "session-z.json", document), "z")
    assert result.rejects == []
    assert result.passed_over == {
        NOTICE.format("info"): 2,
        NOTICE.format("warning"): 1,
        NOTICE.format("error"): 1,
    }


def test_the_prompt_log_is_passed_over_entry_by_entry():
    assert detect(PROMPTS).NAME == "gemini_cli"
    result = read_file(PROMPTS, str(PROMPTS))
    assert result.conversations == [] and result.rejects == []
    assert result.passed_over == {PROMPT_LOG: 3}


# ----------------------------------------------------------------------------- stream-json
def test_stream_json_runs_are_conversations_and_deltas_one_text(calls_of, flags_of):
    assert detect(STREAM).NAME == "gemini_cli"
    result = read_file(STREAM, str(STREAM))
    assert result.rejects == []
    first = "dfa4182a-d2da-4dc7-9080-fa2d39bba588"
    assert [c.id for c in result.conversations] == [first, f"{first}#2"]  # resumed with -r
    assert calls_of(result) == [
        (first, "run_shell_command-1766753316765-e8dbcec74ce13", "run_shell_command"),
        (first, "read_file-1766753320657-07085ff9da3b", "read_file"),
        (f"{first}#2", "read_file-1766753438893-c93d439f40dcc", "read_file"),
    ]
    assert set(flags_of(result).values()) == {False}
    messages = result.conversations[0].messages
    assert [m.role for m in messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    assert messages[0].from_person and messages[0].line == 5
    # Text, then the call it announces, in one assistant message.
    assert [type(p) for p in messages[1].parts] == [TextPart, ToolCall]
    # Three delta chunks, one reply.
    assert messages[-1].parts == [
        TextPart(
            text="The 10 arithmetic problems have been generated and recorded in "
            "`arithmetic_problems.txt`.\n\nDo you need anything else?",
            line=12,
        )
    ]
    # The PowerShell prompts, CLI banners and `--list-sessions` output around the events.
    assert result.passed_over == {
        CONSOLE: 13,
        NO_CONTENT.format("init"): 2,
        NO_CONTENT.format("result"): 2,
    }


def test_a_failed_stream_tool_result_is_flagged_with_its_error_message(tmp_path: Path, write_lines):
    lines = STREAM.read_text(encoding="utf-8").splitlines()[:12]
    failed = {
        "type": "tool_result",
        "timestamp": "2025-12-26T12:48:38.811Z",
        "tool_id": "run_shell_command-1766753316765-e8dbcec74ce13",
        "status": "error",
        "error": {"type": "execution_failed", "message": "Command exited with code 1: python"},
    }
    lines[7] = json.dumps(failed)
    path = write_lines(tmp_path / "run.jsonl", lines)
    rows = {r["tool_call_id"]: r for r in scan([path]).calls.iter_rows(named=True)}
    row = rows["run_shell_command-1766753316765-e8dbcec74ce13"]
    assert (row["outcome"], row["evidence"]) == ("tool_error", "Command exited with code 1: python")
    assert row["evidence_pointer"] == "/status"


def test_a_broken_event_line_is_a_reject_with_its_line(tmp_path: Path, write_lines):
    lines = STREAM.read_text(encoding="utf-8").splitlines()[:12]
    lines[8] = lines[8][:40]
    result = read_file(write_lines(tmp_path / "cut.jsonl", lines), "cut.jsonl")
    (reject,) = result.rejects
    assert reject.line == 9 and reject.reason.startswith("malformed JSON")


# ----------------------------------------------------------------------------- detection
def test_gemini_and_claude_code_streams_are_told_apart(tmp_path: Path, write_lines):
    claude = [
        json.dumps({"type": "system", "subtype": "init", "session_id": "s", "model": "m"}),
        json.dumps({"type": "assistant", "session_id": "s", "message": {"role": "assistant"}}),
        json.dumps({"type": "result", "session_id": "s", "subtype": "success"}),
    ]
    assert detect(write_lines(tmp_path / "claude.jsonl", claude)).NAME == "claude_code"
    gemini = STREAM.read_text(encoding="utf-8").splitlines()[3:16]
    assert detect(write_lines(tmp_path / "gemini.jsonl", gemini)).NAME == "gemini_cli"


def test_a_saved_chat_too_long_for_the_sample_is_still_detected(tmp_path: Path):
    document = chat_document()
    filler = copy.deepcopy(document["messages"][2])
    filler["content"] = "x" * 300_000
    document["messages"].append(filler)
    path = tmp_path / "session-long.json"
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    assert detect(path).NAME == "gemini_cli"
    results = [
        p
        for c in read_file(path, "long").conversations
        for m in c.messages
        for p in m.parts
        if isinstance(p, ToolResult)
    ]
    assert len(results) == 3


# ----------------------------------------------------------------------------- JSON-lines sessions
def test_a_json_lines_session_keeps_the_last_copy_of_each_message(
    tmp_path: Path, write_lines, calls_of, flags_of
):
    document = chat_document()
    header = {key: document[key] for key in ("sessionId", "projectHash", "startTime")}
    first_turn, second_turn = document["messages"][:3], document["messages"][3:]
    running = copy.deepcopy(first_turn[1])  # the write, recorded before it finished
    running["toolCalls"][0]["status"] = "executing"
    running["toolCalls"][0].pop("result")
    undone = {"id": "u-undone", "timestamp": "2026-01-16T12:33:50Z", "type": "user"}
    lines = [header, first_turn[0], running, first_turn[1], first_turn[2]]
    lines += [undone | {"content": "never mind"}, {"$rewindTo": "u-undone"}]
    lines += [*second_turn, {"$set": {"lastUpdated": "2026-01-16T12:34:13Z"}}]
    path = write_lines(tmp_path / "session-x.jsonl", [json.dumps(line) for line in lines])
    assert detect(path).NAME == "gemini_cli"
    result = read_file(path, str(path))
    assert result.rejects == []
    assert [call_id for _, call_id, _ in calls_of(result)] == [
        "write_file-1768566819675-5726cf966781a",
        "read_file-1768566842046-c55520512f11c8",
        "write_file-1768566849430-8a94507d2a9798",
    ]
    assert set(flags_of(result).values()) == {False}  # the finished copy, not the running one
    conversation = result.conversations[0]
    assert conversation.id == SESSION
    texts = [p.text for m in conversation.messages for p in m.parts if isinstance(p, TextPart)]
    assert "never mind" not in texts
    # The write sits where it was first recorded, read from its last copy (line 4).
    request, write, written = conversation.messages[:3]
    assert request.parts[0].text == "create hello.md file"
    assert (write.line, written.parts[0].line) == (4, 4)
    assert result.passed_over == {
        "gemini cli session metadata record (first line, $set, $rewindTo)": 3,
        "gemini cli message record rewritten by a later copy": 1,
        "gemini cli message record rewound ($rewindTo)": 1,
    }
