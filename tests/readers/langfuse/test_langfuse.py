"""Langfuse trace exports {trace, observations}: TOOL observations and the tool messages inside
generation inputs are calls with results, each exchange read once; failure is level ERROR."""

import json
from pathlib import Path
from typing import Any

from auditor import scan
from auditor.model import TextPart, ToolCall, ToolResult
from auditor.readers import detect, read_file
from auditor.readers.langfuse import EMPTY_TOOL, FRAMEWORK_STEP

HERE = Path(__file__).parent
CLAUDE_AGENT = HERE / "claude-agent-2025-12-22.trace.json"
LANGGRAPH = HERE / "langgraph-python-2025-08-22.trace.json"


def exchanges(result) -> list[tuple[str, str, Any, bool | None, Any]]:
    """(call id, tool, arguments, is_error, result content) per call, in order."""
    found = []
    for conversation in result.conversations:
        results = {
            p.call_id: p
            for m in conversation.messages
            for p in m.parts
            if isinstance(p, ToolResult)
        }
        assert len(results) == sum(
            isinstance(p, ToolResult) for m in conversation.messages for p in m.parts
        ), "a result read twice"
        for message in conversation.messages:
            for part in message.parts:
                if isinstance(part, ToolCall):
                    answer = results.get(part.id)
                    found.append(
                        (
                            part.id,
                            part.name,
                            part.arguments,
                            answer.is_error if answer else None,
                            answer.content if answer else None,
                        )
                    )
    return found


def observation(kind: str, start: str, **fields: Any) -> dict:
    return {"id": f"obs-{start}", "type": kind, "startTime": f"2025-01-01T00:00:{start}Z", **fields}


def export(path: Path, *observations: dict, **trace: Any) -> Path:
    document = {"trace": {"id": "trace-1", "name": "demo", **trace}, "observations": observations}
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def chat(*messages: dict) -> str:
    return json.dumps(list(messages))


ASK = {"role": "user", "content": "Delete the staging bucket"}
CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "delete_bucket", "arguments": "{}"}}
    ],
}


# ----------------------------------------------------------------------------- the real files
def test_tool_observations_without_ids_answer_the_models_calls_by_name_and_arguments():
    result = read_file(CLAUDE_AGENT, CLAUDE_AGENT.name)
    assert detect(CLAUDE_AGENT).NAME == "langfuse"
    assert result.rejects == []
    assert [(i, name, args, flag) for i, name, args, flag, _ in exchanges(result)] == [
        ("toolu_01TKoqQLvY2UWuC49qnD48y7", "mcp__weather__get_weather", {"city": "Berlin"}, False),
        (
            "toolu_01NtVat4vJLFfVd5TqdLHcA7",
            "mcp__weather__get_weather",
            {"city": "New York"},
            False,
        ),
    ]
    (conversation,) = result.conversations
    assert conversation.id == "097f1d8982fa909b8cffb14a166ec272"
    texts = [
        (m.role, p.text[:30])
        for m in conversation.messages
        for p in m.parts
        if isinstance(p, TextPart)
    ]
    assert texts == [
        ("user", "What's the weather like in Ber"),
        ("assistant", "I'll check the weather in both"),
        ("assistant", "Great! Here's the current weat"),
    ]
    assert result.passed_over == {FRAMEWORK_STEP.format("SPAN"): 1}


def test_a_langchain_tool_message_in_a_span_and_in_the_next_input_is_one_exchange():
    result = read_file(LANGGRAPH, LANGGRAPH.name)
    assert detect(LANGGRAPH).NAME == "langfuse"
    ((call_id, name, arguments, flag, content),) = exchanges(result)
    assert (call_id, name, arguments, flag) == (
        "call_1oGK863sxQHlPreFhDdEs3yl",
        "Web-Search",
        {"query": "example"},
        False,
    )
    assert json.loads(content)[0]["url"] == "https://example.com"
    # The tool's definition sent under role "tool" is no result; the graph's own steps are
    # passed over.
    assert result.passed_over == {FRAMEWORK_STEP.format("SPAN"): 6}


# ----------------------------------------------------------------------------- failure and shapes
def test_a_tool_observation_at_level_error_is_a_tool_error_with_its_status_message(tmp_path):
    path = export(
        tmp_path / "t.json",
        observation("GENERATION", "01", input=chat(ASK), output=json.dumps(CALL)),
        observation(
            "TOOL",
            "02",
            name="delete_bucket",
            input="{}",
            output=None,
            level="ERROR",
            statusMessage="AccessDenied: not allowed to delete staging",
            metadata={"attributes": {"gen_ai.tool.call.id": "c1"}},
        ),
        observation(
            "GENERATION",
            "03",
            input=chat(ASK, CALL, {"role": "tool", "tool_call_id": "c1", "content": "error"}),
            output="The staging bucket is deleted.",
        ),
    )
    assert exchanges(read_file(path, "t.json")) == [
        ("c1", "delete_bucket", {}, True, "AccessDenied: not allowed to delete staging")
    ]
    row = scan([path]).calls.row(0, named=True)
    assert (row["outcome"], row["finding"]) == ("tool_error", "false_success")
    assert row["evidence"] == "AccessDenied: not allowed to delete staging"


def test_tool_messages_in_generation_inputs_carry_their_own_failure_flags(tmp_path):
    anthropic_call = {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "t1", "name": "read_file", "input": {"p": "a"}}],
    }
    anthropic_error = {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "t1",
                "content": "no such file",
                "is_error": True,
            }
        ],
    }
    langchain_call = {
        "type": "ai",
        "content": "",
        "tool_calls": [{"name": "ls", "args": {"dir": "/"}, "id": "t2", "type": "tool_call"}],
    }
    langchain_error = {"type": "tool", "tool_call_id": "t2", "content": "denied", "status": "error"}
    path = export(
        tmp_path / "t.json",
        observation(
            "GENERATION",
            "01",
            input={
                "messages": [ASK, anthropic_call, anthropic_error, langchain_call, langchain_error]
            },
            output="Both worked.",
        ),
    )
    assert [(i, flag) for i, _, _, flag, _ in exchanges(read_file(path, "t.json"))] == [
        ("t1", True),
        ("t2", True),
    ]


def test_inputs_and_outputs_as_objects_plain_text_or_null(tmp_path):
    path = export(
        tmp_path / "t.json",
        observation("SPAN", "00", name="agent", input=None, output=None),
        observation("GENERATION", "01", input={"prompt": "What is 2+2?"}, output="4"),
        observation(
            "TOOL",
            "02",
            name="tool.search.wikipedia.start-1",
            input=None,
            output=None,
            metadata={"attributes": {"openinference.span.kind": "TOOL"}},
        ),
        observation("TOOL", "03", name="calculator", input={"expr": "2+2"}, output="4"),
    )
    result = read_file(path, "t.json")
    (conversation,) = result.conversations
    assert [(m.role, m.parts[0].text) for m in conversation.messages[:2]] == [
        ("user", "What is 2+2?"),
        ("assistant", "4"),
    ]
    # A tool run no model call announced is a call of its own.
    assert [(name, args, content) for _, name, args, _, content in exchanges(result)] == [
        ("calculator", {"expr": "2+2"}, "4")
    ]
    assert result.passed_over == {FRAMEWORK_STEP.format("SPAN"): 1, EMPTY_TOOL: 1}


def test_the_copy_of_the_observations_inside_the_trace_is_not_read_again(tmp_path):
    tool = observation(
        "TOOL",
        "02",
        name="delete_bucket",
        input="{}",
        output="deleted",
        metadata='{"attributes": {"gen_ai.tool.call.id": "c1"}}',
    )
    generation = observation("GENERATION", "01", input=chat(ASK), output=json.dumps(CALL))
    path = export(tmp_path / "t.json", generation, tool, observations=[generation, tool])
    assert [i for i, *_ in exchanges(read_file(path, "t.json"))] == ["c1"]
    assert scan([path]).calls.height == 1
