"""codex exec output: the --json event stream is read (items by id, MCP and command failures
from their status and exit code); the plain-text output is passed over with a reason that
names --json."""

from pathlib import Path
from typing import Any

import pytest
from builders import write_jsonl

from auditor import scan
from auditor.model import ToolCall, ToolResult
from auditor.readers import READERS, detect, read_file

HERE = Path(__file__).parent
REAL = Path(__file__).resolve().parents[4] / "shared" / "corpus" / "real-more"
SAMPLE = HERE / "memex_cli__docs__codex_out.txt"
PLAIN = (
    "codex exec plain-text output, not read (its blocks have no ids and no end marks): "
    "record runs with `codex exec --json`"
)


def parts_of(path: Path) -> tuple[list[ToolCall], dict[str, ToolResult]]:
    result = read_file(path, str(path))
    parts = [p for c in result.conversations for m in c.messages for p in m.parts]
    calls = [p for p in parts if isinstance(p, ToolCall)]
    return calls, {p.call_id: p for p in parts if isinstance(p, ToolResult)}


def item(kind: str, item_id: str, **fields: Any) -> dict:
    return {"id": item_id, "type": kind, **fields}


def completed(value: dict) -> dict:
    return {"type": "item.completed", "item": value}


def started(value: dict) -> dict:
    return {"type": "item.started", "item": value}


def run(thread: str, *events: dict) -> list[dict]:
    return [
        {"type": "thread.started", "thread_id": thread},
        {"type": "turn.started"},
        *events,
        {"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 1}},
    ]


# ----------------------------------------------------------------------------- the sample
def test_the_plain_text_run_is_passed_over_and_the_json_runs_beside_it_are_read():
    assert detect(SAMPLE).NAME == "codex_exec"
    result = read_file(SAMPLE, str(SAMPLE))
    assert result.rejects == []
    assert result.passed_over == {
        PLAIN: 50,  # the banner, the blocks, the console prompts
        "codex exec event without conversation content: thread.started": 2,
        "codex exec event without conversation content: turn.completed": 2,
        "codex exec item not audited: reasoning": 2,
    }
    assert [c.id for c in result.conversations] == [
        "019b5adf-58b7-7322-9ed7-9ec4485646e0",
        "019b5ac5-cd77-7b12-abdd-c17e9e7aab3a",
    ]
    lines = sum(1 for text in SAMPLE.read_text(encoding="utf-8").splitlines() if text.strip())
    read = {m.line for c in result.conversations for m in c.messages}
    assert len(read) + sum(result.passed_over.values()) == lines


def test_a_failed_mcp_call_and_a_command_with_its_exit_code():
    calls, results = parts_of(SAMPLE)
    assert [(c.id, c.name, c.server) for c in calls] == [
        ("item_1", "retrieve_qa_kb", "aduib-mcp-sever"),
        ("item_2", "command_execution", None),
    ]
    mcp = results["item_1"]  # status "failed", the server's error text in result.content
    assert (mcp.is_error, mcp.pointer, mcp.flag_key) == (True, "/item", "status")
    assert mcp.content[0]["text"].startswith("Error executing tool retrieve_qa_kb")
    assert results["item_2"].is_error is False  # exit_code 0
    assert calls[0].line < results["item_1"].line  # the call at item.started


def test_the_failed_mcp_call_was_followed_by_a_successful_write(rows_of):
    rows = rows_of(SAMPLE)
    assert rows["item_1"]["outcome"] == "tool_error"
    assert rows["item_2"]["outcome"] == "ok"
    assert rows["item_2"]["impact"] == "write"  # PowerShell Set-Content, read as a shell command


# ----------------------------------------------------------------------------- built examples
def test_a_failed_command_and_a_failed_file_change_are_flagged(tmp_path: Path, rows_of):
    path = write_jsonl(
        tmp_path / "exec.jsonl",
        run(
            "thread-1",
            started(
                item(
                    "command_execution",
                    "item_0",
                    command="bash -lc 'npm test'",
                    aggregated_output="",
                    exit_code=None,
                    status="in_progress",
                )
            ),
            completed(
                item(
                    "command_execution",
                    "item_0",
                    command="bash -lc 'npm test'",
                    aggregated_output="Tests: 2 failed, 40 passed\n",
                    exit_code=1,
                    status="failed",
                )
            ),
            completed(
                item(
                    "file_change",
                    "item_1",
                    changes=[{"path": "a.py", "kind": "update"}],
                    status="failed",
                )
            ),
            completed(item("agent_message", "item_2", text="Tests pass and a.py is updated.")),
        ),
    )
    rows = rows_of(path)
    assert (rows["item_0"]["outcome"], rows["item_0"]["finding"]) == ("tool_error", "false_success")
    assert rows["item_1"]["outcome"] == "tool_error"


def test_a_resumed_thread_continues_its_conversation_and_keeps_call_ids_apart(tmp_path: Path):
    command = item(
        "command_execution",
        "item_0",
        command="ls",
        aggregated_output="a\n",
        exit_code=0,
        status="completed",
    )
    path = write_jsonl(
        tmp_path / "exec.jsonl",
        run("thread-1", completed(command)) + run("thread-1", completed(command)),
    )
    result = read_file(path, str(path))
    assert [c.id for c in result.conversations] == ["thread-1"]
    calls, results = parts_of(path)
    assert [c.id for c in calls] == ["item_0", "item_0@5"]
    assert sorted(results) == ["item_0", "item_0@5"]
    people = [m for m in result.conversations[0].messages if m.from_person]
    assert len(people) == 2  # one empty marker per turn.started


def test_a_command_still_running_when_the_stream_ends_has_no_result(tmp_path: Path):
    path = write_jsonl(
        tmp_path / "exec.jsonl",
        [
            {"type": "thread.started", "thread_id": "thread-1"},
            {"type": "turn.started"},
            started(
                item(
                    "command_execution",
                    "item_0",
                    command="sleep 600",
                    aggregated_output="",
                    exit_code=None,
                    status="in_progress",
                )
            ),
        ],
    )
    calls, results = parts_of(path)
    assert [c.id for c in calls] == ["item_0"] and results == {}
    assert scan([path]).calls["outcome"].to_list() == ["cut_off"]


# ----------------------------------------------------------------------------- detection
def test_other_samples_are_not_taken_for_codex_exec_output():
    others = [
        sample
        for name in READERS
        if name != "codex_exec" and (HERE.parent / name).is_dir()
        for sample in (HERE.parent / name).iterdir()
        if sample.is_file() and sample.suffix != ".py"
    ]
    assert others and all(detect(sample).NAME != "codex_exec" for sample in others)


def test_plain_text_output_alone_is_recognised_by_its_banner(tmp_path: Path):
    path = tmp_path / "run.txt"
    path.write_text(
        "OpenAI Codex v0.58.0 (research preview)\n--------\nworkdir: /repo\n--------\nuser\n"
        "hi\n\ncodex\nHello!\ntokens used\n1,234\n",
        encoding="utf-8",
    )
    assert detect(path).NAME == "codex_exec"
    result = read_file(path, str(path))
    assert (result.conversations, result.rejects) == ([], [])
    assert result.passed_over == {PLAIN: 10}  # every line but the blank one


@pytest.mark.skipif(not (REAL / "codex-exec-text").is_dir(), reason="no real-more corpus")
def test_the_real_file_is_read_whole():
    path = REAL / "codex-exec-text" / "memex_cli__docs__codex_out.txt"
    assert detect(path).NAME == "codex_exec"
    result = scan([path])
    assert result.rejects.height == 0
    assert result.calls.height == 2
    assert result.summary()["passed_over_by_reason"][PLAIN] == 113
