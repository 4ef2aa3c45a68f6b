"""Claude Code sessions: stream-json, projects JSONL, runner-wrapped events, sub-agents."""

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from builders import tool_result, tool_use, write_jsonl

from auditor import scan
from auditor.model import ToolCall
from auditor.readers import detect, read_file

HERE = Path(__file__).parent


SESSION = "5d84-main"


# ----------------------------------------------------------------------------- event builders
def said(text: str, message_id: str = "msg_1", **fields: Any) -> dict:
    """A stream-json assistant event carrying one text block."""
    content = [{"type": "text", "text": text}]
    return {"type": "assistant", "message": {"id": message_id, "content": content}, **fields}


def calls(use_id: str, name: str, message_id: str = "msg_1", **fields: Any) -> dict:
    """A stream-json assistant event carrying one tool_use block (arguments under ``input``)."""
    arguments = fields.pop("input", {})
    block = tool_use(use_id, name, **arguments)
    return {"type": "assistant", "message": {"id": message_id, "content": [block]}, **fields}


def answers(use_id: str, content: Any, is_error: bool | None = None, **fields: Any) -> dict:
    block = tool_result(use_id, content, is_error)
    return {"type": "user", "message": {"role": "user", "content": [block]}, **fields}


def asks(text: str, **fields: Any) -> dict:
    return {"type": "user", "message": {"role": "user", "content": text}, **fields}


def stream(*events: dict, session: str = SESSION) -> list[dict]:
    """Events as ``claude -p --output-format stream-json`` writes them."""
    init = {"type": "system", "subtype": "init", "session_id": session, "tools": ["Bash"]}
    marked = [{"session_id": session, "parent_tool_use_id": None, **e} for e in events]
    return [init, *marked]


def wrapped(*events: dict, session: str = SESSION) -> list[dict]:
    """The same stream as the autopilot runner stores it: ``{type, message, timestamp}``."""
    init = {"subtype": "init", "session_id": session, "tools": ["Bash"]}
    out = [{"type": "system", "message": init, "timestamp": "2025-12-23T18:56:49Z"}]
    for event in events:
        inner = event["message"] if event["type"] in ("user", "assistant") else event
        out.append({"type": event["type"], "message": inner, "timestamp": "2025-12-23T18:57Z"})
    return out


# ----------------------------------------------------------------------------- the labelled corpus
def test_the_labelled_session_gives_its_call_and_result(calls_of, flags_of):
    path = HERE / "f2c7a9e1-3d5b-4f80-b6a2-c8e0d4f1a937.jsonl"
    assert detect(path).NAME == "claude_code"
    result = read_file(path, str(path))
    assert result.rejects == []
    assert result.passed_over == {"claude code event without conversation content: system": 1}
    session = "f2c7a9e1-3d5b-4f80-b6a2-c8e0d4f1a937"
    assert calls_of(result) == [(session, "toolu_01YoaxzXtNczSxXj8sq9fOnk", "Bash")]
    assert flags_of(result) == {"toolu_01YoaxzXtNczSxXj8sq9fOnk": False}
    parts = [part for message in result.conversations[0].messages for part in message.parts]
    assert [(part.kind, part.line) for part in parts if part.kind != "text"] == [
        ("tool_call", 3),
        ("tool_result", 4),
    ]


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


# ----------------------------------------------------------------------------- stream-json
def test_stream_json_is_read_by_its_snake_case_session_id(tmp_path: Path, rows_of):
    path = write_jsonl(
        tmp_path / "run.jsonl",
        stream(
            calls("toolu_1", "mcp__linear__update_issue", input={"id": "BILL-88"}),
            answers("toolu_1", "MCP error -32000: Connection closed", is_error=True),
            said("Done, BILL-88 is updated.", "msg_2"),
        ),
    )
    row = rows_of(path)["toolu_1"]
    assert (row["conversation_id"], row["outcome"], row["finding"]) == (
        SESSION,
        "transport_error",
        "false_success",
    )
    assert row["line"] == 3


def test_system_and_result_events_are_passed_over_and_counted(tmp_path: Path):
    events = [*stream(said("Hello.")), {"type": "result", "subtype": "success", "result": "Hi"}]
    result = scan([write_jsonl(tmp_path / "run.jsonl", events)])
    assert result.rejects.height == 0
    assert result.passed_over == {
        "claude code event without conversation content: system": 1,
        "claude code event without conversation content: result": 1,
    }


def test_unknown_event_types_are_passed_over_by_type(tmp_path: Path):
    events = [*stream(said("Hello.")), {"type": "brand-new-event", "session_id": SESSION}]
    read = read_file(write_jsonl(tmp_path / "run.jsonl", events), "run.jsonl")
    assert read.passed_over["claude code event without conversation content: brand-new-event"] == 1


def test_an_event_that_is_not_an_object_is_rejected_and_the_rest_is_read(tmp_path: Path):
    events = stream(said("Checking."), calls("toolu_1", "Bash"), answers("toolu_1", "ok"))
    events.insert(2, ["not", "an", "event"])
    events.insert(3, {"type": "assistant", "message": "text instead of an object"})
    result = scan([write_jsonl(tmp_path / "run.jsonl", events)])
    assert sorted(result.rejects["reason"].to_list()) == [
        "assistant event without a message object",
        "event is not an object",
    ]
    assert result.calls["tool_call_id"].to_list() == ["toolu_1"]


def test_several_sessions_in_one_file_are_several_conversations(tmp_path: Path, rows_of):
    events = [
        *stream(calls("toolu_1", "Bash"), answers("toolu_1", "one"), session="s-1"),
        *stream(calls("toolu_2", "Bash"), answers("toolu_2", "two"), session="s-2"),
    ]
    found = rows_of(write_jsonl(tmp_path / "run.jsonl", events))
    assert (found["toolu_1"]["conversation_id"], found["toolu_2"]["conversation_id"]) == (
        "s-1",
        "s-2",
    )


def test_a_result_event_ends_the_turn_so_the_next_run_is_a_new_turn(tmp_path: Path, rows_of):
    events = [
        *stream(calls("toolu_1", "Bash"), answers("toolu_1", "Exit code 1\nboom", is_error=True)),
        {"type": "result", "subtype": "success", "session_id": SESSION},
        *stream(said("All done, everything passed.", "msg_9")),
    ]
    row = rows_of(write_jsonl(tmp_path / "run.jsonl", events))["toolu_1"]
    assert (row["turn"], row["claim"], row["finding"]) == (0, "none", None)


def test_a_call_with_no_result_before_the_assistant_spoke_again_is_a_transport_error(
    tmp_path: Path, rows_of
):
    events = stream(
        calls("toolu_1", "Bash", "msg_1"),
        said("The package is missing, installing it.", "msg_2"),
        calls("toolu_2", "Bash", "msg_2"),
    )
    rows = rows_of(write_jsonl(tmp_path / "run.jsonl", events))
    assert rows["toolu_1"]["outcome"] == "transport_error"
    assert rows["toolu_2"]["outcome"] == "cut_off"  # the run ends after it


def test_a_tool_result_without_content_takes_the_hosts_copy(tmp_path: Path, rows_of):
    result_line = answers("toolu_1", None)
    del result_line["message"]["content"][0]["content"]
    result_line["tool_use_result"] = "Error: MCP error -32603: upstream down"
    events = stream(calls("toolu_1", "mcp__x__get"), result_line)
    row = rows_of(write_jsonl(tmp_path / "run.jsonl", events))["toolu_1"]
    assert (row["outcome"], row["evidence_pointer"]) == ("transport_error", "/tool_use_result")


# ----------------------------------------------------------------------------- the runner's wrapper
def test_runner_wrapped_events_take_the_session_from_the_wrapped_init(tmp_path: Path, rows_of):
    path = write_jsonl(
        tmp_path / "run.jsonl",
        wrapped(calls("toolu_1", "Bash"), answers("toolu_1", "fine"), said("Fine.", "msg_2")),
    )
    assert detect(path).NAME == "claude_code"
    assert rows_of(path)["toolu_1"]["conversation_id"] == SESSION


def test_a_file_of_wrapped_result_events_only_is_recognised_and_passed_over(tmp_path: Path):
    results = [
        {"type": "result", "message": {"subtype": "success", "session_id": f"s-{n}"}}
        for n in range(3)
    ]
    path = write_jsonl(tmp_path / "runs.jsonl", results)
    assert detect(path).NAME == "claude_code"
    read = read_file(path, "runs.jsonl")
    assert (read.conversations, read.rejects) == ([], [])
    assert read.passed_over == {"claude code event without conversation content: result": 3}


def test_the_summary_after_a_compaction_is_not_a_message_of_the_person(tmp_path: Path, rows_of):
    events = wrapped(
        calls("toolu_1", "Bash"),
        answers("toolu_1", "Exit code 1\nboom", is_error=True),
        {"type": "system", "subtype": "compact_boundary", "session_id": SESSION},
        asks("This session is being continued from a previous conversation ..."),
        said("The build still fails; I'm looking into it.", "msg_2"),
    )
    row = rows_of(write_jsonl(tmp_path / "run.jsonl", events))["toolu_1"]
    assert (row["turn"], row["claim"]) == (0, "failure")


# ----------------------------------------------------------------------------- sub-agents
def test_marked_sub_agent_events_get_their_own_conversation(tmp_path: Path):
    task = {"subagent_type": "Explore", "prompt": "Find the SessionCard component."}
    events = stream(
        calls("toolu_task", "Task", "msg_1", input=task),
        calls("toolu_sub", "Read", "msg_sub", input={"file_path": "/repo/src"}),
        answers("toolu_sub", "EISDIR: illegal operation on a directory", is_error=True),
        answers("toolu_task", [{"type": "text", "text": "SessionCard is in ui/card.rs."}]),
        said("Found it.", "msg_2"),
    )
    for event in events[2:4]:
        event["parent_tool_use_id"] = "toolu_task"
    read = read_file(write_jsonl(tmp_path / "run.jsonl", events), "run.jsonl")
    main, sub = read.conversations
    assert sub.id == f"{SESSION}/toolu_task"
    assert [p.id for m in main.messages for p in m.parts if isinstance(p, ToolCall)] == [
        "toolu_task"
    ]
    texts = [
        (m.role, m.from_person, p.text) for m in sub.messages for p in m.parts if p.kind == "text"
    ]
    assert texts == [
        ("user", True, "Find the SessionCard component."),
        ("assistant", False, "SessionCard is in ui/card.rs."),
    ]


def test_sidechain_lines_of_the_projects_jsonl_go_to_the_agents_conversation(
    tmp_path: Path, rows_of
):
    base = {"sessionId": SESSION, "uuid": "u", "parentUuid": None}
    events = [
        {**asks("Fix the VAT rounding"), **base, "isSidechain": False},
        {**asks("Search for vat.py"), **base, "isSidechain": True, "agentId": "a1b2"},
        {**calls("toolu_s", "Glob", "msg_s"), **base, "isSidechain": True, "agentId": "a1b2"},
        {**answers("toolu_s", "vat.py"), **base, "isSidechain": True, "agentId": "a1b2"},
    ]
    found = rows_of(write_jsonl(tmp_path / f"{SESSION}.jsonl", events))
    assert found["toolu_s"]["conversation_id"] == f"{SESSION}/a1b2"


def test_unmarked_sub_agent_messages_are_told_apart_by_the_open_task(tmp_path: Path, rows_of):
    prompt = "Find the autopilot GUI structure."
    events = wrapped(
        calls("toolu_task", "Task", "msg_1", input={"prompt": prompt}),
        asks(prompt),
        calls("toolu_sub", "Glob", "msg_sub"),
        answers("toolu_sub", "No files found"),
        answers("toolu_task", "The GUI lives in crates/autopilot-gui."),
        said("The GUI lives in crates/autopilot-gui.", "msg_2"),
    )
    found = rows_of(write_jsonl(tmp_path / "run.jsonl", events))
    assert found["toolu_task"]["conversation_id"] == SESSION
    assert found["toolu_sub"]["conversation_id"] == f"{SESSION}/toolu_task"


def test_calls_in_the_same_message_as_the_task_stay_in_the_main_conversation(
    tmp_path: Path, rows_of
):
    events = wrapped(
        calls("toolu_task", "Task", "msg_1", input={"prompt": "Explore."}),
        calls("toolu_main", "Bash", "msg_1"),
        answers("toolu_main", "ok"),
        answers("toolu_task", "Explored."),
    )
    assert rows_of(write_jsonl(tmp_path / "run.jsonl", events))["toolu_main"][
        "conversation_id"
    ] == (SESSION)


# ----------------------------------------------------------------------------- time
def test_a_claude_code_event_dates_the_call_it_carries(tmp_path: Path, rows_of):
    events = stream(
        asks("List the files", timestamp="2026-02-02T06:01:20Z"),
        calls("toolu_1", "Bash", input={"command": "ls"}, timestamp="2026-02-02T06:01:26.443Z"),
        answers("toolu_1", "Cargo.toml", timestamp="2026-02-02T06:01:27Z"),
        said("One file.", message_id="msg_2"),
    )
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(event) + "\n" for event in events))
    row = rows_of(path)["toolu_1"]
    assert row["timestamp"] == datetime(2026, 2, 2, 6, 1, 26, 443000, tzinfo=UTC)
