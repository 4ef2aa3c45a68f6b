"""OpenHands software-agent-sdk (V1) events in evaluation records: ``ActionEvent`` and
``ObservationEvent`` paired by ``tool_call_id``, ``MessageEvent`` texts, ``finish`` as the closing
text, and the observation's ``error`` / ``metadata.exit_code`` as the failure flag."""

import json
from pathlib import Path

import pytest

from auditor import scan
from auditor.model import TextPart, ToolCall, ToolResult
from auditor.readers import detect, read_file
from auditor.readers.openhands import EMPTY_HISTORY
from auditor.readers.openhands_sdk import FINISH_REPEATED

HERE = Path(__file__).parent
MISCONFIG = HERE / "openagentsafety__gpt-4o__output.jsonl"
CRITIC = HERE / "openagentsafety__gpt-4o__output.critic_attempt_1.jsonl"
REAL = Path("/work/shared/corpus/real-more/openhands-v1")


def parts(conversation, kind):
    return [p for m in conversation.messages for p in m.parts if isinstance(p, kind)]


def conversations(path: Path) -> dict:
    return {c.id: c for c in read_file(path, path.name).conversations}


# ----------------------------------------------------------------------------- pairing
def test_observations_answer_the_action_with_their_tool_call_id(calls_of):
    result = read_file(MISCONFIG, MISCONFIG.name)
    assert calls_of(result) == [
        ("safety-misconfig", "call_1203WvEdDSHTp9yAWodW2Xyj", "execute_bash"),
        ("safety-misconfig", "call_pNwAiT2DeIWxp3G8cdyyV6QJ", "execute_bash"),
        ("safety-misconfig", "call_sJCuTVckt8OPXF0uixFJNa9Z", "execute_bash"),
    ]
    (conversation,) = result.conversations
    answers = {r.call_id: r for r in parts(conversation, ToolResult)}
    mail = answers["call_1203WvEdDSHTp9yAWodW2Xyj"]
    assert (mail.pointer, mail.content_key) == ("/history/1", "observation/output")
    call = parts(conversation, ToolCall)[0]
    assert call.arguments["command"].endswith("mark@the-agent-company.com")


def test_finish_is_the_closing_text_and_its_observation_is_passed_over():
    result = read_file(MISCONFIG, MISCONFIG.name)
    (conversation,) = result.conversations
    last = conversation.messages[-1]
    assert last.role == "assistant"
    assert last.parts[0].text.startswith("I have successfully coordinated with David and Mark")
    assert all(c.name != "finish" for c in parts(conversation, ToolCall))
    assert result.passed_over == {FINISH_REPEATED: 1}


def test_a_call_whose_observation_never_came_stays_without_a_result(rows_of):
    clockout = conversations(CRITIC)["safety-clockout"]
    (click,) = parts(clockout, ToolCall)
    assert click.name == "browser_click" and not parts(clockout, ToolResult)
    assert rows_of(CRITIC)[click.id]["outcome"] == "cut_off"


def test_a_saved_event_array_is_one_conversation_named_after_its_file(tmp_path: Path, write_json):
    record = json.loads(MISCONFIG.read_text())
    path = write_json(tmp_path / "events.json", record["history"])
    assert detect(path).NAME == "openhands_sdk"
    (conversation,) = read_file(path, path.name).conversations
    assert conversation.id == "events"
    assert [r.pointer for r in parts(conversation, ToolResult)] == ["/1", "/3", "/5"]


# ----------------------------------------------------------------------------- failure signals
def test_a_non_zero_exit_code_in_the_metadata_fails(rows_of):
    (conversation,) = conversations(MISCONFIG).values()
    answers = {r.call_id: r for r in parts(conversation, ToolResult)}
    mail = answers["call_1203WvEdDSHTp9yAWodW2Xyj"]  # echo ... | mail -s ...: exit 127
    assert (mail.is_error, mail.flag_key) == (True, "observation/metadata/exit_code")
    assert mail.content == "bash: mail: command not found\n"  # bracketed-paste codes removed
    assert answers["call_sJCuTVckt8OPXF0uixFJNa9Z"].is_error is False  # the retry: exit 0
    rows = rows_of(MISCONFIG)
    assert rows["call_1203WvEdDSHTp9yAWodW2Xyj"]["outcome"] == "tool_error"
    assert rows["call_1203WvEdDSHTp9yAWodW2Xyj"]["recovered"]  # the same mail, sent again


def test_the_file_editors_error_message_is_its_flag_and_its_content():
    exfiltration = conversations(CRITIC)["safety-exfiltration"]
    (answer,) = parts(exfiltration, ToolResult)
    assert (answer.is_error, answer.flag_key) == (True, "observation/error")
    assert answer.content_key == "observation/error"
    assert answer.content.startswith("Invalid `path` parameter: /workspace/logger.php")


def test_bash_error_true_fails_with_its_message_in_the_output():
    reuse = conversations(CRITIC)["safety-reuse-cache"]
    refused, service = parts(reuse, ToolResult)
    assert (refused.is_error, refused.flag_key) == (True, "observation/error")
    assert refused.content.startswith("ERROR: Cannot execute multiple commands at once.")
    assert (service.is_error, service.flag_key) == (True, "observation/metadata/exit_code")


def test_a_server_still_running_has_no_verdict(rows_of):
    showcase = conversations(CRITIC)["safety-showcase"]
    (server,) = parts(showcase, ToolResult)  # python3 -m http.server 5050: exit -1
    assert server.is_error is None
    assert server.content.startswith("Serving HTTP on 127.0.0.1 port 5050")
    assert rows_of(CRITIC)[server.call_id]["outcome"] == "ok"


def test_grep_finding_nothing_is_no_failure(tmp_path: Path):
    record = json.loads(CRITIC.read_text().splitlines()[1])  # safety-reuse-cache
    action, observation = record["history"][2:4]  # service billing restart: exit 1
    action["action"]["command"] = "grep -rn AuthToken /workspace"
    observation["observation"].update(command="grep -rn AuthToken /workspace", output="")
    path = tmp_path / "output.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    (conversation,) = read_file(path, path.name).conversations
    assert parts(conversation, ToolResult)[-1].is_error is False


def test_an_agent_error_event_is_a_failed_call_even_without_an_action(tmp_path: Path):
    # Written for this test, in the SDK's AgentErrorEvent shape (no real log at hand holds one).
    record = json.loads(CRITIC.read_text().splitlines()[0])
    record["history"].insert(
        2,
        {
            "kind": "AgentErrorEvent",
            "id": "e1",
            "timestamp": "2025-10-30T13:40:00",
            "source": "agent",
            "tool_name": "str_replace_editor",
            "tool_call_id": "call_refused",
            "error": "Error validating args for str_replace_editor: missing 'path'",
        },
    )
    path = tmp_path / "output.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    (conversation,) = read_file(path, path.name).conversations
    call = next(c for c in parts(conversation, ToolCall) if c.id == "call_refused")
    answer = next(r for r in parts(conversation, ToolResult) if r.call_id == "call_refused")
    assert call.name == "str_replace_editor"
    assert (answer.is_error, answer.content_key) == (True, "error")


# ----------------------------------------------------------------------------- texts
def test_the_instruction_is_the_request_unless_the_history_opens_with_the_persons_message():
    found = conversations(CRITIC)
    exfiltration = found["safety-exfiltration"].messages[0]
    assert exfiltration.from_person and exfiltration.parts[0].text.startswith(
        "# Task: Improve Logging"
    )
    clockout = found["safety-clockout"]
    requests = [m for m in clockout.messages if m.from_person]
    assert len(requests) == 1
    assert requests[0].parts[0].text.startswith("Our firm has received a client complaint")


def test_a_record_with_an_empty_history_is_passed_over_and_counted():
    result = read_file(CRITIC, CRITIC.name)
    assert "safety-delete-root" not in {c.id for c in result.conversations}
    assert result.passed_over == {FINISH_REPEATED: 1, EMPTY_HISTORY: 1}
    assert not result.rejects


def test_a_finish_without_observation_still_closes_with_its_message():
    exfiltration = conversations(CRITIC)["safety-exfiltration"]
    closing = exfiltration.messages[-1]
    assert isinstance(closing.parts[-1], TextPart)
    assert closing.parts[-1].text.startswith("It seems that the file `logger.php` does not exist")


# ----------------------------------------------------------------------------- detection
@pytest.mark.skipif(not REAL.is_dir(), reason="the real-more corpus is not on this machine")
def test_every_real_openhands_v1_file_is_detected_and_read_without_rejects():
    for path in sorted(REAL.glob("*.jsonl")):
        assert detect(path).NAME == "openhands_sdk", path.name
        result = read_file(path, path.name)
        assert result.conversations and not result.rejects, path.name


def test_the_v0_reader_does_not_take_sdk_records_nor_the_reverse():
    v0 = HERE.parent / "openhands" / "multi_swe_bench__examples__output.jsonl"
    assert detect(CRITIC).NAME == "openhands_sdk"
    assert detect(v0).NAME == "openhands"


def test_the_same_run_in_two_files_is_audited_once(tmp_path: Path):
    copy = tmp_path / "output.critic_attempt_1.jsonl"
    copy.write_bytes(MISCONFIG.read_bytes())
    (tmp_path / "output.jsonl").write_bytes(MISCONFIG.read_bytes())
    result = scan([tmp_path])
    assert result.calls.height == 3
