"""Log lines that carry Claude Code stream-json events: pretty-printed, one-line, cut in pieces."""

import json
from pathlib import Path
from typing import Any

from builders import tool_result, tool_use, write_jsonl

from auditor import scan
from auditor.readers import detect, read_file

HERE = Path(__file__).parent
SESSION = "6198712a"


def prefixed(text: str, second: int = 0) -> str:
    return f"[2025-10-25T06:30:{second:02d}.088Z] [INFO] {text}"


def pretty(event: dict) -> list[str]:
    """An event logged as ``[ts] [INFO] {`` and its pretty-printed lines."""
    first, *rest = json.dumps(event, indent=2).splitlines()
    return [prefixed(first), *rest]


def compact(event: dict) -> str:
    return prefixed(json.dumps(event))


def init() -> dict:
    return {"type": "system", "subtype": "init", "session_id": SESSION, "tools": ["Bash"]}


def call(use_id: str = "toolu_1", message_id: str = "msg_1", **arguments: Any) -> dict:
    content = [tool_use(use_id, "Bash", **(arguments or {"command": "npm test"}))]
    return {
        "type": "assistant",
        "message": {"id": message_id, "role": "assistant", "content": content},
        "parent_tool_use_id": None,
        "session_id": SESSION,
    }


def result(content: Any, use_id: str = "toolu_1", is_error: bool | None = None) -> dict:
    return {
        "type": "user",
        "message": {"role": "user", "content": [tool_result(use_id, content, is_error)]},
        "parent_tool_use_id": None,
        "session_id": SESSION,
    }


def reply(text: str, message_id: str = "msg_2") -> dict:
    content = [{"type": "text", "text": text}]
    return {
        "type": "assistant",
        "message": {"id": message_id, "role": "assistant", "content": content},
        "parent_tool_use_id": None,
        "session_id": SESSION,
    }


def write_log(path: Path, *lines: str | list[str]) -> Path:
    flat: list[str] = []
    for line in lines:
        flat.extend(line if isinstance(line, list) else [line])
    path.write_text("\n".join(flat) + "\n", encoding="utf-8")
    return path


def test_the_hive_mind_log_gives_its_session_call_and_result(calls_of, flags_of):
    path = HERE / "pr-4-ci-log-issue__session-4-log.txt"
    assert detect(path).NAME == "log_lines"
    result = read_file(path, str(path))
    assert result.rejects == []
    assert result.passed_over == {
        "log text without a transcript event": 10,
        "claude code event without conversation content: system": 1,
    }
    session = "2fac7ddd-70a0-4be9-87fa-640d3f33eaf2"
    assert calls_of(result) == [(session, "toolu_01Pf8ZJuZZe6xbYQvzpP57tm", "Bash")]
    assert flags_of(result) == {"toolu_01Pf8ZJuZZe6xbYQvzpP57tm": False}
    lines = path.read_text(encoding="utf-8").splitlines()
    answer = result.conversations[0].messages[-1].parts[0]
    assert lines[answer.line - 1].endswith("[INFO] {")
    assert lines[answer.line].strip() == '"type": "user",'


def test_pretty_printed_events_are_read_with_the_line_their_json_starts_on(tmp_path: Path):
    log = write_log(
        tmp_path / "solve.log",
        prefixed("🚀 solve v0.24.47"),
        pretty(init()),
        pretty(call()),
        pretty(result("Exit code 1\nnpm ERR! Test failed.", is_error=True)),
        pretty(reply("All tests pass, ready to merge.")),
    )
    lines = log.read_text(encoding="utf-8").splitlines()
    row = scan([log]).calls.row(0, named=True)
    assert (row["conversation_id"], row["outcome"], row["finding"]) == (
        SESSION,
        "tool_error",
        "false_success",
    )
    assert lines[row["line"] - 1] == prefixed("{")
    assert lines[row["line"]].strip() == '"type": "user",'


def test_one_line_events_are_read(tmp_path: Path):
    log = write_log(tmp_path / "solve.log", compact(init()), compact(call()), compact(result("ok")))
    row = scan([log]).calls.row(0, named=True)
    assert (row["outcome"], row["line"]) == ("ok", 3)


def test_an_event_the_logger_cut_into_pieces_is_joined_again(tmp_path: Path):
    whole = compact(result("x" * 300 + " all green"))
    pieces = [whole[:150], prefixed(whole[150:260], 1), prefixed(whole[260:], 2)]
    log = write_log(tmp_path / "solve.log", compact(init()), compact(call()), pieces)
    found = scan([log])
    assert found.rejects.height == 0
    assert found.calls.row(0, named=True)["line"] == 3


def test_an_event_cut_off_mid_json_is_rejected_and_the_next_one_is_read(tmp_path: Path):
    cut = pretty(result("ok"))[:5]
    log = write_log(
        tmp_path / "solve.log",
        compact(init()),
        compact(call()),
        cut,
        pretty(call("toolu_2", "msg_2")),
        compact(result("fine", "toolu_2")),
    )
    found = scan([log])
    reject = found.rejects.row(0, named=True)
    assert (reject["line"], reject["reason"]) == (3, "truncated JSON in log")
    assert "toolu_2" in found.calls["tool_call_id"].to_list()


def test_an_event_cut_off_by_the_end_of_the_file_is_rejected(tmp_path: Path):
    whole = compact(result("ok"))
    log = write_log(tmp_path / "solve.log", compact(init()), compact(call()), whole[:80])
    reject = read_file(log, "solve.log").rejects[0]
    assert (reject.line, reject.reason) == (3, "truncated JSON in log")


def test_json_that_cannot_be_json_is_rejected_as_malformed(tmp_path: Path):
    log = write_log(
        tmp_path / "solve.log", compact(init()), prefixed('{"type": "user", "message": ]}')
    )
    reject = read_file(log, "solve.log").rejects[0]
    assert (reject.line, reject.reason.startswith("malformed JSON in log")) == (2, True)


def test_plain_log_text_and_metadata_events_are_passed_over_and_counted(tmp_path: Path):
    log = write_log(
        tmp_path / "solve.log",
        "Solution draft log for https://github.com/example/repo/pull/4",
        "",
        prefixed("📌 Session ID: 6198712a"),
        pretty(init()),
        compact({"type": "result", "subtype": "success", "session_id": SESSION}),
        prefixed("Found [3] open comments"),
    )
    read = read_file(log, "solve.log")
    assert (read.conversations, read.rejects) == ([], [])
    assert read.passed_over == {
        "log text without a transcript event": 3,
        "claude code event without conversation content: system": 1,
        "claude code event without conversation content: result": 1,
    }


def test_an_event_after_text_on_a_log_line_is_read(tmp_path: Path):
    log = write_log(
        tmp_path / "solve.log",
        compact(init()),
        prefixed("event: " + json.dumps(call())),
        prefixed("event: " + json.dumps(result("ok"))),
    )
    assert scan([log]).calls["tool_call_id"].to_list() == ["toolu_1"]


def test_log_events_become_the_same_conversation_as_the_stream_they_came_from(tmp_path: Path):
    events = [init(), call(), result("Exit code 2", is_error=True), reply("It failed.")]
    log = write_log(tmp_path / "solve.log", *[pretty(e) for e in events])
    jsonl = write_jsonl(tmp_path / "stream.jsonl", events)
    from_log, from_stream = (read_file(p, p.name).conversations[0] for p in (log, jsonl))
    assert [(m.role, m.from_person, [p.kind for p in m.parts]) for m in from_log.messages] == [
        (m.role, m.from_person, [p.kind for p in m.parts]) for m in from_stream.messages
    ]


def test_logs_with_claude_code_events_are_detected(tmp_path: Path):
    log = write_log(tmp_path / "solve.txt", prefixed("starting"), pretty(init()), pretty(call()))
    assert detect(log).NAME == "log_lines"


def test_a_call_whose_result_line_the_log_lost_is_rejected_not_a_transport_error(
    tmp_path: Path,
):
    log = write_log(
        tmp_path / "run.log",
        compact(init()),
        compact(call("toolu_1", "msg_1")),
        compact(reply("The package is missing, installing it.", "msg_2")),
        compact(call("toolu_2", "msg_3")),
        compact(result("ok", "toolu_2")),
    )
    found = scan([log])
    assert found.calls["tool_call_id"].to_list() == ["toolu_2"]
    reject = found.rejects.row(0, named=True)
    assert (reject["line"], reject["reason"]) == (
        2,
        "tool result missing from the log (the assistant went on without it)",
    )
