"""SWE-agent ``.traj`` trajectories: the ``history`` of chat messages (function calling), or
the ``trajectory`` of action / observation steps in older runs."""

from pathlib import Path

from builders import assistant, call

from auditor import scan
from auditor.readers import detect, read_file

HERE = Path(__file__).parent


def swe_tool(call_id: str, content: str) -> dict:
    return {
        "role": "tool",
        "content": content,
        "agent": "main",
        "message_type": "observation",
        "tool_call_ids": [call_id],
    }


def function_calling_traj() -> dict:
    return {
        "history": [
            {
                "role": "system",
                "content": "SETTING: You are an autonomous programmer.",
                "agent": "main",
            },
            {"role": "user", "content": "DEMONSTRATION ...", "is_demo": True, "agent": "main"},
            {"role": "user", "content": "ISSUE: SyntaxError in missing_colon.py", "agent": "main"},
            assistant("Let's run it.", call("call_A", "bash", command="python missing_colon.py")),
            swe_tool("call_A", "Traceback (most recent call last):\n  SyntaxError: invalid syntax"),
            assistant("python missing_colon.py ran fine.", call("call_A", "bash", command="ls")),
            swe_tool("call_A", "missing_colon.py"),
            {
                "role": "user",
                "content": "Your output was not formatted correctly.",
                "agent": "main",
            },
            assistant("Submitting.", call("call_submit", "submit")),
            swe_tool("call_submit", "diff --git a/missing_colon.py"),
        ],
        "trajectory": [{"action": "ls", "observation": "not read", "thought": "", "messages": []}],
    }


def old_traj() -> dict:
    return {
        "environment": "swe_main",
        "history": [
            {
                "role": "system",
                "content": "COMMANDS:\nopen:\n  docstring: opens a file\n",
                "agent": "primary",
            },
            {"role": "user", "content": "ISSUE: division by zero", "agent": "primary"},
            {
                "role": "assistant",
                "content": "Edit it.\n```\nedit 4:4\n```",
                "action": "edit 4:4\n",
                "agent": "primary",
            },
        ],
        "trajectory": [
            {
                "action": "edit 4:4\n    return a/b if b else 0\nend_of_edit\n",
                "observation": "Your proposed edit has introduced new syntax error(s).",
                "thought": "Let's guard the division.\n\n",
                "response": "Let's guard the division.\n\n```\nedit 4:4\n```",
                "state": "{}",
            },
            {
                "action": "python -m pytest tests\n",
                "observation": "===== 1 failed, 3 passed in 0.2s =====",
                "thought": "The edit is in. Now the tests.\n\n",
            },
            {
                "action": "submit\n",
                "observation": "diff --git a/x.py b/x.py",
                "thought": "All 4 tests pass, submitting.",
            },
        ],
        "info": {"exit_status": "submitted"},
    }


def test_the_demonstration_gives_its_function_calls_and_results(calls_of, flags_of, rows_of):
    path = HERE / "function_calling_simple.traj"
    assert detect(path).NAME == "swe_agent"
    result = read_file(path, str(path))
    assert result.rejects == []
    trajectory = "swe_agent/function_calling_simple.traj"
    assert calls_of(result) == [
        (trajectory, "call_PbWErNIge3YTrli3fiVvmIid", "find_file"),
        (trajectory, "call_5O339epJ3rKjEal3Kuvpj9bM", "bash"),
        (trajectory, "call_6zuFhIfpOAi1jAiD2QHMmh6S", "submit"),
    ]
    assert set(flags_of(result).values()) == {None}  # SWE-agent records no failure flag
    rows = rows_of(path)
    assert {call_id: row["outcome"] for call_id, row in rows.items()} == {
        "call_PbWErNIge3YTrli3fiVvmIid": "ok",
        "call_5O339epJ3rKjEal3Kuvpj9bM": "ok",
        "call_6zuFhIfpOAi1jAiD2QHMmh6S": "ok",
    }


def test_swe_agent_trajectories_are_detected(tmp_path: Path, write_json):
    assert (
        detect(write_json(tmp_path / "run" / "i-1.traj", function_calling_traj())).NAME
        == "swe_agent"
    )
    other = write_json(tmp_path / "i-2.json", function_calling_traj(), None)
    assert detect(other).NAME == "swe_agent"


def test_swe_agent_function_calls_pair_through_tool_call_ids(tmp_path: Path, write_json):
    path = write_json(tmp_path / "default__t-0.00" / "repo-1.traj", function_calling_traj())
    result = scan([path])
    rows = list(result.calls.iter_rows(named=True))
    assert [r["tool_name"] for r in rows] == ["bash", "bash", "submit"]
    assert rows[0]["conversation_id"] == "default__t-0.00/repo-1.traj"
    assert (rows[0]["outcome"], rows[0]["finding"]) == ("error_payload", "false_success")
    assert rows[0]["evidence_pointer"].startswith("/history/4/content")
    assert rows[1]["outcome"] == "ok"
    assert {r["turn"] for r in rows} == {0}
    assert result.rejects.height == 0


def test_swe_agent_demonstrations_and_framework_notices_are_not_the_person(
    tmp_path: Path, write_json
):
    path = write_json(tmp_path / "run" / "repo-1.traj", function_calling_traj())
    conversation = read_file(path, str(path)).conversations[0]
    users = [m for m in conversation.messages if m.role == "user"]
    assert [(m.parts[0].text[:5], m.from_person) for m in users] == [
        ("ISSUE", True),
        ("Your ", False),
    ]


def test_older_swe_agent_runs_are_read_from_the_trajectory_steps(tmp_path: Path, write_json):
    path = write_json(tmp_path / "run" / "repo-2.traj", old_traj())
    rows = list(scan([path]).calls.iter_rows(named=True))
    assert [(r["tool_call_id"], r["tool_name"]) for r in rows] == [
        ("step-0", "edit"),
        ("step-1", "bash"),
        ("step-2", "submit"),
    ]
    tests = rows[1]
    assert (tests["outcome"], tests["outcome_rule"]) == ("error_payload", "pytest-failed")
    assert tests["evidence_pointer"] == "/trajectory/1/observation"
    assert tests["finding"] == "false_success"


def test_a_malformed_traj_file_is_reported_with_its_line(tmp_path: Path):
    path = tmp_path / "run" / "repo-3.traj"
    path.parent.mkdir()
    path.write_text('{\n  "history": [\n    {"role": "user",\n', encoding="utf-8")
    result = scan([path])
    reject = result.rejects.row(0, named=True)
    assert (reject["source"], reject["line"]) == (str(path), 4)
    assert "malformed JSON document" in reject["reason"]
