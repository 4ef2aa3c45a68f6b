"""Autopilot runner trajectories: {session_id, prompt, steps: [tool_call, tool_result, ...]}."""

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from auditor import scan
from auditor.model import TextPart, ToolCall
from auditor.readers import detect, read_file

HERE = Path(__file__).parent


def step(step_id: int, kind: str, tokens: tuple[int, int] | None = None, **fields: Any) -> dict:
    record: dict[str, Any] = {"step_id": step_id, "timestamp": "2025-12-20T02:50:03Z", "type": kind}
    if tokens is not None:
        record["tokens_in"], record["tokens_cached"] = tokens
    return {**record, **fields}


def trajectory(path: Path, *steps: dict, prompt: str = "Start working", **top: Any) -> Path:
    document = {"session_id": "run-1", "prompt": prompt, "model": "claude-sonnet-4-5", **top}
    document["steps"] = list(steps)
    document["result"] = {"success": True}
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def test_the_autopilot_run_gives_its_parallel_calls_and_results(calls_of, flags_of):
    path = HERE / "20251219__1610-list-the-cargo-toml-files.json"
    assert detect(path).NAME == "runner_steps"
    result = read_file(path, str(path))
    assert result.rejects == []
    assert result.passed_over == {
        "runner step without conversation content: system_init": 1,
        "runner step without conversation content: thinking": 2,
    }
    session = "be8b05ba-581e-4b96-8670-ba90376fd71b"
    assert calls_of(result) == [
        (session, "toolu_01V9BrwMqQKnWme45zbB1tbL", "Glob"),
        (session, "toolu_019zKBUZYV2T166cWxv3iXLV", "Read"),
    ]
    assert flags_of(result) == {
        "toolu_019zKBUZYV2T166cWxv3iXLV": False,
        "toolu_01V9BrwMqQKnWme45zbB1tbL": False,
    }
    first = result.conversations[0].messages[0]
    assert (first.from_person, first.parts[0].text) == (
        True,
        "List the Cargo.toml files in this project using glob, "
        "then show me the first 10 lines of the root Cargo.toml",
    )


def test_a_runner_trajectory_is_detected_and_its_prompt_is_the_persons_request(tmp_path: Path):
    path = trajectory(
        tmp_path / "run.json",
        step(1, "system_init", model="claude-sonnet-4-5"),
        step(2, "tool_call", (2, 100), tool="Bash", tool_id="toolu_1", input={"command": "ls"}),
        step(3, "tool_result", tool_id="toolu_1", success=True, output="Cargo.toml"),
        step(4, "assistant", (3, 200), content="There is one Cargo.toml."),
    )
    assert detect(path).NAME == "runner_steps"
    read = read_file(path, "run.json")
    first = read.conversations[0].messages[0]
    assert (first.from_person, first.parts[0].text) == (True, "Start working")
    assert read.passed_over == {"runner step without conversation content: system_init": 1}


def test_a_runner_result_with_success_false_is_a_tool_error_on_its_own_line(
    tmp_path: Path, rows_of
):
    path = trajectory(
        tmp_path / "run.json",
        step(1, "tool_call", (2, 100), tool="Bash", tool_id="toolu_1", input={"command": "x"}),
        step(2, "tool_result", tool_id="toolu_1", success=False, output="Exit code 101"),
        step(3, "assistant", (3, 200), content="Built and committed."),
    )
    row = rows_of(path)["toolu_1"]
    text = path.read_text(encoding="utf-8").splitlines()
    assert (row["outcome"], row["evidence_pointer"]) == ("tool_error", "/steps/1/success")
    assert text[row["line"] - 1].strip() == "{" and '"step_id": 2' in text[row["line"]]


def test_runner_steps_of_one_response_form_one_message(tmp_path: Path, rows_of):
    same = (2, 100)
    path = trajectory(
        tmp_path / "run.json",
        step(1, "tool_call", same, tool="Read", tool_id="toolu_1", input={"file_path": "a"}),
        step(2, "assistant", same, content="Reading a while I look at b."),
        step(3, "tool_result", tool_id="toolu_1", success=True, output="a's text"),
    )
    assert rows_of(path)["toolu_1"]["outcome"] == "ok"  # not a late result


def test_runner_steps_after_a_task_call_belong_to_the_sub_agent(tmp_path: Path):
    path = trajectory(
        tmp_path / "run.json",
        step(
            1, "tool_call", (2, 100), tool="Task", tool_id="toolu_t", input={"prompt": "Explore."}
        ),
        step(2, "tool_call", (3, 0), tool="Read", tool_id="toolu_r", input={"file_path": "/repo"}),
        step(3, "tool_result", tool_id="toolu_r", success=False, output="EISDIR"),
        step(4, "tool_result", tool_id="toolu_t", success=True, output="The repo has 3 crates."),
        step(5, "assistant", (4, 300), content="Explored."),
    )
    read = read_file(path, "run.json")
    _, sub = read.conversations
    assert sub.id == "run-1/toolu_t"
    assert [p.id for m in sub.messages for p in m.parts if isinstance(p, ToolCall)] == ["toolu_r"]
    assert [p.text for p in sub.messages[-1].parts if isinstance(p, TextPart)] == [
        "The repo has 3 crates."
    ]


def test_a_damaged_runner_trajectory_is_read_up_to_the_damage(tmp_path: Path):
    path = trajectory(
        tmp_path / "run.json",
        step(1, "tool_call", (2, 100), tool="Bash", tool_id="toolu_1", input={"command": "ls"}),
        step(2, "tool_result", tool_id="toolu_1", success=True, output="ok"),
        step(3, "assistant", (3, 100), content="Listed."),
    )
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: text.index('"Listed.') + 4], encoding="utf-8")
    result = scan([path])
    assert result.calls["tool_call_id"].to_list() == ["toolu_1"]
    assert result.rejects.row(0, named=True)["reason"].startswith("malformed JSON document")


def test_a_runner_step_of_the_wrong_shape_is_rejected(tmp_path: Path):
    path = trajectory(
        tmp_path / "run.json",
        step(1, "tool_call", (2, 100), tool="Bash", input={"command": "ls"}),
        step(2, "assistant", (2, 100), content=["not", "text"]),
        "not a step",
    )
    reasons = sorted(r.reason for r in read_file(path, "run.json").rejects)
    assert reasons == [
        "assistant step without text content",
        "runner step is not an object",
        "tool call step without a tool_id or tool name",
    ]


def test_a_runner_step_dates_the_call_it_carries(tmp_path: Path, rows_of):
    path = trajectory(
        tmp_path / "run.json",
        step(1, "tool_call", (2, 100), tool="Bash", tool_id="toolu_1", input={"command": "x"}),
        step(2, "tool_result", tool_id="toolu_1", success=True, output="ok"),
        step(3, "assistant", (3, 200), content="Done."),
    )
    row = rows_of(path)["toolu_1"]
    assert row["timestamp"] == datetime(2025, 12, 20, 2, 50, 3, tzinfo=UTC)
