"""MCP wire logs: JSON-RPC lines, Claude Desktop ``mcp-server-*.log`` files and MCP Inspector
protocol exports."""

import json
from datetime import UTC, datetime
from pathlib import Path

from builders import write_jsonl

from auditor import scan
from auditor.model import ToolResult
from auditor.readers import detect, read_file

HERE = Path(__file__).parent
SAMPLES = (
    "gateway-wire.jsonl",
    "inspector-protocol-everything-2026-05-02T10-15-30.000Z.json",
    "mcp-server-linear.log",
)


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


def test_the_gateway_sample_gives_its_calls_and_reports_its_cut_line(calls_of):
    path = HERE / "gateway-wire.jsonl"
    assert detect(path).NAME == "mcp_wire"
    result = read_file(path, str(path))
    assert calls_of(result) == [
        ("gateway-wire.jsonl", "1", "freight_graphql"),
        ("gateway-wire.jsonl", "1", "get_me"),
        ("gateway-wire.jsonl", "2", "post_message"),
    ]
    [reject] = result.rejects
    assert (reject.line, reject.reason.startswith("malformed JSON")) == (10, True)
    assert result.passed_over == {
        "MCP request other than tools/call": 1,
        "MCP response to a request other than tools/call": 1,
        "MCP notification": 2,
        "MCP response to no logged request": 1,
    }


def test_the_inspector_export_tells_results_from_errors_that_came_back(calls_of):
    path = HERE / "inspector-protocol-everything-2026-05-02T10-15-30.000Z.json"
    result = read_file(path, str(path))
    assert [name for _, _, name in calls_of(result)] == [
        "get_weather",
        "book_flight",
        "get_forecast",
        "long_running_operation",
    ]
    answers = [
        (part.call_id, part.returned, part.is_error)
        for message in result.conversations[0].messages
        for part in message.parts
        if isinstance(part, ToolResult)
    ]
    assert answers == [("1", True, False), ("2", False, None), ("3", False, None)]


def test_jsonrpc_lines_are_detected_as_mcp_wire(tmp_path: Path):
    path = write_jsonl(tmp_path / "wire.jsonl", [rpc_call(1, "ping_db"), rpc_result(1)])
    assert detect(path).NAME == "mcp_wire"


def test_a_claude_desktop_log_is_detected(tmp_path: Path, write_lines):
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
    path = HERE / "inspector-protocol-everything-2026-05-02T10-15-30.000Z.json"
    assert detect(path).NAME == "mcp_wire"


def test_responses_pair_with_requests_by_id_not_by_position(tmp_path: Path, rows_of):
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
    # A wire log holds no replies: the failed call's claim is "none"; the one that worked has
    # none read, since no finding can follow it.
    assert (rows["1"]["claim"], rows["2"]["claim"]) == ("none", None)


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


def test_a_jsonrpc_error_response_came_back_instead_of_a_result(tmp_path: Path, rows_of):
    path = write_jsonl(
        tmp_path / "wire.jsonl",
        [rpc_call(4, "search_issues", q="A7"), rpc_error(4, -32602, "Unknown tool: search_issues")],
    )
    row = rows_of(path)["4"]
    assert (row["outcome"], row["outcome_rule"]) == ("transport_error", "jsonrpc-error")
    assert row["evidence"] == "-32602: Unknown tool: search_issues"
    assert row["evidence_pointer"] == "/error"


def test_structured_content_of_a_result_is_read(tmp_path: Path, rows_of):
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


def test_a_batch_line_holds_several_messages(tmp_path: Path, rows_of, write_lines):
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


def test_a_cancelled_call_has_no_result_and_a_late_response_is_passed_over(tmp_path: Path, rows_of):
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


def test_a_log_that_ends_after_a_request_is_cut_off(tmp_path: Path, rows_of):
    path = write_jsonl(tmp_path / "wire.jsonl", [rpc_call(9, "export_report")])
    row = rows_of(path)["9"]
    assert (row["outcome"], row["line"], row["finding"]) == ("cut_off", 1, None)


def test_a_request_with_no_response_before_the_next_one_is_a_transport_error(
    tmp_path: Path, rows_of
):
    path = write_jsonl(
        tmp_path / "wire.jsonl",
        [rpc_call(9, "export_report"), rpc_call(10, "list_teams"), rpc_result(10, "[]")],
    )
    row = rows_of(path)["9"]
    assert (row["outcome"], row["outcome_rule"]) == ("transport_error", "no-result")


def test_ids_are_kept_per_requester(tmp_path: Path, rows_of, write_lines):
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


def test_claude_desktop_trailing_metadata_is_cut_off(tmp_path: Path, rows_of, write_lines):
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


def test_both_claude_desktop_prefix_orders_name_the_server(tmp_path: Path, rows_of, write_lines):
    path = write_lines(
        tmp_path / "mcp.log",
        [
            desktop("github", "client", rpc_call(1, "get_me")),
            desktop("github", "server", rpc_result(1, "null"), level_first=True),
        ],
    )
    row = rows_of(path)["1"]
    assert (row["server"], row["outcome"], row["line"]) == ("github", "identity_null", 2)


def test_stderr_noise_and_redacted_summaries_are_counted(tmp_path: Path, write_lines):
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


def test_malformed_json_in_a_log_line_is_a_reject_with_its_line(tmp_path: Path, write_lines):
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


def test_inspector_results_are_on_the_line_where_their_entry_starts(rows_of):
    path = HERE / "inspector-protocol-everything-2026-05-02T10-15-30.000Z.json"
    starts = [
        number for number, text in enumerate(path.read_text().splitlines(), 1) if text == "  {"
    ]
    rows = rows_of(path)
    assert [rows[i]["line"] for i in ("1", "2", "3", "4")] == [starts[i] for i in (2, 4, 5, 6)]
    assert rows["1"]["outcome"] == "ok"
    assert rows["2"]["evidence_pointer"] == "/response/error"
    assert rows["4"]["outcome_rule"] == "log-ends"  # the export's last request, unanswered
    assert {r["server"] for r in rows.values()} == {"everything"}


def test_an_inspector_client_error_means_no_usable_result_came_back(rows_of):
    rows = rows_of(HERE / "inspector-protocol-everything-2026-05-02T10-15-30.000Z.json")
    row = rows["3"]
    assert (row["outcome"], row["outcome_rule"]) == ("transport_error", "jsonrpc-error")
    assert "does not match the tool's output schema" in row["evidence"]


def test_a_file_mixing_servers_gives_one_conversation_per_server(tmp_path: Path, write_lines):
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
    result = scan([HERE / name for name in SAMPLES])
    wire = result.calls.filter(result.calls["format"] == "mcp_wire")
    outcomes = wire.group_by("outcome").len().sort("outcome")
    assert dict(outcomes.iter_rows()) == {
        "error_payload": 1,
        "graphql_partial": 1,
        "identity_null": 1,
        "ok": 2,
        "tool_error": 1,
        "transport_error": 4,
        "cut_off": 2,
    }
    read = wire.filter(~wire["outcome"].is_in(["ok", "cut_off"]))
    assert set(read["claim"]) == {"none"}
    assert wire.filter(wire["outcome"].is_in(["ok", "cut_off"]))["claim"].null_count() == 4


def test_a_claude_desktop_log_line_dates_the_call_it_carries(tmp_path: Path, rows_of, write_lines):
    path = write_lines(
        tmp_path / "mcp-server-tickets.log",
        [
            desktop("tickets", "client", rpc_call(7, "close_ticket", key="OPS-1")),
            desktop("tickets", "server", rpc_result(7, "closed")),
        ],
    )
    assert rows_of(path)["7"]["timestamp"] == datetime(2026, 3, 1, 9, 41, 2, 330000, tzinfo=UTC)
