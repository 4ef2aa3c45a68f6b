"""Each outcome rule on small cases, in the spec's order of precedence."""

import json

import pytest
from builders import assistant, audit, call, chat, one_call, text_block, user

REPLY = "Here you go."


def outcome(result: dict, name: str = "update_ticket") -> str:
    return one_call(REPLY, result, name)["outcome"]


def test_a_call_with_no_result_is_a_transport_error():
    rows = audit(
        chat(user("book it"), assistant(None, call("c1", "book_room")), assistant("Booked."))
    )
    assert rows["c1"]["outcome"] == "transport_error"
    assert rows["c1"]["outcome_rule"] == "no-result"


def test_a_json_rpc_error_instead_of_a_result_is_a_transport_error():
    row = one_call(REPLY, {"error": {"code": -32603, "message": "upstream 502"}, "content": None})
    assert row["outcome"] == "transport_error"
    assert "-32603" in row["evidence"]


@pytest.mark.parametrize(
    "text",
    [
        "MCP error -32000: Connection closed",
        "Error: MCP error -32001: Request timed out",
        "<tool_use_error>No such tool available: mcp__linear__create_issue</tool_use_error>",
    ],
)
def test_client_wrapped_protocol_errors_are_transport_errors_even_when_flagged(text):
    assert outcome({"content": text_block(text), "isError": True}) == "transport_error"


def test_graphql_errors_with_surviving_data_are_partial_even_when_flagged():
    payload = {"data": {"order": {"id": 1}, "tracking": None}, "errors": [{"message": "timeout"}]}
    assert outcome({"content": text_block(payload), "isError": True}) == "graphql_partial"


@pytest.mark.parametrize(
    "payload",
    [
        {"data": None, "errors": [{"message": "Bad credentials"}]},
        {"errors": [{"message": "Throttled"}]},
        {"data": {"repository": None}, "errors": [{"message": "NOT_FOUND"}]},
    ],
)
def test_graphql_errors_with_no_surviving_data_are_graphql_errors(payload):
    assert outcome({"content": text_block(payload)}) == "graphql_error"


def test_graphql_is_found_in_structured_content():
    payload = {"data": None, "errors": [{"message": "denied"}]}
    row = one_call(REPLY, {"content": text_block("see structured"), "structuredContent": payload})
    assert row["outcome"] == "graphql_error"
    assert row["evidence_pointer"].endswith("/structuredContent/errors/0")


def test_graphql_encoded_twice_in_a_text_block_is_found():
    payload = {"data": {"a": 1, "b": None}, "errors": [{"message": "b failed"}]}
    twice = json.dumps(json.dumps(payload))
    assert outcome({"content": text_block(twice)}) == "graphql_partial"


def test_graphql_as_plain_string_content_is_found():
    payload = {"data": None, "errors": [{"message": "x"}]}
    assert outcome({"content": json.dumps(payload)}) == "graphql_error"


def test_an_empty_errors_list_is_ok():
    assert (
        outcome({"content": text_block({"data": {"viewer": {"login": "a"}}, "errors": []})}) == "ok"
    )


def test_a_flagged_result_is_a_tool_error():
    row = one_call(REPLY, {"content": text_block("403 Forbidden"), "isError": True})
    assert row["outcome"] == "tool_error"
    assert row["evidence_pointer"].endswith("/isError")


@pytest.mark.parametrize(
    "content",
    ["null", "{}", '{"user": null}', '{"data": {"viewer": null}}', "", '{"data": {"me": {}}}'],
)
def test_identity_tools_that_return_no_identity_are_identity_null(content):
    assert outcome({"content": text_block(content)}, name="get_me") == "identity_null"


def test_identity_null_is_recognised_behind_an_mcp_prefix():
    assert outcome({"content": text_block("null")}, name="mcp__github__get_me") == "identity_null"


@pytest.mark.parametrize(
    "content",
    [
        '{"user": null, "server": "ssl:helix.kestrelforge.net:1666"}',
        '{"viewer": null, "endpoint": "https://api.example.com/graphql", "region": "eu"}',
        '{"data": {"currentUser": null, "serverTime": "2026-12-02T06:00:00Z"}}',
    ],
)
def test_an_empty_identity_beside_connection_details_is_identity_null(content):
    assert outcome({"content": text_block(content)}, name="get_current_user") == "identity_null"


def test_connection_details_without_an_identity_field_are_an_identity():
    content = '{"login": "rhalvorsen", "server": "ssl:helix:1666"}'
    assert outcome({"content": text_block(content)}, name="get_current_user") == "ok"


def test_a_sparse_but_real_identity_is_ok():
    assert outcome({"content": text_block({"login": "dana", "name": None})}, name="whoami") == "ok"


def test_viewer_null_with_errors_is_a_graphql_error_not_identity_null():
    payload = {"data": {"viewer": None}, "errors": [{"message": "Bad credentials"}]}
    assert outcome({"content": text_block(payload)}, name="viewer") == "graphql_error"


def test_an_identity_tool_with_a_flag_is_a_tool_error():
    assert outcome({"content": text_block("null"), "isError": True}, name="whoami") == "tool_error"


@pytest.mark.parametrize(
    ("payload", "rule"),
    [
        ({"ok": False, "error": "channel_not_found"}, "ok-false"),
        ({"success": False, "message": "window closed"}, "success-false"),
        ({"status": "error", "message": "Component not found"}, "status-error"),
        ({"object": "error", "status": 403, "code": "restricted_resource"}, "object-error"),
        (
            {"error": {"type": "invalid_request_error", "message": "already refunded"}},
            "lone-error-object",
        ),
        ({"statusCode": 403, "message": "Forbidden"}, "lone-error-object"),
    ],
)
def test_unflagged_error_envelopes_are_error_payloads(payload, rule):
    row = one_call(REPLY, {"content": json.dumps(payload)})
    assert (row["outcome"], row["outcome_rule"]) == ("error_payload", rule)


@pytest.mark.parametrize(
    "text",
    [
        "Error: EACCES: permission denied, open '/etc/nginx/site.conf'",
        'ERROR:  relation "orders_2023" does not exist',
        "403 Forbidden",
        "HTTP 500 Internal Server Error",
        "Traceback (most recent call last):\n  File \"app.py\", line 3\nKeyError: 'x'",
        "<tool_use_error>File has not been read yet</tool_use_error>",
        "<html><head><title>502 Bad Gateway</title></head></html>",
        'Error from server (Forbidden): deployments.apps "checkout" is forbidden: User '
        '"system:serviceaccount:ops:bot" cannot patch resource "deployments/scale"',
        'Error from server (NotFound): deployments.apps "web" not found',
    ],
)
def test_unflagged_error_reports_are_error_payloads(text):
    assert outcome({"content": text}) == "error_payload"


def test_a_test_run_with_failures_is_an_error_payload_for_a_tool_that_ran_it():
    summary = "FAIL src/vat.test.ts\nTests:       1 failed, 23 passed, 24 total"
    assert outcome({"content": summary}, name="Bash") == "error_payload"


def test_a_test_summary_fetched_by_a_ci_tool_is_data():
    summary = "Tests:       1 failed, 23 passed, 24 total"
    assert outcome({"content": summary}, name="get_ci_results") == "ok"


@pytest.mark.parametrize(
    "payload",
    [
        {"result": {"deal_id": "D-1"}, "error": None},
        {"ok": True, "deliveries": [{"id": 1, "status": "error"}]},
        {"issues": [{"title": "Fix 403 error on SSO callback"}]},
        [{"day": "Mon", "errors": 211, "error_rate": 0.001}],
    ],
)
def test_failure_words_inside_good_data_are_ok(payload):
    assert outcome({"content": json.dumps(payload)}) == "ok"


def test_a_log_with_error_lines_is_ok():
    log = "2024-06-18 02:14 INFO start\n2024-06-18 02:15 ERROR batch 2291 timed out\n"
    assert outcome({"content": log}, name="read_file") == "ok"


def test_a_search_that_found_nothing_is_not_a_failure():
    row = one_call(
        "Nothing matches.",
        {"content": "Exit code 1", "isError": True},
        "Bash",
        command="git grep -n 'legacy_flag'",
    )
    assert (row["outcome"], row["outcome_rule"]) == ("ok", "flag-ignored:search-found-nothing")


def test_a_failed_command_that_is_not_a_search_keeps_its_flag():
    row = one_call("Done.", {"content": "Exit code 1", "isError": True}, "Bash", command="make")
    assert row["outcome"] == "tool_error"
