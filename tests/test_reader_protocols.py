"""Readers of protocol-level logs: MCP wire logs (JSON-RPC lines, Claude Desktop, MCP Inspector),
OpenAI Responses items, and OpenTelemetry GenAI / MCP spans."""

import json
from pathlib import Path

import pytest
from builders import assistant, call, chat, tool, tool_result, tool_use, user, write_jsonl

from auditor import scan
from auditor.readers import detect, read_file

DATA = Path(__file__).parent / "data" / "protocols"


def rows_of(path: Path) -> dict[str, dict]:
    """Rows of one scanned file, keyed by tool call id."""
    return {r["tool_call_id"]: r for r in scan([path]).calls.iter_rows(named=True)}


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


# ============================================================================ MCP wire
def rpc_call(call_id, name: str, **arguments) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": call_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def rpc_result(call_id, text: str = "ok", **fields) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": call_id,
        "result": {"content": [{"type": "text", "text": text}], **fields},
    }


def rpc_error(call_id, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": call_id, "error": {"code": code, "message": message}}


def desktop(server: str, who: str, message: dict, *, level_first: bool = False) -> str:
    """A Claude Desktop log line, in either prefix order, with the trailing metadata."""
    prefix = f"[info] [{server}]" if level_first else f"[{server}] [info]"
    payload = json.dumps(message, separators=(",", ":"))
    return (
        f"2026-03-01T09:41:02.330Z {prefix} Message from {who}: {payload} {{ metadata: undefined }}"
    )


def test_jsonrpc_lines_are_detected_as_mcp_wire(tmp_path: Path):
    path = write_jsonl(tmp_path / "wire.jsonl", [rpc_call(1, "ping_db"), rpc_result(1)])
    assert detect(path).NAME == "mcp_wire"


def test_a_claude_desktop_log_is_detected(tmp_path: Path):
    path = write_lines(
        tmp_path / "mcp-server-linear.log",
        [
            "2026-03-01T09:39:10.101Z [linear] [info] Initializing server...",
            desktop("linear", "client", rpc_call(1, "get_issue", id="OPS-1")),
            desktop("linear", "server", rpc_result(1)),
        ],
    )
    assert detect(path).NAME == "mcp_wire"


def test_an_inspector_protocol_export_is_detected():
    path = DATA / "inspector-protocol-everything-2026-05-02T10-15-30.000Z.json"
    assert detect(path).NAME == "mcp_wire"


def test_responses_pair_with_requests_by_id_not_by_position(tmp_path: Path):
    path = write_jsonl(
        tmp_path / "wire.jsonl",
        [
            rpc_call(1, "update_issue", id="OPS-318"),
            rpc_call(2, "get_issue", id="OPS-318"),
            rpc_result(2, json.dumps({"id": "OPS-318", "state": "Todo"})),
            rpc_result(1, "403 Forbidden: read-only API key", isError=True),
        ],
    )
    rows = rows_of(path)
    assert (rows["1"]["outcome"], rows["1"]["line"]) == ("tool_error", 4)
    assert (rows["2"]["outcome"], rows["2"]["line"]) == ("ok", 3)
    assert {r["claim"] for r in rows.values()} == {"none"}


def test_a_string_id_and_a_number_id_are_different_requests(tmp_path: Path):
    path = write_jsonl(
        tmp_path / "wire.jsonl",
        [
            rpc_call(7, "get_me"),
            rpc_call("7", "list_teams"),
            rpc_result("7", json.dumps({"teams": ["OPS"]})),
            rpc_result(7, json.dumps({"data": {"viewer": None}})),
        ],
    )
    calls = scan([path]).calls
    outcome = dict(zip(calls["tool_name"], calls["outcome"], strict=True))
    assert outcome == {"get_me": "identity_null", "list_teams": "ok"}


def test_a_jsonrpc_error_response_came_back_instead_of_a_result(tmp_path: Path):
    path = write_jsonl(
        tmp_path / "wire.jsonl",
        [rpc_call(4, "search_issues", q="A7"), rpc_error(4, -32602, "Unknown tool: search_issues")],
    )
    row = rows_of(path)["4"]
    assert (row["outcome"], row["outcome_rule"]) == ("transport_error", "jsonrpc-error")
    assert row["evidence"] == "-32602: Unknown tool: search_issues"
    assert row["evidence_pointer"] == "/error"


def test_structured_content_of_a_result_is_read(tmp_path: Path):
    partial = {
        "data": {"warehouse": {"capacity": 0.82, "inbound": None}},
        "errors": [{"message": "Query timeout", "path": ["warehouse", "inbound"]}],
    }
    path = write_jsonl(
        tmp_path / "wire.jsonl",
        [
            rpc_call(1, "freight_graphql", query="{ warehouse }"),
            rpc_result(1, json.dumps(partial), structuredContent=partial),
        ],
    )
    row = rows_of(path)["1"]
    assert row["outcome"] == "graphql_partial"
    assert row["evidence_pointer"] == "/result/structuredContent/errors/0"


def test_a_batch_line_holds_several_messages(tmp_path: Path):
    path = write_lines(
        tmp_path / "wire.jsonl",
        [
            json.dumps([rpc_call(1, "get_issue", id="A"), rpc_call(2, "get_issue", id="B")]),
            json.dumps([rpc_result(2, "Error: issue B not found"), rpc_result(1, "{}")]),
        ],
    )
    assert detect(path).NAME == "mcp_wire"
    rows = rows_of(path)
    assert (rows["1"]["outcome"], rows["1"]["line"]) == ("ok", 2)
    assert rows["2"]["outcome"] == "error_payload"
    assert rows["2"]["evidence_pointer"] == "/0/result/content/0/text"


def test_a_cancelled_call_has_no_result_and_a_late_response_is_passed_over(tmp_path: Path):
    cancel = {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": 5, "reason": "McpError: MCP error -32001: Request timed out"},
    }
    path = write_jsonl(
        tmp_path / "wire.jsonl", [rpc_call(5, "list_teams"), cancel, rpc_result(5, "[]")]
    )
    result = read_file(path, str(path))
    conversation = result.conversations[0]
    assert [m.role for m in conversation.messages] == ["assistant"]
    assert conversation.metadata["cancelled"]["5"]["line"] == 2
    assert result.passed_over == {"MCP response after its request was cancelled": 1}
    row = rows_of(path)["5"]
    assert (row["outcome"], row["outcome_rule"]) == ("transport_error", "no-result")


def test_a_call_without_any_response_has_no_result(tmp_path: Path):
    path = write_jsonl(tmp_path / "wire.jsonl", [rpc_call(9, "export_report")])
    row = rows_of(path)["9"]
    assert (row["outcome"], row["line"]) == ("transport_error", 1)


def test_ids_are_kept_per_requester(tmp_path: Path):
    sampling = {"jsonrpc": "2.0", "id": 0, "method": "sampling/createMessage", "params": {}}
    sampled = {"jsonrpc": "2.0", "id": 0, "result": {"role": "assistant", "model": "m"}}
    path = write_lines(
        tmp_path / "mcp-server-notes.log",
        [
            desktop("notes", "client", rpc_call(0, "summarize", doc="q3")),
            desktop("notes", "server", sampling),
            desktop("notes", "client", sampled),
            desktop("notes", "server", rpc_result(0, "Summary: revenue up 4%")),
        ],
    )
    row = rows_of(path)["0"]
    assert (row["outcome"], row["line"]) == ("ok", 4)


def test_claude_desktop_trailing_metadata_is_cut_off(tmp_path: Path):
    path = write_lines(
        tmp_path / "mcp-server-slack.log",
        [
            desktop("slack", "client", rpc_call(3, "post_message", channel="#ops")),
            desktop("slack", "server", rpc_result(3, json.dumps({"ok": False, "error": "x"}))),
        ],
    )
    assert path.read_text().splitlines()[1].endswith("{ metadata: undefined }")
    row = rows_of(path)["3"]
    assert (row["outcome"], row["line"], row["server"]) == ("error_payload", 2, "slack")


def test_both_claude_desktop_prefix_orders_name_the_server(tmp_path: Path):
    path = write_lines(
        tmp_path / "mcp.log",
        [
            desktop("github", "client", rpc_call(1, "get_me")),
            desktop("github", "server", rpc_result(1, "null"), level_first=True),
        ],
    )
    row = rows_of(path)["1"]
    assert (row["server"], row["outcome"], row["line"]) == ("github", "identity_null", 2)


def test_stderr_noise_and_redacted_summaries_are_counted(tmp_path: Path):
    path = write_lines(
        tmp_path / "mcp-server-db.log",
        [
            "INFO:     Started server process [48213]",
            "Traceback (most recent call last):",
            '  File "/srv/db.py", line 8, in connect',
            "2026-07-14T08:00:01.000Z [db] [info] Message from client: "
            'method="tools/call" id=1 params { metadata: undefined }',
            "2026-07-14T08:00:01.300Z [db] [info] Message from server: id=1 result",
            "2026-07-14T08:00:02.000Z [db] [info] Server transport closed",
        ],
    )
    assert detect(path).NAME == "mcp_wire"
    result = read_file(path, str(path))
    assert result.rejects == []
    assert result.passed_over == {
        "server stderr or other text without a log prefix": 3,
        "MCP log summary line without payload (redacted)": 2,
        "MCP client log text": 1,
    }


def test_other_methods_and_notifications_are_passed_over_with_reasons(tmp_path: Path):
    path = write_jsonl(
        tmp_path / "wire.jsonl",
        [
            {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
            {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}},
            {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 5}},
            {"jsonrpc": "2.0", "id": 42, "result": {}},
        ],
    )
    result = read_file(path, str(path))
    assert result.passed_over == {
        "MCP request other than tools/call": 1,
        "MCP response to a request other than tools/call": 1,
        "MCP notification": 1,
        "MCP response to no logged request": 1,
    }


def test_malformed_json_in_a_log_line_is_a_reject_with_its_line(tmp_path: Path):
    path = write_lines(
        tmp_path / "mcp-server-linear.log",
        [
            desktop("linear", "client", rpc_call(6, "get_viewer")),
            '2026-03-01T09:45:01.002Z [linear] [info] Message from server: {"jsonrpc":"2.0","id":6,'
            '"result":{"content":[{"type":"text","text":"{\\"viewer\\":',
            desktop("linear", "client", rpc_call(7, "get_viewer")),
            desktop("linear", "server", rpc_result(7, '{"viewer": {"login": "jana"}}')),
        ],
    )
    result = scan([path])
    reject = result.rejects.row(0, named=True)
    assert (reject["source"], reject["line"]) == (str(path), 2)
    assert "malformed JSON" in reject["reason"]
    outcomes = dict(zip(result.calls["tool_call_id"], result.calls["outcome"], strict=True))
    assert outcomes == {"6": "transport_error", "7": "ok"}


def test_inspector_results_are_on_the_line_where_their_entry_starts():
    path = DATA / "inspector-protocol-everything-2026-05-02T10-15-30.000Z.json"
    starts = [
        number for number, text in enumerate(path.read_text().splitlines(), 1) if text == "  {"
    ]
    rows = rows_of(path)
    assert [rows[i]["line"] for i in ("1", "2", "3", "4")] == [starts[i] for i in (2, 4, 5, 6)]
    assert rows["1"]["outcome"] == "ok"
    assert rows["2"]["evidence_pointer"] == "/response/error"
    assert rows["4"]["outcome_rule"] == "no-result"
    assert {r["server"] for r in rows.values()} == {"everything"}


def test_an_inspector_client_error_means_no_usable_result_came_back():
    rows = rows_of(DATA / "inspector-protocol-everything-2026-05-02T10-15-30.000Z.json")
    row = rows["3"]
    assert (row["outcome"], row["outcome_rule"]) == ("transport_error", "jsonrpc-error")
    assert "does not match the tool's output schema" in row["evidence"]


def test_a_file_mixing_servers_gives_one_conversation_per_server(tmp_path: Path):
    path = write_lines(
        tmp_path / "mcp.log",
        [
            desktop("github", "client", rpc_call(1, "get_me")),
            desktop("linear", "client", rpc_call(1, "get_issue", id="OPS-1")),
            desktop("linear", "server", rpc_result(1, "{}")),
            desktop("github", "server", rpc_error(1, -32603, "Internal error")),
        ],
    )
    calls = scan([path]).calls.sort("conversation_id")
    assert calls["conversation_id"].to_list() == ["mcp.log#github", "mcp.log#linear"]
    assert calls["outcome"].to_list() == ["transport_error", "ok"]


def test_wrong_types_in_wire_messages_are_rejects_not_crashes(tmp_path: Path):
    path = write_jsonl(
        tmp_path / "wire.jsonl",
        [
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "get_me"},
            {"jsonrpc": "2.0", "id": {"n": 2}, "method": "tools/call", "params": {"name": "x"}},
            {"jsonrpc": "2.0", "id": 1, "result": None},
            rpc_call(3, "get_issue", id="OPS-9"),
            {"jsonrpc": "2.0", "id": 3, "result": {"content": "plain text", "isError": "yes"}},
            42,
        ],
    )
    result = scan([path])
    assert result.rejects["line"].to_list() == [1, 2]
    assert result.calls["tool_call_id"].to_list() == ["3"]
    assert result.summary()["passed_over_by_reason"]["JSON that is not a JSON-RPC message"] == 1


def test_the_wire_samples_scan_as_expected():
    result = scan([DATA])
    wire = result.calls.filter(result.calls["format"] == "mcp_wire")
    outcomes = wire.group_by("outcome").len().sort("outcome")
    assert dict(outcomes.iter_rows()) == {
        "error_payload": 1,
        "graphql_partial": 1,
        "identity_null": 1,
        "ok": 2,
        "tool_error": 1,
        "transport_error": 6,
    }
    assert set(wire["claim"]) == {"none"}


# ============================================================================ Responses
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


def test_a_response_object_line_is_detected_as_responses(tmp_path: Path):
    path = write_jsonl(tmp_path / "r.jsonl", [response(mcp_call(output="ok"), said("Done."))])
    assert detect(path).NAME == "openai_responses"


def test_a_list_of_items_and_an_input_only_line_are_detected(tmp_path: Path):
    items = [asked("hi"), {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}]
    assert detect(write_jsonl(tmp_path / "a.jsonl", [items])).NAME == "openai_responses"
    assert detect(write_jsonl(tmp_path / "b.jsonl", [{"input": items}])).NAME == "openai_responses"


def test_a_pretty_printed_response_document_is_read(tmp_path: Path):
    path = tmp_path / "resp_1.json"
    error = {"type": "http_error", "code": 502, "message": "Bad Gateway"}
    document = response(mcp_call(status="failed", error=error), said("Refunded."))
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    assert detect(path).NAME == "openai_responses"
    row = rows_of(path)["mcp_1"]
    assert (row["outcome"], row["finding"], row["line"]) == ("transport_error", "false_success", 1)


def test_function_call_outputs_pair_by_call_id_not_by_id(tmp_path: Path):
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


def test_a_structured_mcp_protocol_error_came_back_instead_of_a_result(tmp_path: Path):
    error = {"type": "mcp_protocol_error", "code": -32602, "message": "Unknown tool"}
    line = response(mcp_call(status="failed", error=error), said("Done, it's refunded."))
    row = rows_of(write_jsonl(tmp_path / "r.jsonl", [line]))["mcp_1"]
    assert (row["outcome"], row["evidence"]) == ("transport_error", "-32602: Unknown tool")
    assert (row["evidence_pointer"], row["server"]) == ("/output/0/error", "stripe")
    assert row["finding"] == "false_success"


def test_a_structured_tool_execution_error_is_the_tools_own_failure(tmp_path: Path):
    error = {
        "type": "mcp_tool_execution_error",
        "content": [{"type": "text", "text": "Refund amount exceeds the captured charge"}],
    }
    line = response(mcp_call(status="failed", error=error), said("Done, the refund went through."))
    row = rows_of(write_jsonl(tmp_path / "r.jsonl", [line]))["mcp_1"]
    assert (row["outcome"], row["finding"]) == ("tool_error", "false_success")
    assert row["evidence"] == "Refund amount exceeds the captured charge"


def test_an_older_string_error_is_a_flagged_result(tmp_path: Path):
    line = response(mcp_call(error="Error: charge not found"), said("I couldn't refund it."))
    row = rows_of(write_jsonl(tmp_path / "r.jsonl", [line]))["mcp_1"]
    assert (row["outcome"], row["claim"], row["finding"]) == ("tool_error", "failure", None)
    assert row["evidence_pointer"] == "/output/0/error"


def test_an_http_error_is_a_transport_error(tmp_path: Path):
    error = {"type": "http_error", "code": 503, "message": "Service Unavailable"}
    line = response(mcp_call(status="failed", error=error))
    row = rows_of(write_jsonl(tmp_path / "r.jsonl", [line]))["mcp_1"]
    assert (row["outcome"], row["evidence"]) == ("transport_error", "503: Service Unavailable")


def test_a_failed_status_without_an_error_flags_the_result(tmp_path: Path):
    line = response(mcp_call(status="failed", output="refund created"))
    row = rows_of(write_jsonl(tmp_path / "r.jsonl", [line]))["mcp_1"]
    assert (row["outcome"], row["evidence_pointer"]) == ("tool_error", "/output/0/status")


def test_an_mcp_call_still_in_progress_has_no_result(tmp_path: Path):
    line = response(mcp_call(status="in_progress"))
    row = rows_of(write_jsonl(tmp_path / "r.jsonl", [line]))["mcp_1"]
    assert (row["outcome"], row["outcome_rule"]) == ("transport_error", "no-result")


def test_responses_messages_give_the_request_and_the_reply(tmp_path: Path):
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
    row = rows_of(path)["mcp_1"]
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


# ============================================================================ OpenTelemetry
T0 = 1_767_225_600_000_000_000


def attributes(**values) -> list[dict]:
    """OTLP attributes; ``__`` in a name stands for a dot."""
    out = []
    for key, value in values.items():
        if isinstance(value, bool):
            typed = {"boolValue": value}
        elif isinstance(value, int):
            typed = {"intValue": str(value)}
        else:
            typed = {"stringValue": value}
        out.append({"key": key.replace("__", "."), "value": typed})
    return out


def span(
    span_id: str,
    name: str,
    start_ms: int,
    end_ms: int,
    *,
    trace="t1",
    parent=None,
    status=None,
    events=None,
    **attrs,
) -> dict:
    record = {
        "traceId": trace,
        "spanId": span_id,
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(T0 + start_ms * 1_000_000),
        "endTimeUnixNano": str(T0 + end_ms * 1_000_000),
        "attributes": attributes(**attrs),
        "status": status or {},
    }
    if parent:
        record["parentSpanId"] = parent
    if events:
        record["events"] = events
    return record


def tool_span(span_id: str, name: str, call_id: str, start: int = 100, end: int = 200, **attrs):
    return span(
        span_id,
        f"execute_tool {name}",
        start,
        end,
        gen_ai__operation__name="execute_tool",
        gen_ai__tool__name=name,
        gen_ai__tool__call__id=call_id,
        **attrs,
    )


def chat_span(span_id: str, start: int, end: int, inputs: list, outputs: list, **attrs):
    return span(
        span_id,
        "chat gpt-4.1",
        start,
        end,
        gen_ai__operation__name="chat",
        gen_ai__input__messages=json.dumps(inputs),
        gen_ai__output__messages=json.dumps(outputs),
        **attrs,
    )


def batch(*spans: dict) -> dict:
    return {
        "resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": list(spans)}]}]
    }


def text_message(role: str, text: str) -> dict:
    return {"role": role, "parts": [{"type": "text", "content": text}]}


def call_message(call_id: str, name: str, **arguments) -> dict:
    part = {"type": "tool_call", "id": call_id, "name": name, "arguments": arguments}
    return {"role": "assistant", "parts": [part]}


def test_span_lines_and_export_batches_are_detected_as_otel(tmp_path: Path):
    one = write_jsonl(tmp_path / "a.jsonl", [tool_span("s1", "get_me", "call_1")])
    many = write_jsonl(tmp_path / "b.jsonl", [batch(tool_span("s1", "get_me", "call_1"))])
    assert detect(one).NAME == "otel_genai"
    assert detect(many).NAME == "otel_genai"


def test_execute_tool_attributes_become_the_call(tmp_path: Path):
    record = tool_span(
        "s1",
        "update_ticket",
        "call_VSPy",
        gen_ai__tool__call__arguments='{"id": "OPS-318", "priority": 2}',
        gen_ai__tool__call__result='{"id": "OPS-318", "state": "In Review"}',
    )
    path = write_jsonl(tmp_path / "spans.jsonl", [record])
    tool_call = read_file(path, str(path)).conversations[0].messages[0].parts[0]
    assert (tool_call.id, tool_call.name) == ("call_VSPy", "update_ticket")
    assert tool_call.arguments == {"id": "OPS-318", "priority": 2}
    row = rows_of(path)["call_VSPy"]
    assert (row["outcome"], row["conversation_id"], row["claim"]) == ("ok", "t1", "none")


def test_error_type_tool_error_is_the_tools_own_failure(tmp_path: Path):
    record = tool_span(
        "s1",
        "update_ticket",
        "call_1",
        gen_ai__tool__call__result='[{"type": "text", "text": "403 Forbidden: read-only key"}]',
        error__type="tool_error",
        status={"code": 2},
    )
    row = rows_of(write_jsonl(tmp_path / "spans.jsonl", [batch(record)]))["call_1"]
    assert (row["outcome"], row["evidence"]) == ("tool_error", "403 Forbidden: read-only key")
    assert (
        row["evidence_pointer"]
        == "/resourceSpans/0/scopeSpans/0/spans/0/attributes/4/value/stringValue"
    )


def test_a_jsonrpc_error_type_means_no_result_came_back(tmp_path: Path):
    record = span(
        "s1",
        "tools/call search_issues",
        0,
        30,
        mcp__method__name="tools/call",
        gen_ai__tool__name="search_issues",
        jsonrpc__request__id="12",
        rpc__response__status_code="-32602",
        error__type="-32602",
        status={"code": "STATUS_CODE_ERROR", "message": "Unknown tool: search_issues"},
    )
    row = rows_of(write_jsonl(tmp_path / "spans.jsonl", [record]))["12"]
    assert (row["tool_name"], row["outcome"]) == ("search_issues", "transport_error")
    assert row["evidence"] == "-32602: Unknown tool: search_issues"


def test_an_error_status_without_a_result_is_a_transport_error(tmp_path: Path):
    exception = {
        "name": "exception",
        "attributes": attributes(exception__type="TimeoutError", exception__message="30s passed"),
    }
    record = tool_span("s1", "get_invoice", "call_1", status={"code": 2}, events=[exception])
    row = rows_of(write_jsonl(tmp_path / "spans.jsonl", [record]))["call_1"]
    assert (row["outcome"], row["evidence"]) == ("transport_error", "TimeoutError: 30s passed")


def test_an_error_status_with_a_result_flags_the_result(tmp_path: Path):
    record = tool_span(
        "s1",
        "get_invoice",
        "call_1",
        gen_ai__tool__call__result="no such invoice",
        status={"code": 2},
    )
    row = rows_of(write_jsonl(tmp_path / "spans.jsonl", [record]))["call_1"]
    assert (row["outcome"], row["evidence_pointer"]) == ("tool_error", "/status/code")


def test_an_mcp_client_span_inside_its_execute_tool_span_is_the_same_call(tmp_path: Path):
    outer = tool_span("s1", "update_ticket", "call_1")
    inner = span(
        "s2",
        "tools/call update_ticket",
        110,
        190,
        parent="s1",
        mcp__method__name="tools/call",
        gen_ai__tool__name="update_ticket",
        jsonrpc__request__id="7",
        error__type="-32000",
        status={"code": 2, "message": "Connection closed"},
    )
    rows = rows_of(write_jsonl(tmp_path / "spans.jsonl", [batch(outer, inner)]))
    assert list(rows) == ["call_1"]
    assert rows["call_1"]["evidence"] == "-32000: Connection closed"


def test_inference_messages_give_the_request_and_the_claim(tmp_path: Path):
    request = text_message("user", "Move OPS-318 to In Review")
    asked_tool = call_message("call_1", "update_ticket", id="OPS-318")
    reply = text_message("assistant", "Done, I've updated OPS-318.")
    failed = {"error__type": "tool_error", "gen_ai__tool__call__result": "403 Forbidden"}
    spans = [
        chat_span("c2", 300, 400, [request, asked_tool], [reply]),
        tool_span("s1", "update_ticket", "call_1", 200, 250, **failed),
        chat_span("c1", 0, 150, [request], [asked_tool]),
    ]
    path = write_jsonl(tmp_path / "spans.jsonl", spans)
    messages = read_file(path, str(path)).conversations[0].messages
    assert [m.role for m in messages] == ["user", "assistant", "tool", "assistant"]
    row = rows_of(path)["call_1"]
    assert (row["outcome"], row["claim"], row["finding"]) == (
        "tool_error",
        "success",
        "false_success",
    )
    assert (row["line"], row["call_line"]) == (2, 3)


def test_an_mcp_span_without_the_models_call_id_answers_the_call_of_its_tool(tmp_path: Path):
    request = text_message("user", "Close OPS-9")
    asked_tool = call_message("call_5", "close_ticket", id="OPS-9")
    mcp_client = span(
        "m1",
        "tools/call close_ticket",
        200,
        250,
        mcp__method__name="tools/call",
        gen_ai__tool__name="close_ticket",
        jsonrpc__request__id="3",
        error__type="-32001",
        status={"code": 2, "message": "Request timed out"},
    )
    reply = text_message("assistant", "OPS-9 is closed.")
    spans = [
        chat_span("c1", 0, 150, [request], [asked_tool]),
        mcp_client,
        chat_span("c2", 300, 400, [request, asked_tool], [reply]),
    ]
    rows = rows_of(write_jsonl(tmp_path / "spans.jsonl", spans))
    assert list(rows) == ["call_5"]
    assert (rows["call_5"]["evidence"], rows["call_5"]["line"]) == ("-32001: Request timed out", 2)
    assert rows["call_5"]["finding"] == "false_success"


def test_tool_call_responses_give_results_when_no_tool_span_recorded_them(tmp_path: Path):
    request = text_message("user", "Who am I signed in as?")
    asked_tool = call_message("call_9", "get_me")
    answer = {
        "role": "tool",
        "parts": [
            {"type": "tool_call_response", "id": "call_9", "response": '{"data": {"viewer": null}}'}
        ],
    }
    spans = [
        chat_span("c1", 0, 100, [request], [asked_tool]),
        chat_span(
            "c2",
            200,
            300,
            [request, asked_tool, answer],
            [text_message("assistant", "You're signed in as jana.novak.")],
        ),
    ]
    row = rows_of(write_jsonl(tmp_path / "spans.jsonl", spans))["call_9"]
    assert (row["outcome"], row["finding"]) == ("identity_null", "identity_assumed")
    assert row["evidence_pointer"].startswith("/attributes/1/value/stringValue/2/parts/0/response")


def test_spans_group_by_conversation_id_else_by_trace(tmp_path: Path):
    spans = [
        span(
            "a",
            "invoke_agent helpdesk",
            0,
            10,
            trace="t1",
            gen_ai__conversation__id="conv_7",
            gen_ai__operation__name="invoke_agent",
        ),
        tool_span("b", "get_me", "call_1") | {"traceId": "t1"},
        tool_span("c", "get_me", "call_2") | {"traceId": "t2"},
        span("d", "invoke_agent helpdesk", 0, 10, trace="t3", gen_ai__conversation__id="conv_7"),
        tool_span("e", "get_me", "call_3") | {"traceId": "t3"},
    ]
    result = scan([write_jsonl(tmp_path / "spans.jsonl", spans)])
    by_call = dict(zip(result.calls["tool_call_id"], result.calls["conversation_id"], strict=True))
    assert by_call == {"call_1": "conv_7", "call_3": "conv_7", "call_2": "t2"}
    assert result.passed_over == {
        "OpenTelemetry span that is neither a tool call nor carries messages": 2
    }


def test_a_line_that_is_not_a_span_is_a_reject(tmp_path: Path):
    path = write_jsonl(
        tmp_path / "spans.jsonl", [tool_span("s1", "get_me", "call_1"), {"resourceMetrics": []}]
    )
    result = scan([path])
    assert result.calls.height == 1
    assert result.rejects.row(0, named=True)["line"] == 2


# ============================================================================ not ours
@pytest.mark.parametrize(
    "records",
    [
        [chat(user("hi"), assistant(None, call("c1", "ping")), tool("c1", "pong"))],
        [
            {
                "messages": [
                    {"role": "assistant", "content": [tool_use("t", "s")]},
                    {"role": "user", "content": [tool_result("t", "x")]},
                ]
            }
        ],
        [{"type": "user", "sessionId": "s", "uuid": "u", "message": {"role": "user"}}],
        [{"session_id": "s", "steps": [{"step_id": 1, "output": "done"}]}],
        [
            {
                "file": "a.jsonl",
                "conversation_id": "c",
                "tool_call_id": "x",
                "outcome": "ok",
                "claim": "none",
            }
        ],
    ],
)
def test_other_formats_are_not_claimed(tmp_path: Path, records: list):
    path = write_jsonl(tmp_path / "other.jsonl", records)
    found = detect(path)
    assert found is None or found.NAME not in ("mcp_wire", "openai_responses", "otel_genai")


def test_plain_log_lines_are_not_claimed(tmp_path: Path):
    path = write_lines(
        tmp_path / "solve.log",
        [
            "[2025-11-03T01:56:31.243Z] [INFO] 📁 Log file: /home/hive/solve.log",
            "[2025-11-03T01:56:32.390Z] [INFO] 🚀 solve v0.28.0",
            '2025-11-03T01:56:33.000Z [worker] [info] {"event": "start"}',
        ],
    )
    found = detect(path)
    assert found is None or found.NAME not in ("mcp_wire", "openai_responses", "otel_genai")
