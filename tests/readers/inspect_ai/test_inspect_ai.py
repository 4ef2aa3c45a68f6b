"""Inspect AI eval logs: ``.json`` logs and ``.eval`` zip archives with zstd members, one
conversation per sample and epoch, and the tool message's ``error`` as the failure flag."""

import json
from pathlib import Path
from typing import Any

from inspect_archive import eval_archive

from auditor import scan
from auditor.readers import detect, read_file
from auditor.readers.inspect_ai import HEADER, MEMBER, NO_CALL

HERE = Path(__file__).parent
VITALS = HERE / "2025-04-07T11-00-30-05-00_arithmetic-with-tool.json"
DECODER = HERE / "ais-decoder.eval"
SCHEMA = HERE / "SYNTHETIC-schema-sample__inspect_ai__log_tool_call_error.json"


def inspect_call(call_id: str, function: str, **arguments: Any) -> dict:
    return {"id": call_id, "function": function, "arguments": arguments}


def inspect_tool(call_id: str, content: str, error: dict | None = None) -> dict:
    return {"role": "tool", "tool_call_id": call_id, "content": content, "error": error}


def inspect_sample(*messages: dict, sample_id: int = 1, epoch: int = 1, **fields: Any) -> dict:
    return (
        {"id": sample_id, "epoch": epoch, "input": "Email the report to Dana."}
        | fields
        | {"messages": list(messages)}
    )


def inspect_log(*samples: dict) -> dict:
    return {
        "version": 2,
        "status": "success",
        "eval": {"eval_id": "E1", "run_id": "R1", "task": "mail", "model": "openai/gpt-4o"},
        "plan": {"name": "plan", "steps": []},
        "results": {"total_samples": len(samples)},
        "samples": list(samples),
    }


def emailing(
    error: dict | None, content: str = "", reply: str = "I've emailed Dana the report."
) -> dict:
    return inspect_sample(
        {"role": "user", "content": "Email the report to Dana.", "source": "input"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [inspect_call("call_1", "send_email", to="dana@example.com")],
        },
        inspect_tool("call_1", content, error),
        {"role": "assistant", "content": [{"type": "text", "text": reply}]},
    )


# ----------------------------------------------------------------------------- .json logs
def test_a_json_log_gives_one_conversation_per_sample_with_its_calls(calls_of, flags_of):
    assert detect(VITALS).NAME == "inspect_ai"
    result = read_file(VITALS, str(VITALS))
    assert result.rejects == []
    first, second = "ApGoCyXf7fWxJkFXQjTVrn/1/epoch-1", "ApGoCyXf7fWxJkFXQjTVrn/2/epoch-1"
    assert calls_of(result) == [
        (first, "toolu_01TvytXPBf8KYNXD9ZGLmYoR", "take_sum"),
        (second, "toolu_017hineEqhRhWEDQFPvftdUU", "take_sum"),
    ]
    assert flags_of(result) == {
        "toolu_01TvytXPBf8KYNXD9ZGLmYoR": False,  # error: null
        "toolu_017hineEqhRhWEDQFPvftdUU": False,
    }
    conversation = result.conversations[0]
    assert conversation.metadata == {
        "task": "arithmetic_with_tool",
        "model": "anthropic/claude-3-5-sonnet-latest",
        "sample_id": 1,
        "epoch": 1,
        "score": "C",
    }
    request, call, answer, reply = conversation.messages
    assert request.from_person and request.parts[0].text == "What's 71+31?"
    assert call.parts[0].text.startswith("I'll help you calculate the sum")
    assert call.parts[1].arguments == {"x": 71, "y": 31}
    assert answer.parts[0].content == "102"
    assert reply.parts[0].text == "71 + 31 = 102"
    # Each sample's line is where it starts in the log, and the header is counted once.
    assert [c.line for c in result.conversations] == [73, 139]
    assert result.passed_over == {HEADER: 1}


def test_each_epoch_of_a_sample_is_a_conversation_of_its_own(tmp_path: Path, write_json):
    log = inspect_log(emailing(None, "sent"), emailing(None, "sent") | {"epoch": 2})
    result = read_file(write_json(tmp_path / "mail.json", log), "mail.json")
    assert [c.id for c in result.conversations] == ["E1/1/epoch-1", "E1/1/epoch-2"]


# ----------------------------------------------------------------------------- .eval archives
def test_an_eval_archive_is_read_through_its_zstd_members(calls_of, flags_of):
    assert detect(DECODER).NAME == "inspect_ai"
    result = read_file(DECODER, str(DECODER))
    assert result.rejects == []
    (conversation,) = result.conversations
    assert conversation.id == "ADiQnZpkmYKEmk8AGpYKPu/1/epoch-1"
    assert conversation.metadata["member"] == "samples/1_epoch_1.json"
    assert conversation.metadata["score"] == "I"
    names = [name for _, _, name in calls_of(result)]
    assert names == ["exec_command"] * 5
    # The members that are not samples are counted, each by what it is.
    assert result.passed_over == {
        MEMBER.format("journal"): 2,
        MEMBER.format("summaries"): 1,
        MEMBER.format("reductions"): 1,
        MEMBER.format("header"): 1,
    }
    # The harness's environment context is a user message, but the request is the input.
    users = [m for m in conversation.messages if m.role == "user"]
    assert [u.from_person for u in users] == [False, True]
    assert (
        users[1].parts[0].text == "Write a Nodes.js Typescript utility that decodes AIS messages."
    )
    # `npm install` exited 127 with `error: null`: the flag says nothing, the text is kept for
    # the outcome rules.
    npm = "call_JywWmbTeofa4hj4j74EIT8tD"
    assert flags_of(result)[npm] is False
    rows = {r["tool_call_id"]: r for r in scan([DECODER]).calls.iter_rows(named=True)}
    assert rows[npm]["outcome_rule"] != "flagged-error"


def test_an_archive_with_stored_members_and_attachments_is_read(tmp_path: Path):
    sample = emailing({"type": "permission", "message": "attachment://a1"})
    sample["attachments"] = {"a1": "Permission denied: mail relay refuses dana@example.com"}
    members = {
        "header.json": json.dumps({"version": 2, "eval": {"eval_id": "E9", "task": "t"}}).encode(),
        "samples/1_epoch_1.json": json.dumps(sample).encode(),
    }
    path = tmp_path / "run.eval"
    path.write_bytes(eval_archive(members, method=0))
    result = read_file(path, str(path))
    assert result.rejects == []
    answer = result.conversations[0].messages[2].parts[0]
    assert answer.is_error is True
    assert answer.content == "Permission denied: mail relay refuses dana@example.com"


def test_a_damaged_sample_member_is_a_reject_that_names_it(tmp_path: Path):
    good = json.dumps(emailing(None, "sent")).encode()
    archive = eval_archive(
        {"samples/1_epoch_1.json": good, "samples/2_epoch_1.json": good[: len(good) // 2]}
    )
    path = tmp_path / "cut.eval"
    path.write_bytes(archive)
    result = read_file(path, str(path))
    assert [c.id for c in result.conversations] == ["cut.eval/1/epoch-1"]
    (reject,) = result.rejects
    assert "samples/2_epoch_1.json" in reject.reason


# ----------------------------------------------------------------------------- failure signals
def test_every_tool_call_error_type_is_a_failure(tmp_path: Path, write_json, flags_of):
    kinds = ["parsing", "timeout", "unicode_decode", "permission", "file_not_found"]
    kinds += ["is_a_directory", "limit", "approval", "unknown", "output_limit"]
    messages: list[dict] = [{"role": "user", "content": "Run the checks.", "source": "input"}]
    for index, kind in enumerate(kinds):
        messages.append(
            {"role": "assistant", "content": "", "tool_calls": [inspect_call(f"c{index}", "bash")]}
        )
        messages.append(inspect_tool(f"c{index}", "", {"type": kind, "message": f"{kind} hit"}))
    result = read_file(
        write_json(tmp_path / "checks.json", inspect_log(inspect_sample(*messages))), "x"
    )
    assert set(flags_of(result).values()) == {True}
    # With no output of its own, the error's message is what came back.
    first = result.conversations[0].messages[2].parts[0]
    assert (first.content, first.content_key) == ("parsing hit", "error/message")


def test_a_flagged_failure_reported_as_done_is_a_false_success(tmp_path: Path, write_json, rows_of):
    denied = {"type": "permission", "message": "Permission denied: relay refuses external mail"}
    path = write_json(tmp_path / "mail.json", inspect_log(emailing(denied)))
    row = rows_of(path)["call_1"]
    assert (row["outcome"], row["outcome_rule"]) == ("tool_error", "flagged-error")
    assert row["evidence"] == "Permission denied: relay refuses external mail"
    assert row["evidence_pointer"] == "/samples/0/messages/2/error"
    assert row["finding"] == "false_success"


def test_the_synthetic_schema_sample_is_read_and_its_callless_results_counted(flags_of):
    result = read_file(SCHEMA, str(SCHEMA))
    assert result.rejects == []
    assert len(result.conversations) == 1
    # Its eleven tool messages (one per error type) have no assistant call to pair with.
    assert result.passed_over == {HEADER: 1, NO_CALL: 11}
    assert flags_of(result) == {}


# ----------------------------------------------------------------------------- detection
def test_an_inspect_log_too_long_for_the_sample_is_still_detected(tmp_path: Path):
    log = inspect_log(emailing(None, "x" * 400_000))
    path = tmp_path / "long.json"
    path.write_text(json.dumps(log, indent=2), encoding="utf-8")
    assert detect(path).NAME == "inspect_ai"
    compact = tmp_path / "compact.json"
    compact.write_text(json.dumps(log), encoding="utf-8")
    assert detect(compact).NAME == "inspect_ai"


def test_zip_archives_that_are_not_inspect_logs_are_not_claimed(tmp_path: Path):
    path = tmp_path / "bundle.zip"
    path.write_bytes(eval_archive({"report.txt": b"hello"}, method=0))
    found = detect(path)
    assert found is None or found.NAME != "inspect_ai"


def test_a_cut_or_corrupted_archive_costs_a_reject_not_the_scan(tmp_path: Path):
    whole = DECODER.read_bytes()
    cut = tmp_path / "cut.eval"
    cut.write_bytes(whole[: len(whole) // 2])
    (reject,) = read_file(cut, "cut.eval").rejects
    assert reject.reason.startswith("unreadable .eval archive")
    flipped = bytearray(whole)
    start = whole.index(b"samples/1_epoch_1.json") + len("samples/1_epoch_1.json") + 40
    flipped[start : start + 16] = bytes(16)
    damaged = tmp_path / "damaged.eval"
    damaged.write_bytes(bytes(flipped))
    result = read_file(damaged, "damaged.eval")
    assert result.conversations == []
    assert [r.reason.split(":")[0] for r in result.rejects] == [
        "unreadable .eval member samples/1_epoch_1.json"
    ]
