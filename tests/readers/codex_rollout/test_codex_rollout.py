"""Codex CLI / Desktop rollouts: calls paired by call_id, failures read from the output's own
header, from apply_patch's JSON-string metadata and from exec_command_end, the exit code of a
command polled through write_stdin given to the command, event_msg repeats passed over."""

import json
from pathlib import Path
from typing import Any

import pytest
from builders import write_jsonl

from auditor import scan
from auditor.model import TextPart, ToolResult
from auditor.readers import READERS, detect, read_file

HERE = Path(__file__).parent
REAL = Path(__file__).resolve().parents[4] / "shared" / "corpus" / "real-more"
CLI = HERE / "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
DESKTOP = HERE / "rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl"
RESUMED = HERE / "rollout-2026-02-23T12-47-42-019c8a53-a0dd-7130-bcd7-95445d84846a.jsonl"
COMPACTED = HERE / "rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"


def results_of(path: Path) -> dict[str, ToolResult]:
    result = read_file(path, str(path))
    return {
        part.call_id: part
        for conversation in result.conversations
        for message in conversation.messages
        for part in message.parts
        if isinstance(part, ToolResult)
    }


def people(path: Path) -> list[tuple[int, str]]:
    """(line, text) of the messages the reader gave to the person."""
    result = read_file(path, str(path))
    return [
        (message.line, "".join(p.text for p in message.parts if isinstance(p, TextPart)))
        for message in result.conversations[0].messages
        if message.from_person
    ]


# ----------------------------------------------------------------------------- record builders
def record(kind: str, **payload: Any) -> dict:
    return {"timestamp": "2026-05-11T08:33:05.074Z", "type": kind, "payload": payload}


def meta(session: str = "019e-test") -> dict:
    return record("session_meta", id=session, cwd="/repo", originator="codex-tui")


def asked(text: str) -> list[dict]:
    """A prompt as Codex writes it: the user item, then its user_message event."""
    item = record(
        "response_item",
        type="message",
        role="user",
        content=[{"type": "input_text", "text": text}],
    )
    return [item, record("event_msg", type="user_message", message=text)]


def said(text: str) -> dict:
    content = [{"type": "output_text", "text": text}]
    return record("response_item", type="message", role="assistant", content=content)


def runs(call_id: str, name: str, **arguments: Any) -> dict:
    arguments_text = json.dumps(arguments)
    return record(
        "response_item", type="function_call", name=name, arguments=arguments_text, call_id=call_id
    )


def answers(call_id: str, output: Any) -> dict:
    return record("response_item", type="function_call_output", call_id=call_id, output=output)


def unified(body: str = "", exited: int | None = None, session: int | None = None) -> str:
    state = (
        f"Process exited with code {exited}"
        if exited is not None
        else f"Process running with session ID {session}"
    )
    header = f"Chunk ID: 5a0c8d\nWall time: 1.0041 seconds\n{state}\nOriginal token count: 0"
    return f"{header}\nOutput:\n{body}"


# ----------------------------------------------------------------------------- the real rollouts
def test_a_cli_rollout_pairs_its_calls_and_reads_the_person_from_user_message_events(calls_of):
    assert detect(CLI).NAME == "codex_rollout"
    result = read_file(CLI, str(CLI))
    assert result.rejects == []
    session = "019e1625-789d-76c0-80ab-3724b5ddb799"
    assert [c.id for c in result.conversations] == [session]
    assert result.conversations[0].metadata["originator"] == "codex-tui"
    assert [name for _, _, name in calls_of(result)] == [
        "write_stdin",
        "exec_command",
        "write_stdin",
        "exec_command",
        "write_stdin",
        "apply_patch",
    ]
    # The AGENTS.md instructions and the environment context are user items no user_message
    # event repeats: the host's, not the person's.
    assert people(CLI) == [
        (4, "show tools"),
        (11, "let's update the defailt context compart to 90 in env var"),
    ]


def test_event_msg_copies_and_records_without_conversation_are_passed_over_and_counted():
    result = read_file(CLI, str(CLI))
    assert result.passed_over == {
        "codex rollout record without conversation content: session_meta": 1,
        "codex rollout event without conversation content: task_started": 2,
        "codex rollout event without conversation content: task_complete": 2,
        "codex rollout event without conversation content: web_search_end": 1,
        "codex rollout event repeating an item already read: user_message": 2,
        "codex rollout event repeating an item already read: agent_message": 2,
        "codex rollout event repeating an item already read: patch_apply_end": 1,
        "codex rollout item not audited: reasoning": 1,
        "codex rollout item not audited: web_search_call (a search run by the model provider; "
        "no output item is written)": 1,
    }
    assistant = [
        part.text
        for message in result.conversations[0].messages
        if message.role == "assistant"
        for part in message.parts
        if isinstance(part, TextPart)
    ]
    assert len(assistant) == 2  # the two agent_message events added no text of their own
    lines = sum(1 for line in CLI.read_text(encoding="utf-8").splitlines() if line.strip())
    read = {m.line for m in result.conversations[0].messages} | {
        r.line for r in results_of(CLI).values()
    }
    assert len(read) + sum(result.passed_over.values()) == lines


def test_a_command_polled_through_write_stdin_owns_the_exit_code_the_poll_brought_back():
    results = results_of(CLI)
    # exec_command answered "Process running with session ID 59181"; the write_stdin poll of
    # session 59181 answered "Process exited with code 2"; exec_command_end says the same.
    failed = results["call_NqXBF7JK4NH5M85YXgojxxmC"]
    assert failed.is_error is True
    assert (failed.line, failed.pointer, failed.flag_key) == (19, "/payload", "exit_code")
    assert failed.content.startswith("rg: node_modules/opencode-ai: No such file or directory")
    poll = results["call_6YhDEiPvTJjMNdn6h89qlZOC"]
    assert poll.is_error is False
    assert poll.content.startswith("rg: node_modules/opencode-ai")  # the header is not the text


def test_the_exit_code_of_exec_command_end_stands_when_it_comes_before_the_poll(rows_of):
    results = results_of(CLI)
    # rg found nothing: exec_command_end (line 22) says exit 1 before the poll (line 24) does.
    searched = results["call_wAmN401U7zKVZ9wF0d5rGwMP"]
    assert (searched.is_error, searched.line, searched.content) == (True, 22, "")
    assert results["call_niqqK8Zis60Tze83ulvh2F6Q"].is_error is False
    rows = rows_of(CLI)
    # A search that found nothing (exit 1, no output) did not fail; rg's exit 2 did.
    assert rows["call_wAmN401U7zKVZ9wF0d5rGwMP"]["outcome"] == "ok"
    assert rows["call_wAmN401U7zKVZ9wF0d5rGwMP"]["outcome_rule"] == (
        "flag-ignored:search-found-nothing"
    )
    assert rows["call_NqXBF7JK4NH5M85YXgojxxmC"]["outcome"] == "tool_error"
    assert rows["call_NqXBF7JK4NH5M85YXgojxxmC"]["evidence_pointer"] == "/payload/exit_code"
    assert rows["call_6YhDEiPvTJjMNdn6h89qlZOC"]["outcome"] == "ok"


def test_apply_patch_reports_its_exit_code_inside_a_json_string():
    patch = results_of(CLI)["call_0gOiGGSkJEBvvlrXtBn0xzwL"]
    assert patch.is_error is False
    assert (patch.content_key, patch.flag_key) == ("output/output", "output/metadata/exit_code")
    assert patch.content.startswith("Success. Updated the following files:")


def test_a_tool_handler_that_failed_says_so_in_its_own_words():
    # Ctrl-C sent to a session whose stdin was closed.
    refused = results_of(CLI)["call_T8WFc2EjJV2QZKr07SfDPwmE"]
    assert refused.is_error is True
    assert refused.content.startswith("write_stdin failed: stdin is closed")


def test_a_desktop_rollout_holds_the_prompt_only_in_user_message_events():
    assert detect(DESKTOP).NAME == "codex_rollout"
    result = read_file(DESKTOP, str(DESKTOP))
    assert result.rejects == []
    assert [line for line, _ in people(DESKTOP)] == [2]
    assert people(DESKTOP)[0][1].lstrip().startswith("# Files mentioned by the user")
    results = results_of(DESKTOP)
    sandboxed = results["call_3f7AXDMZ9PHz7zedrTO4twut"]  # ps | rg, exit 1
    assert (sandboxed.is_error, sandboxed.content) == (True, "zsh:1: operation not permitted: ps\n")
    browser = results["call_iV6paYYkxfzG4XQWzYDweH7L"]  # "Wall time / Output:" then blocks
    assert browser.is_error is None
    assert browser.content[0]["text"].startswith("Browser Use rejected this action")


def test_a_call_whose_output_was_never_written_has_no_result_and_a_resumed_session_goes_on():
    result = read_file(RESUMED, str(RESUMED))
    assert result.rejects == []
    results = results_of(RESUMED)
    assert "call_BpTazJ89W9PntRqGPwDNfwEY" not in results  # Codex Desktop restarted mid-call
    assert sorted(results) == ["call_IWxHJukFyM6cWKTVoPkXnmAq", "call_nqBRUEp2zf5Uy45BHPT82EIG"]
    assert all(r.is_error is None for r in results.values())  # redacted: no header to read
    # After the restart the host writes its instructions again; only the prompt is the person's.
    assert [line for line, _ in people(RESUMED)] == [6, 27]


def test_a_compacted_record_repeats_the_history_and_is_passed_over():
    result = read_file(COMPACTED, str(COMPACTED))
    assert result.rejects == []
    assert (
        result.passed_over["codex rollout compacted history (a summary repeating earlier messages)"]
        == 1
    )
    assert (
        result.passed_over["codex rollout event without conversation content: context_compacted"]
        == 1
    )
    # The prompt with an image: the user_message event repeats its first text.
    assert [line for line, _ in people(COMPACTED)] == [2]
    assert len(results_of(COMPACTED)) == 4


# ----------------------------------------------------------------------------- built examples
def test_the_failure_of_a_polled_command_is_the_commands_not_the_polls(tmp_path: Path, rows_of):
    path = write_jsonl(
        tmp_path / "rollout-test.jsonl",
        [
            meta(),
            *asked("run the tests"),
            runs("call_test", "exec_command", cmd="npm test"),
            answers("call_test", unified(session=83395)),
            runs("call_poll", "write_stdin", session_id=83395, chars=""),
            answers("call_poll", unified("Tests: 1 failed, 41 passed\n", exited=1)),
            said("All tests pass."),
        ],
    )
    rows = rows_of(path)
    assert rows["call_test"]["outcome"] == "tool_error"
    assert rows["call_test"]["finding"] == "false_success"
    assert rows["call_test"]["line"] == 7  # where the exit code was written
    assert rows["call_poll"]["outcome"] == "ok"
    assert rows["call_poll"]["finding"] is None


def test_the_shell_tools_exit_code_header_and_json_string_output_are_read(tmp_path: Path):
    path = write_jsonl(
        tmp_path / "rollout-shell.jsonl",
        [
            meta(),
            *asked("build it"),
            runs("call_a", "shell", command=["bash", "-lc", "make"]),
            answers("call_a", "Exit code: 2\nWall time: 0.4 seconds\nOutput:\nmake: *** Error 2\n"),
            runs("call_b", "shell", command=["bash", "-lc", "ls"]),
            answers("call_b", json.dumps({"output": "a\nb\n", "metadata": {"exit_code": 0}})),
            runs("call_c", "apply_patch", input="*** Begin Patch"),
            answers("call_c", "apply_patch verification failed: Failed to find expected lines"),
        ],
    )
    results = results_of(path)
    assert (results["call_a"].is_error, results["call_a"].content) == (
        True,
        "make: *** Error 2\n",
    )
    assert (results["call_b"].is_error, results["call_b"].content) == (False, "a\nb\n")
    assert results["call_c"].is_error is True


def test_without_user_message_events_user_items_are_the_persons_but_the_hosts_context(
    tmp_path: Path,
):
    context = "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"
    item = asked(context)[0]
    path = write_jsonl(
        tmp_path / "rollout-old.jsonl", [meta(), item, asked("fix the bug")[0], said("Fixed.")]
    )
    assert people(path) == [(3, "fix the bug")]


def test_a_record_that_is_not_a_rollout_record_is_rejected_with_its_line(tmp_path: Path):
    path = write_jsonl(tmp_path / "rollout-bad.jsonl", [meta(), ["not", "a", "record"]])
    path.write_text(path.read_text() + '{"timestamp": "x", "type": "response_item"}\n')
    result = read_file(path, str(path))
    assert [(r.line, r.reason) for r in result.rejects] == [
        (2, "rollout record is not an object"),
        (3, "rollout record without a payload object"),
    ]


# ----------------------------------------------------------------------------- detection
def test_rollouts_are_not_taken_for_other_formats_and_other_samples_are_not_taken_for_rollouts():
    for path in (CLI, DESKTOP, RESUMED, COMPACTED):
        assert detect(path).NAME == "codex_rollout"
    others = [
        sample
        for name in READERS
        if name != "codex_rollout" and (HERE.parent / name).is_dir()
        for sample in (HERE.parent / name).iterdir()
        if sample.is_file() and sample.suffix != ".py"
    ]
    assert others and all(detect(sample).NAME != "codex_rollout" for sample in others)


@pytest.mark.skipif(not (REAL / "codex-rollout").is_dir(), reason="no real-more corpus")
def test_every_real_rollout_is_read_whole():
    files = sorted((REAL / "codex-rollout").glob("*.jsonl"))
    files += sorted((REAL / "codex-rollout-redacted").glob("*.jsonl"))
    assert len(files) == 8
    result = scan(files)
    assert result.rejects.height == 0
    assert result.calls.height == 877  # 140 + 737, two of them without an output
    failed = result.calls.filter(result.calls["outcome"] == "tool_error")
    # rg exit 2, the failing test run, the sandboxed ps, and write_stdin's own refusal; the
    # two searches that found nothing (exit 1) are not failures.
    assert sorted(failed["tool_name"]) == ["exec_command"] * 3 + ["write_stdin"]
