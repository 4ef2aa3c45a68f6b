"""OpenClaw telemetry: one conversation per sessionKey, messages from the agent.start snapshots,
tool.start / tool.end paired by sessionKey and order, no call counted twice."""

import json
from pathlib import Path

from auditor import scan
from auditor.model import TextPart, ToolCall, ToolResult
from auditor.readers import detect, read_file
from auditor.readers.openclaw import (
    FROM_SNAPSHOT,
    MESSAGE_IN,
    NO_START,
    REPEATED,
)

HERE = Path(__file__).parent
SAMPLE = HERE / "sample-telemetry.jsonl"
MAIN = "agent:main:main"
WEST = "agent:main:subagent:ee85499e-eb7c-40bb-85c8-2b681dceaa1f"


def calls(result) -> dict[str, list[tuple[str, str, bool | None]]]:
    """Per conversation: (tool call id, tool name, is_error of its result)."""
    found = {}
    for conversation in result.conversations:
        results = {
            p.call_id: p
            for m in conversation.messages
            for p in m.parts
            if isinstance(p, ToolResult)
        }
        found[conversation.id] = [
            (p.id, p.name, results[p.id].is_error if p.id in results else None)
            for m in conversation.messages
            for p in m.parts
            if isinstance(p, ToolCall)
        ]
    return found


def events(path: Path, *records: dict) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def start(key: str, tool: str, **params) -> dict:
    return {"type": "tool.start", "sessionKey": key, "toolName": tool, "params": params}


def end(key: str, tool: str, success: bool) -> dict:
    return {"type": "tool.end", "sessionKey": key, "toolName": tool, "success": success}


def run(key: str, prompt: str, messages: list | None = None) -> dict:
    record = {"type": "agent.start", "sessionKey": key, "agentId": "main", "prompt": prompt}
    if messages is not None:
        record["messages"] = messages
    return record


# ----------------------------------------------------------------------------- the real file
def test_a_call_in_a_snapshot_and_in_tool_events_is_read_once_from_the_snapshot():
    result = read_file(SAMPLE, SAMPLE.name)
    assert detect(SAMPLE).NAME == "openclaw"
    assert result.rejects == []
    found = calls(result)
    # The main agent's tool events are filed under the Telegram key, its runs under
    # agent:main:main: the two exec calls come once, with the snapshot's ids and results.
    assert found[MAIN][:2] == [
        ("toolu_01ULhB5UkpKe28AjGM4nMnRL", "exec", False),
        ("toolu_01JWNGVkpjLP7TaVNBBfn4gY", "exec", False),
    ]
    assert not any(key.startswith("agent:main:telegram") for key in found)
    assert result.passed_over[FROM_SNAPSHOT] == 4  # two tool.start and two tool.end lines


def test_calls_only_the_events_know_are_paired_by_session_key_and_order():
    found = calls(read_file(SAMPLE, SAMPLE.name))
    assert found[WEST] == [("sample-telemetry.jsonl:15", "exec", False)]
    assert found[MAIN][-1] == ("sample-telemetry.jsonl:17", "sessions_yield", False)


def test_texts_come_from_the_snapshots_the_prompts_and_message_out():
    result = read_file(SAMPLE, SAMPLE.name)
    main = next(c for c in result.conversations if c.id == MAIN)
    said = [
        (m.role, m.parts[0].text[:24])
        for m in main.messages
        if m.parts and isinstance(m.parts[0], TextPart)
    ]
    assert said == [
        ("user", "hey can you run echo who"),
        ("assistant", "`whoami`\n\nThat's the lit"),
        ("assistant", "- `echo whoami` → `whoam"),
        ("user", "good, run a subagent for"),
        ("assistant", "What do you want the sub"),
        ("user", "check the weather across"),
        ("assistant", "**Eastern US Weather Rep"),
    ]
    west = next(c for c in result.conversations if c.id == WEST)
    assert west.messages[0].from_person and west.messages[0].parts[0].text.startswith(
        "[Subagent Context]"
    )
    assert result.passed_over[MESSAGE_IN] == 3
    assert result.passed_over[REPEATED] == 4


# ----------------------------------------------------------------------------- failure signals
def test_tool_end_success_false_is_the_failure_of_a_call_only_the_events_know(tmp_path: Path):
    path = events(
        tmp_path / "t.jsonl",
        run("agent:main:main", "delete the old branch"),
        start("agent:main:main", "exec", command="git branch -D old"),
        end("agent:main:main", "exec", False),
        {"type": "message.out", "channel": "telegram", "content": "Deleted the old branch."},
    )
    row = scan([path]).calls.row(0, named=True)
    assert (row["outcome"], row["outcome_rule"], row["finding"]) == (
        "tool_error",
        "flagged-error",
        "false_success",
    )


def test_a_snapshot_tool_result_with_is_error_is_a_failure(tmp_path: Path):
    history = [
        {"role": "user", "content": "read the notes"},
        {
            "role": "assistant",
            "content": [
                {"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": "n.md"}}
            ],
        },
        {
            "role": "toolResult",
            "toolCallId": "t1",
            "toolName": "read",
            "content": [{"type": "text", "text": "ENOENT: no such file"}],
            "isError": True,
        },
        {"role": "assistant", "content": [{"type": "text", "text": "I read your notes."}]},
    ]
    path = events(
        tmp_path / "t.jsonl",
        run("agent:main:main", "read the notes"),
        start("agent:main:main", "read", path="n.md"),
        end("agent:main:main", "read", True),
        run("agent:main:main", "thanks", history),
    )
    result = read_file(path, path.name)
    assert calls(result) == {"agent:main:main": [("t1", "read", True)]}
    row = scan([path]).calls.row(0, named=True)
    assert (row["outcome"], row["outcome_rule"]) == ("tool_error", "flagged-error")


def test_a_tool_end_with_no_open_start_is_rejected_with_its_line(tmp_path: Path):
    path = events(
        tmp_path / "t.jsonl",
        run("agent:main:main", "hi"),
        end("agent:main:main", "exec", True),
    )
    result = read_file(path, path.name)
    assert [(r.line, r.reason) for r in result.rejects] == [(2, NO_START)]


def test_parallel_runs_pair_with_the_oldest_open_start_of_their_own_key(tmp_path: Path):
    path = events(
        tmp_path / "t.jsonl",
        run("agent:main:subagent:a", "task a"),
        run("agent:main:subagent:b", "task b"),
        start("agent:main:subagent:a", "exec", command="a1"),
        start("agent:main:subagent:b", "exec", command="b1"),
        start("agent:main:subagent:a", "exec", command="a2"),
        end("agent:main:subagent:b", "exec", False),
        end("agent:main:subagent:a", "exec", True),
        end("agent:main:subagent:a", "exec", False),
    )
    found = calls(read_file(path, path.name))
    assert found == {
        "agent:main:subagent:a": [("t.jsonl:3", "exec", False), ("t.jsonl:5", "exec", True)],
        "agent:main:subagent:b": [("t.jsonl:4", "exec", True)],
    }
