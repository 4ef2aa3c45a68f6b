"""OpenTelemetry GenAI / MCP spans in OTLP JSON: execute_tool spans, MCP client spans and the
messages of inference spans."""

import json
from pathlib import Path

from builders import write_jsonl

from auditor import scan
from auditor.readers import detect, read_file
from auditor.readers.stamps import moment

HERE = Path(__file__).parent
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


def test_the_trace_sample_groups_calls_by_conversation_or_trace(calls_of, flags_of):
    path = HERE / "otel-traces.jsonl"
    assert detect(path).NAME == "otel_genai"
    result = read_file(path, str(path))
    assert [(r.line, r.reason) for r in result.rejects] == [
        (4, "not an OpenTelemetry span or OTLP export")
    ]
    assert calls_of(result) == [
        ("conv_5fd3e2a1", "call_VSPygqKTWdrhaFErNvMV18Yl", "update_ticket"),
        ("0af7651916cd43dd8448eb211c80319c", "12", "search_issues"),
        ("4bf92f3577b34da6a3ce929d0e0e4736", "call_inv_2047", "get_invoice"),
    ]
    assert flags_of(result) == {
        "call_VSPygqKTWdrhaFErNvMV18Yl": True,
        "12": None,
        "call_inv_2047": None,
    }


def test_span_lines_and_export_batches_are_detected_as_otel(tmp_path: Path):
    one = write_jsonl(tmp_path / "a.jsonl", [tool_span("s1", "get_me", "call_1")])
    many = write_jsonl(tmp_path / "b.jsonl", [batch(tool_span("s1", "get_me", "call_1"))])
    assert detect(one).NAME == "otel_genai"
    assert detect(many).NAME == "otel_genai"


def test_execute_tool_attributes_become_the_call(tmp_path: Path, rows_of):
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
    assert (row["outcome"], row["conversation_id"], row["claim"]) == ("ok", "t1", None)


def test_error_type_tool_error_is_the_tools_own_failure(tmp_path: Path, rows_of):
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


def test_a_jsonrpc_error_type_means_no_result_came_back(tmp_path: Path, rows_of):
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


def test_an_error_status_without_a_result_is_a_transport_error(tmp_path: Path, rows_of):
    exception = {
        "name": "exception",
        "attributes": attributes(exception__type="TimeoutError", exception__message="30s passed"),
    }
    record = tool_span("s1", "get_invoice", "call_1", status={"code": 2}, events=[exception])
    row = rows_of(write_jsonl(tmp_path / "spans.jsonl", [record]))["call_1"]
    assert (row["outcome"], row["evidence"]) == ("transport_error", "TimeoutError: 30s passed")


def test_an_error_status_with_a_result_flags_the_result(tmp_path: Path, rows_of):
    record = tool_span(
        "s1",
        "get_invoice",
        "call_1",
        gen_ai__tool__call__result="no such invoice",
        status={"code": 2},
    )
    row = rows_of(write_jsonl(tmp_path / "spans.jsonl", [record]))["call_1"]
    assert (row["outcome"], row["evidence_pointer"]) == ("tool_error", "/status/code")


def test_an_mcp_client_span_inside_its_execute_tool_span_is_the_same_call(tmp_path: Path, rows_of):
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


def test_inference_messages_give_the_request_and_the_claim(tmp_path: Path, rows_of):
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


def test_an_mcp_span_without_the_models_call_id_answers_the_call_of_its_tool(
    tmp_path: Path, rows_of
):
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


def test_tool_call_responses_give_results_when_no_tool_span_recorded_them(tmp_path: Path, rows_of):
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


def test_an_otel_tool_span_is_dated_by_its_start(tmp_path: Path, rows_of):
    path = tmp_path / "spans.jsonl"
    path.write_text(json.dumps(batch(tool_span("s1", "close_ticket", "call-1"))) + "\n")
    row = rows_of(path)["call-1"]
    assert row["timestamp"] == moment(T0 + 100 * 1_000_000)
