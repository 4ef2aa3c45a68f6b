"""Anthropic Messages conversations: tool_use / tool_result blocks, the MCP connector's
mcp_tool_use / mcp_tool_result, and the person named in the metadata."""

from pathlib import Path

from builders import anthropic, audit_anthropic, tool_result, tool_use

from auditor.readers import detect, read_file

HERE = Path(__file__).parent


def test_the_labelled_sample_gives_its_calls_and_error_flags(calls_of, flags_of):
    path = HERE / "anthropic_messages.jsonl"
    assert detect(path).NAME == "anthropic_messages"
    result = read_file(path, str(path))
    assert result.rejects == []
    assert [(c.id, c.line) for c in result.conversations] == [("an-0001", 1), ("an-0004", 2)]
    assert calls_of(result) == [
        ("an-0001", "mcptoolu_01lD44nrNkJFr8QRHdajGHKa", "list_issues"),
        ("an-0001", "mcptoolu_01ZSi3MW8tIJm8Ihm6WoZ1Zi", "update_issue"),
        ("an-0004", "toolu_01AOJ6ZfPBzfQvA8mOyG1dOx", "calendar_list_events"),
        ("an-0004", "toolu_015ZvgCOIeXHvvTzJADyrZcz", "calendar_create_event"),
    ]
    assert flags_of(result) == {
        "mcptoolu_01lD44nrNkJFr8QRHdajGHKa": False,
        "mcptoolu_01ZSi3MW8tIJm8Ihm6WoZ1Zi": True,
        "toolu_01AOJ6ZfPBzfQvA8mOyG1dOx": None,
        "toolu_015ZvgCOIeXHvvTzJADyrZcz": True,
    }


def test_anthropic_metadata_names_the_person():
    record = anthropic(
        {"role": "user", "content": "Close OPS-1"},
        {"role": "assistant", "content": [tool_use("t1", "close_ticket", key="OPS-1")]},
        {"role": "user", "content": [tool_result("t1", "closed")]},
        {"role": "assistant", "content": [{"type": "text", "text": "Closed."}]},
    )
    record["metadata"] = {"user_id": "u-7"}
    assert audit_anthropic(record)["t1"]["user_id"] == "u-7"
