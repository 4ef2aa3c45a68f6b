"""OpenHands (V0) event streams: evaluation records whose ``history`` is the event stream (2025
events paired by ``cause``, the 2024-11 resolver's flattened events paired by position, the
2024-05 ``[action, observation]`` pairs), and saved event arrays."""

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from auditor import load_rules, scan
from auditor.audit.pairing import lay_out
from auditor.model import TextPart, ToolCall, ToolResult
from auditor.readers import READERS, Span, detect, read_file
from auditor.readers.openhands import EMPTY_HISTORY, INVALID_CALL

HERE = Path(__file__).parent
EVALUATION = HERE / "multi_swe_bench__examples__output.jsonl"
RESOLVER = HERE / "resolver__mock_output__output.jsonl"
LEGACY = HERE / "legacy-2024__logic_reasoning_ProntoQA__output.jsonl"
GUI_SESSION = HERE / "trajs__basic_gui_mode.json"
REAL = Path("/work/shared/corpus/real-more/openhands-v0")


def parts(conversation, kind):
    return [p for m in conversation.messages for p in m.parts if isinstance(p, kind)]


def results_by_call(path: Path) -> dict[str, ToolResult]:
    result = read_file(path, path.name)
    return {r.call_id: r for c in result.conversations for r in parts(c, ToolResult)}


# ----------------------------------------------------------------------------- pairing
def test_an_evaluation_record_is_one_conversation_and_observations_answer_by_cause(calls_of):
    result = read_file(EVALUATION, EVALUATION.name)
    assert [c.id for c in result.conversations] == ["ponylang__ponyc-4593", "ponylang__ponyc-4588"]
    assert calls_of(result) == [
        ("ponylang__ponyc-4593", "toolu_02", "execute_bash"),
        ("ponylang__ponyc-4593", "toolu_08", "execute_bash"),
        ("ponylang__ponyc-4593", "error-29", INVALID_CALL),
        ("ponylang__ponyc-4588", "toolu_09", "think"),
        ("ponylang__ponyc-4588", "toolu_25", "str_replace_editor"),
        ("ponylang__ponyc-4588", "error-55", INVALID_CALL),
    ]
    first = result.conversations[0]
    # The observation with ``cause: 7`` answers the action with ``id: 7`` (toolu_02).
    answer = next(r for r in parts(first, ToolResult) if r.call_id == "toolu_02")
    assert answer.pointer == "/history/5"
    assert answer.content == "ls: cannot access 'src/lib': No such file or directory"
    # The arguments are those the model sent.
    call = next(c for c in parts(first, ToolCall) if c.id == "toolu_08")
    assert call.arguments == {"command": 'grep -r "CommandParser" src'}
    assert first.metadata["model"] == "openai/openrouter-llama-4-maverick"


def test_the_2024_resolver_history_pairs_each_observation_with_the_action_before_it(calls_of):
    result = read_file(RESOLVER, RESOLVER.name)
    (conversation,) = result.conversations
    assert conversation.id == "neubig/pr-viewer#5"
    assert calls_of(result) == [
        ("neubig/pr-viewer#5", "history-1", "execute_bash"),
        ("neubig/pr-viewer#5", "history-3", "execute_ipython_cell"),
        ("neubig/pr-viewer#5", "history-5", "execute_bash"),
    ]
    answers = {r.call_id: r for r in parts(conversation, ToolResult)}
    assert answers["history-1"].pointer == "/history/2"
    assert (answers["history-1"].is_error, answers["history-1"].flag_key) == (False, "exit_code")
    assert answers["history-3"].is_error is None  # IPython cells record no exit status


def test_the_2024_pairs_give_each_action_its_observation_and_null_means_none(calls_of):
    result = read_file(LEGACY, LEGACY.name)
    assert calls_of(result) == [
        ("ProntoQA_1", "event-3", "execute_ipython_cell"),
        ("ProntoQA_1", "event-5", "execute_ipython_cell"),
    ]
    answers = {r.call_id: r for r in parts(result.conversations[0], ToolResult)}
    assert answers["event-5"].pointer == "/history/2/1"
    assert answers["event-5"].content == "'A'"
    assert result.passed_over == {
        "openhands event without conversation content: observation null": 4,
        "openhands event without conversation content: action finish without text": 1,
    }


def test_a_saved_event_array_is_one_conversation_named_after_its_file():
    result = read_file(GUI_SESSION, GUI_SESSION.name)
    (conversation,) = result.conversations
    assert conversation.id == "trajs__basic_gui_mode"
    server = parts(conversation, ToolResult)[-1]
    assert server.pointer == "/10"
    assert server.line == conversation.messages[-2].line > conversation.line


def test_a_pretty_printed_record_or_an_array_of_records_reads_as_the_jsonl_does(
    tmp_path: Path, write_json, calls_of
):
    records = [json.loads(line) for line in EVALUATION.read_text().splitlines()]
    single = write_json(tmp_path / "ponyc-4593.json", records[0])
    several = write_json(tmp_path / "output.json", records)
    assert detect(single).NAME == detect(several).NAME == "openhands"
    whole = calls_of(read_file(EVALUATION, EVALUATION.name))
    assert calls_of(read_file(single, single.name)) == whole[:3]
    from_array = read_file(several, several.name)
    assert calls_of(from_array) == whole
    answer = next(r for r in parts(from_array.conversations[1], ToolResult))
    assert answer.pointer == "/1/history/1"


# ----------------------------------------------------------------------------- failure signals
def test_a_non_zero_exit_code_fails_but_grep_finding_nothing_does_not():
    answers = results_by_call(EVALUATION)
    failed = answers["toolu_02"]  # ls src/lib: exit 2
    assert (failed.is_error, failed.flag_key) == (True, "extras/metadata/exit_code")
    assert answers["toolu_08"].is_error is False  # grep -r ... src: exit 1, no match


def test_an_error_observation_that_answers_no_action_is_a_call_that_failed():
    answers = results_by_call(EVALUATION)
    error = answers["error-29"]
    assert (error.is_error, error.flag_key) == (True, "observation")
    assert error.content.startswith("Parameter 'command' is expected to be one of")


def test_a_server_still_running_has_no_exit_status_and_no_verdict():
    answers = results_by_call(GUI_SESSION)
    server = answers["toolu_01DwihWr4ooPZS1CGTLAWrFP"]  # python3 -m http.server: exit -1
    assert server.is_error is None
    assert server.content.startswith("Serving HTTP on 0.0.0.0 port 8000")


def test_the_outcomes_follow_the_formats_own_signals(rows_of):
    rows = rows_of(EVALUATION)
    assert rows["toolu_02"]["outcome"] == "tool_error"
    assert rows["toolu_02"]["evidence_pointer"] == "/history/5/extras/metadata/exit_code"
    assert rows["toolu_08"]["outcome"] == "ok"
    assert rows["error-29"]["outcome"] == "tool_error"
    # The editor's refusal has no flag; its "ERROR:" text is read by the outcome rules.
    assert rows["toolu_25"]["outcome"] == "error_payload"
    assert rows_of(GUI_SESSION)["toolu_01DwihWr4ooPZS1CGTLAWrFP"]["outcome"] == "ok"


# ----------------------------------------------------------------------------- texts
def test_texts_are_the_system_prompt_the_persons_request_and_what_the_agent_said():
    result = read_file(EVALUATION, EVALUATION.name)
    first = result.conversations[0]
    roles = [(m.role, m.from_person) for m in first.messages if m.role in ("system", "user")]
    assert roles == [("system", False), ("user", True)]
    said = [
        p.text
        for m in first.messages
        if m.role == "assistant"
        for p in m.parts
        if isinstance(p, TextPart)
    ]
    assert said[0].startswith("The repository is a Pony language project")
    # ``finish`` is no call: its thought and its message close the conversation.
    assert said[-2].startswith("It seems that I am unable to make the necessary changes")
    assert said[-1].startswith("Unable to make necessary changes to the file")


def test_a_think_call_keeps_its_thought_as_the_argument_and_the_responses_text_as_text():
    second = read_file(EVALUATION, EVALUATION.name).conversations[1]
    think = next(m for m in second.messages if any(isinstance(p, ToolCall) for p in m.parts))
    text, call = think.parts
    assert text.text.startswith("The `make_pattern_type` function is crucial")
    assert call.arguments["thought"].startswith("To fix the incorrect aliasing of `iso`")


def test_the_instruction_is_the_request_when_the_history_holds_no_user_message():
    second = read_file(EVALUATION, EVALUATION.name).conversations[1]
    request = second.messages[0]
    assert request.role == "user" and request.from_person
    assert request.parts[0].text.startswith("<uploaded_files>")


def test_the_evaluations_automatic_continue_reply_is_the_hosts_not_a_new_turn():
    conversation = read_file(LEGACY, LEGACY.name).conversations[0]
    continues = [m for m in conversation.messages if m.role == "user"][-1]
    assert continues.parts[0].text.startswith("Please continue working on the task")
    _, _, requests, _ = lay_out(conversation, load_rules().host_written)
    assert list(requests) == [0]


# ----------------------------------------------------------------------------- passed over
def test_events_without_conversation_content_are_passed_over_and_counted():
    result = read_file(GUI_SESSION, GUI_SESSION.name)
    assert result.passed_over == {
        "openhands event without conversation content: observation agent_state_changed": 4,
        "openhands event without conversation content: action change_agent_state": 1,
        "openhands event without conversation content: observation null": 3,
    }
    assert read_file(EVALUATION, EVALUATION.name).passed_over == {
        "openhands event without conversation content: action recall": 1,
        "openhands event without conversation content: observation recall": 1,
    }


def test_bad_lines_and_unanswerable_observations_are_rejected_with_their_line(tmp_path: Path):
    record = json.loads(EVALUATION.read_text().splitlines()[0])
    stray = dict(record, instance_id="stray")
    stray["history"] = [e for e in record["history"] if e.get("cause") != 2 and e.get("id") != 7]
    lines = [json.dumps(record), '{"history": [', json.dumps({"instance_id": "x"})]
    lines += [json.dumps(dict(record, instance_id="empty", history=[])), json.dumps(stray)]
    path = tmp_path / "output.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = read_file(path, "output.jsonl", "openhands")
    assert [(r.line, r.reason.split(":")[0]) for r in result.rejects] == [
        (2, "malformed JSON"),
        (3, "not an OpenHands evaluation record (no history)"),
        (5, "observation run answers no known action at /history/3"),
    ]
    assert result.passed_over[EMPTY_HISTORY] == 1
    assert [c.id for c in result.conversations] == ["ponylang__ponyc-4593", "stray"]


def test_a_large_file_read_in_spans_gives_the_same_conversations():
    whole = read_file(EVALUATION, EVALUATION.name)
    first, _ = EVALUATION.read_bytes().split(b"\n", 1)
    spans = [
        Span(0, len(first) + 1, 1),
        Span(len(first) + 1, EVALUATION.stat().st_size, 2),
    ]
    parts_read = [read_file(EVALUATION, EVALUATION.name, "openhands", span) for span in spans]
    assert [c.id for r in parts_read for c in r.conversations] == [
        c.id for c in whole.conversations
    ]
    assert [asdict(c) for r in parts_read for c in r.conversations] == [
        asdict(c) for c in whole.conversations
    ]


# ----------------------------------------------------------------------------- detection
@pytest.mark.skipif(not REAL.is_dir(), reason="the real-more corpus is not on this machine")
def test_every_real_openhands_v0_file_is_detected_and_read_without_rejects():
    for path in sorted(REAL.glob("*.json*")):
        assert detect(path).NAME == "openhands", path.name
        result = read_file(path, path.name)
        assert result.conversations and not result.rejects, path.name


def test_the_other_formats_samples_are_not_taken_for_openhands():
    for folder in HERE.parent.iterdir():
        if not folder.is_dir() or folder.name in ("openhands", "openhands_sdk"):
            continue
        if folder.name not in READERS:
            continue
        for sample in folder.iterdir():
            if sample.is_file() and sample.suffix != ".py":
                found = detect(sample)
                assert found is None or folder.name == found.NAME, sample.name


def test_a_legacy_record_with_a_messages_list_is_not_taken_for_a_chat():
    assert detect(LEGACY).NAME == "openhands"
    assert scan([LEGACY]).calls["format"].unique().to_list() == ["openhands"]
