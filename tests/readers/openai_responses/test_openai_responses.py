"""OpenAI Responses API items: function_call / function_call_output paired by call_id,
mcp_call items with their errors, and responses continued by previous_response_id."""

import json
from pathlib import Path

from builders import write_jsonl

from auditor import scan
from auditor.readers import detect, read_file

HERE = Path(__file__).parent


def said(text: str) -> dict:
    return {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def asked(text: str) -> dict:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def mcp_call(**fields) -> dict:
    item = {
        "type": "mcp_call",
        "id": "mcp_1",
        "server_label": "stripe",
        "name": "create_refund",
        "arguments": '{"order": "PO-88412"}',
        "output": None,
    }
    return item | fields


def response(*output: dict, request: str = "Refund PO-88412") -> dict:
    return {"id": "resp_1", "object": "response", "input": [asked(request)], "output": list(output)}


def test_the_responses_sample_gives_one_conversation_per_response(calls_of, flags_of):
    path = HERE / "responses.jsonl"
    assert detect(path).NAME == "openai_responses"
    result = read_file(path, str(path))
    assert result.rejects == []
    assert result.passed_over == {
        "OpenAI Responses item not audited: reasoning": 1,
        "OpenAI Responses item not audited: mcp_list_tools": 1,
    }
    assert calls_of(result) == [
        ("resp_68a1f0c2e4b08190a3", "call_UcLelUfczj9kxbnz", "update_ticket"),
        ("resp_68a2", "mcp_68a2a", "ask_questions"),
        ("resp_68a3", "mcp_68a3a", "post_message"),
        ("resp_68a4", "mcp_68a4a", "create_refund"),
        ("resp_68a5", "mcp_68a5a", "list_shipments"),
        ("responses.jsonl:6", "call_rtm", "warehouse_status"),
        ("responses.jsonl:6", "call_lys", "warehouse_status"),
    ]
    assert flags_of(result) == {
        "call_UcLelUfczj9kxbnz": None,
        "mcp_68a2a": None,
        "mcp_68a3a": True,
        "mcp_68a4a": True,
        "mcp_68a5a": None,
        "call_lys": None,
        "call_rtm": None,
    }


def test_a_response_object_line_is_detected_as_responses(tmp_path: Path):
    path = write_jsonl(tmp_path / "r.jsonl", [response(mcp_call(output="ok"), said("Done."))])
    assert detect(path).NAME == "openai_responses"


def test_a_list_of_items_and_an_input_only_line_are_detected(tmp_path: Path):
    items = [asked("hi"), {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}]
    assert detect(write_jsonl(tmp_path / "a.jsonl", [items])).NAME == "openai_responses"
    assert detect(write_jsonl(tmp_path / "b.jsonl", [{"input": items}])).NAME == "openai_responses"


def test_a_pretty_printed_response_document_is_read(tmp_path: Path, rows_of):
    path = tmp_path / "resp_1.json"
    error = {"type": "http_error", "code": 502, "message": "Bad Gateway"}
    document = response(mcp_call(status="failed", error=error), said("Refunded."))
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    assert detect(path).NAME == "openai_responses"
    row = rows_of(path)["mcp_1"]
    assert (row["outcome"], row["finding"], row["line"]) == ("transport_error", "false_success", 1)


def test_function_call_outputs_pair_by_call_id_not_by_id(tmp_path: Path, rows_of):
    items = [
        asked("Check both warehouses"),
        {
            "type": "function_call",
            "id": "fc_a",
            "call_id": "call_rtm",
            "name": "status",
            "arguments": '{"id": "RTM-2"}',
        },
        {
            "type": "function_call",
            "id": "fc_b",
            "call_id": "call_lys",
            "name": "status",
            "arguments": '{"id": "LYS-1"}',
        },
        {
            "type": "function_call_output",
            "id": "fc_a",
            "call_id": "call_lys",
            "output": '{"ok": false, "error": "warehouse_not_found"}',
        },
        {"type": "function_call_output", "call_id": "call_rtm", "output": '{"capacity": 0.82}'},
    ]
    rows = rows_of(write_jsonl(tmp_path / "r.jsonl", [items]))
    assert rows["call_rtm"]["outcome"] == "ok"
    assert rows["call_lys"]["outcome"] == "error_payload"
    assert rows["call_lys"]["evidence_pointer"] == "/3/output/ok"
    assert rows["call_lys"]["conversation_id"] == "r.jsonl:1"


def test_a_structured_mcp_protocol_error_came_back_instead_of_a_result(tmp_path: Path, rows_of):
    error = {"type": "mcp_protocol_error", "code": -32602, "message": "Unknown tool"}
    line = response(mcp_call(status="failed", error=error), said("Done, it's refunded."))
    row = rows_of(write_jsonl(tmp_path / "r.jsonl", [line]))["mcp_1"]
    assert (row["outcome"], row["evidence"]) == ("transport_error", "-32602: Unknown tool")
    assert (row["evidence_pointer"], row["server"]) == ("/output/0/error", "stripe")
    assert row["finding"] == "false_success"


def test_a_structured_tool_execution_error_is_the_tools_own_failure(tmp_path: Path, rows_of):
    error = {
        "type": "mcp_tool_execution_error",
        "content": [{"type": "text", "text": "Refund amount exceeds the captured charge"}],
    }
    line = response(mcp_call(status="failed", error=error), said("Done, the refund went through."))
    row = rows_of(write_jsonl(tmp_path / "r.jsonl", [line]))["mcp_1"]
    assert (row["outcome"], row["finding"]) == ("tool_error", "false_success")
    assert row["evidence"] == "Refund amount exceeds the captured charge"


def test_an_older_string_error_is_a_flagged_result(tmp_path: Path, rows_of):
    line = response(mcp_call(error="Error: charge not found"), said("I couldn't refund it."))
    row = rows_of(write_jsonl(tmp_path / "r.jsonl", [line]))["mcp_1"]
    assert (row["outcome"], row["claim"], row["finding"]) == ("tool_error", "failure", None)
    assert row["evidence_pointer"] == "/output/0/error"


def test_an_http_error_is_a_transport_error(tmp_path: Path, rows_of):
    error = {"type": "http_error", "code": 503, "message": "Service Unavailable"}
    line = response(mcp_call(status="failed", error=error))
    row = rows_of(write_jsonl(tmp_path / "r.jsonl", [line]))["mcp_1"]
    assert (row["outcome"], row["evidence"]) == ("transport_error", "503: Service Unavailable")


def test_a_failed_status_without_an_error_flags_the_result(tmp_path: Path, rows_of):
    line = response(mcp_call(status="failed", output="refund created"))
    row = rows_of(write_jsonl(tmp_path / "r.jsonl", [line]))["mcp_1"]
    assert (row["outcome"], row["evidence_pointer"]) == ("tool_error", "/output/0/status")


def test_an_mcp_call_still_in_progress_at_the_end_of_the_log_is_cut_off(tmp_path: Path, rows_of):
    line = response(mcp_call(status="in_progress"))
    row = rows_of(write_jsonl(tmp_path / "r.jsonl", [line]))["mcp_1"]
    assert (row["outcome"], row["outcome_rule"]) == ("cut_off", "log-ends")


def test_an_mcp_call_still_in_progress_when_the_reply_came_has_no_result(tmp_path: Path, rows_of):
    line = response(mcp_call(status="in_progress"), said("Refund issued."))
    row = rows_of(write_jsonl(tmp_path / "r.jsonl", [line]))["mcp_1"]
    assert (row["outcome"], row["outcome_rule"]) == ("transport_error", "no-result")


def test_responses_messages_give_the_request_and_the_reply(tmp_path: Path, rows_of):
    line = response(mcp_call(output='{"refund": "re_1", "status": "succeeded"}'), said("Done."))
    path = write_jsonl(tmp_path / "r.jsonl", [line])
    conversation = read_file(path, str(path)).conversations[0]
    assert conversation.id == "resp_1"
    person = conversation.messages[0]
    assert (person.role, person.from_person, person.parts[0].text) == (
        "user",
        True,
        "Refund PO-88412",
    )
    row = rows_of(path, claims="all")["mcp_1"]
    assert (row["outcome"], row["claim"]) == ("ok", "success")


def test_a_response_continues_the_conversation_of_its_previous_response_id(tmp_path: Path):
    first = {
        "id": "resp_a",
        "input": [asked("Close OPS-318")],
        "output": [
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "close_ticket",
                "arguments": '{"id": "OPS-318"}',
            },
        ],
    }
    second = {
        "id": "resp_b",
        "previous_response_id": "resp_a",
        "input": [
            {
                "type": "function_call_output",
                "call_id": "call_1",
                "output": "Error: ticket is locked by a running workflow",
            }
        ],
        "output": [said("OPS-318 is closed.")],
    }
    result = scan([write_jsonl(tmp_path / "r.jsonl", [first, second])])
    assert result.rejects.height == 0
    row = result.calls.row(0, named=True)
    assert (row["conversation_id"], row["line"], row["call_line"]) == ("resp_a", 2, 1)
    assert (row["outcome"], row["finding"]) == ("error_payload", "false_success")


def test_other_responses_items_are_passed_over_and_bad_items_rejected(tmp_path: Path):
    line = response(
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        "not an item",
        mcp_call(output="ok"),
    )
    path = write_jsonl(tmp_path / "r.jsonl", [line, {"object": "list", "data": []}])
    result = scan([path])
    assert result.passed_over == {
        "OpenAI Responses item not audited: reasoning": 1,
        "OpenAI Responses item not audited: web_search_call": 1,
    }
    assert result.rejects["reason"].to_list() == [
        "Responses item is not an object",
        "no Responses input or output items",
    ]
    assert result.calls.height == 1
