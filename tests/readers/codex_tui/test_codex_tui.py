"""Codex TUI session recordings: exec_command_begin / exec_command_end by call_id with their exit
code (-1 with the reason in stderr), patch_apply_end.success, the prompt rebuilt from the keys
typed, one conversation per session (/new starts another), the screen's noise passed over."""

from pathlib import Path
from typing import Any

import pytest
from builders import write_jsonl

from auditor import scan
from auditor.model import TextPart, ToolCall, ToolResult
from auditor.readers import READERS, detect, read_file

HERE = Path(__file__).parent
REAL = Path(__file__).resolve().parents[4] / "shared" / "corpus" / "real-more"
SAMPLE = HERE / "binary-size-log.jsonl"


def results_of(path: Path) -> dict[str, ToolResult]:
    result = read_file(path, str(path))
    return {
        part.call_id: part
        for conversation in result.conversations
        for message in conversation.messages
        for part in message.parts
        if isinstance(part, ToolResult)
    }


# ----------------------------------------------------------------------------- line builders
SCREEN = "codex tui screen record (app_event, insert_history): no conversation content"


def key(code: str, kind: str = "Press") -> str:
    """A key event as crossterm's Debug writes it."""
    return (
        f"KeyEvent {{ code: {code}, modifiers: KeyModifiers(0x0), kind: {kind}, "
        "state: KeyEventState(0x0) }"
    )


def line(kind: str, direction: str = "to_tui", **fields: Any) -> dict:
    return {"ts": "2025-08-09T15:51:04.827Z", "dir": direction, "kind": kind, **fields}


def event(kind: str, **fields: Any) -> dict:
    return line("codex_event", payload={"id": "1", "msg": {"type": kind, **fields}})


def typed(text: str) -> list[dict]:
    """The key presses (and releases) of typing ``text`` and pressing Enter."""
    keys = []
    for char in text:
        code = "Char('\\\\')" if char == "\\" else f"Char('{char}')"
        for kind in ("Press", "Release"):
            keys.append(line("key_event", event=key(code, kind)))
    return [*keys, line("key_event", event=key("Enter"))]


def session(session_id: str = "d126e3d0") -> dict:
    return event("session_configured", session_id=session_id, model="gpt-5-codex")


# ----------------------------------------------------------------------------- the recording
def test_the_recording_gives_two_conversations_split_by_new():
    assert detect(SAMPLE).NAME == "codex_tui"
    result = read_file(SAMPLE, str(SAMPLE))
    assert result.rejects == []
    assert [c.id for c in result.conversations] == [
        "d126e3d0-80ed-480a-be8c-09d97ff602cf",
        "c7df96da-daec-4fe9-aed9-3cd19b7a6192",
    ]
    first, second = result.conversations
    calls = [p.name for m in first.messages for p in m.parts if isinstance(p, ToolCall)]
    assert calls == ["shell", "shell", "apply_patch", "shell", "shell", "shell", "shell"]
    # The prompt is rebuilt from the keys typed before Enter (line 51), some typed before the
    # session was configured (line 37).
    request = first.messages[0]
    assert (request.line, request.from_person) == (51, True)
    assert request.parts[0].text == "complete the merge"
    # The second prompt's keys are not in the sample: an empty message of the person's marks
    # where its turn starts, at its task_started line.
    assert (second.messages[0].line, second.messages[0].from_person, second.messages[0].parts) == (
        114,
        True,
        [],
    )
    replies = [
        p.text
        for m in first.messages
        if m.role == "assistant"
        for p in m.parts
        if isinstance(p, TextPart)
    ]
    assert replies[-1].startswith("I resolved the Rust-side merge conflict")


def test_exit_code_minus_one_is_a_failure_whose_reason_is_in_stderr():
    results = results_of(SAMPLE)
    assert results["call_FcgERRxr3Nze61sObylEGnl7"].is_error is False
    denied = results["call_0NAFu5RlY793uhryVYJyY0Os"]  # the sandbox refused the lock
    assert (denied.is_error, denied.content_key, denied.flag_key) == (True, "stderr", "exit_code")
    assert "error: failed to bind TCP listener" in denied.content
    timed_out = results["call_KOxVodT3X5ci7LJmudvcovhW"]
    assert (timed_out.is_error, timed_out.content) == (True, "error: command timed out")
    patch = results["call_EO9UiD328QHhrmXeFYJ2GDZq"]
    assert (patch.is_error, patch.flag_key) == (False, "success")


def test_failed_runs_that_were_run_again_are_recovered(rows_of):
    rows = rows_of(SAMPLE)
    failed = {k: r for k, r in rows.items() if r["outcome"] == "tool_error"}
    assert sorted(failed) == [
        "call_0NAFu5RlY793uhryVYJyY0Os",
        "call_KOxVodT3X5ci7LJmudvcovhW",
        "call_gWz8Sv50T4wCfh4zfz0iWhqu",
    ]
    assert failed["call_KOxVodT3X5ci7LJmudvcovhW"]["evidence"] == "error: command timed out"
    assert failed["call_KOxVodT3X5ci7LJmudvcovhW"]["evidence_pointer"] == "/payload/msg/exit_code"
    assert all(row["finding"] is None for row in rows.values())


def test_the_screen_keys_and_copies_are_passed_over_and_every_line_is_accounted_for():
    result = read_file(SAMPLE, str(SAMPLE))
    passed = result.passed_over
    assert passed[SCREEN] == 40
    assert passed["codex tui key press that typed no prompt"] == 16  # releases, /new, Ctrl-C
    assert passed["codex tui event without conversation content: agent_message_delta"] == 1
    assert passed["codex tui event without conversation content: exec_approval_request"] == 2
    assert passed["codex tui op without conversation content: exec_approval"] == 2
    lines = sum(1 for text in SAMPLE.read_text(encoding="utf-8").splitlines() if text.strip())
    read = {m.line for c in result.conversations for m in c.messages}
    prompt_keys = 18  # "complete the merge", each key pressed once; Enter is the message's line
    assert len(read) + prompt_keys + sum(passed.values()) == lines


# ----------------------------------------------------------------------------- built examples
def test_a_prompt_typed_with_backspace_is_rebuilt_and_one_moved_with_arrows_is_not(
    tmp_path: Path,
):
    fixed = typed("fix tha")
    fixed[-1:-1] = [line("key_event", event=key("Backspace")), *typed("e bug")[:-1]]
    moved = typed("run it")
    moved.insert(2, line("key_event", event=key("Left")))
    path = write_jsonl(
        tmp_path / "session.jsonl",
        [
            session(),
            *fixed,
            event("task_started"),
            event("agent_message", message="Fixed."),
            event("task_complete"),
            *moved,
            event("task_started"),
        ],
    )
    result = read_file(path, str(path))
    texts = [
        "".join(p.text for p in m.parts if isinstance(p, TextPart))
        for m in result.conversations[0].messages
        if m.from_person
    ]
    assert texts == ["fix the bug", ""]


def test_an_mcp_tool_call_of_the_tui_is_read_with_its_error_flag(tmp_path: Path):
    invocation = {"server": "linear", "tool": "update_issue", "arguments": {"id": "BILL-88"}}
    error = {"content": [{"type": "text", "text": "Issue not found"}], "isError": True}
    path = write_jsonl(
        tmp_path / "session.jsonl",
        [
            session(),
            event("task_started"),
            event("mcp_tool_call_begin", call_id="call_1", invocation=invocation),
            event("mcp_tool_call_end", call_id="call_1", result={"Ok": error}),
            event("mcp_tool_call_begin", call_id="call_2", invocation=invocation),
            event("mcp_tool_call_end", call_id="call_2", result={"Err": "tool call timed out"}),
            event("agent_message", message="Updated BILL-88."),
        ],
    )
    result = read_file(path, str(path))
    parts = [p for m in result.conversations[0].messages for p in m.parts]
    calls = [p for p in parts if isinstance(p, ToolCall)]
    assert [(c.name, c.server, c.arguments) for c in calls] == [
        ("update_issue", "linear", {"id": "BILL-88"})
    ] * 2
    results = results_of(path)
    assert (results["call_1"].is_error, results["call_2"].is_error) == (True, True)
    assert scan([path]).calls["finding"].to_list().count("false_success") >= 1


def test_a_line_without_a_kind_is_rejected_with_its_line(tmp_path: Path):
    path = write_jsonl(tmp_path / "session.jsonl", [session(), {"ts": "x", "dir": "to_tui"}])
    result = read_file(path, str(path), "codex_tui")
    assert [(r.line, r.reason) for r in result.rejects] == [(2, "TUI record without a kind")]


# ----------------------------------------------------------------------------- detection
def test_other_samples_are_not_taken_for_tui_recordings():
    others = [
        sample
        for name in READERS
        if name != "codex_tui" and (HERE.parent / name).is_dir()
        for sample in (HERE.parent / name).iterdir()
        if sample.is_file() and sample.suffix != ".py"
    ]
    assert others and all(detect(sample).NAME != "codex_tui" for sample in others)


@pytest.mark.skipif(not (REAL / "codex-tui-session-log").is_dir(), reason="no real-more corpus")
def test_the_real_recording_is_read_whole():
    path = REAL / "codex-tui-session-log" / "binary-size-log.jsonl"
    assert detect(path).NAME == "codex_tui"
    result = scan([path])
    assert result.rejects.height == 0
    assert result.calls.height == 32
    assert result.calls.filter(result.calls["outcome"] == "tool_error").height == 4
    passed = result.summary()["passed_over_by_reason"]
    assert passed[SCREEN] == 19919
