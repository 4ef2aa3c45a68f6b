"""tau2-bench simulations: ``simulations[].messages``, tool calls with a requestor, and the
tool message's ``error`` flag."""

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from auditor import scan
from auditor.readers import detect, read_file
from auditor.readers.tau2_bench import USER_CALLS_REASON

HERE = Path(__file__).parent


def tau2_call(call_id: str, name: str, requestor: str = "assistant", **arguments: Any) -> dict:
    return {"id": call_id, "name": name, "arguments": arguments, "requestor": requestor}


def tau2_message(role: str, content: str | None = None, *calls: dict) -> dict:
    return {"role": role, "content": content, "tool_calls": list(calls) or None, "turn_idx": 0}


def tau2_tool(call_id: str, content: str, error: bool | None = False, **fields: Any) -> dict:
    message = {"id": call_id, "role": "tool", "content": content, "requestor": "assistant"}
    if error is not None:
        message["error"] = error
    return message | fields


def simulation(*messages: dict, sim_id: str | None = "sim-1") -> dict:
    record = {"task_id": "4", "trial": 0, "termination_reason": "user_stop"}
    if sim_id is not None:
        record["id"] = sim_id
    return record | {"messages": list(messages)}


def results(*simulations: dict) -> dict:
    return {
        "timestamp": "2025-10-31T07:34:54",
        "info": {"num_trials": 1},
        "tasks": [],
        "simulations": list(simulations),
    }


def cancellation(error: bool | None = True, content: str = "Error: Reservation not found") -> dict:
    return simulation(
        tau2_message("assistant", "Hi! How can I help you today?"),
        tau2_message("user", "Please cancel EHGLP3."),
        tau2_message(
            "assistant", None, tau2_call("call_1", "cancel_reservation", reservation_id="EHGLP3")
        ),
        tau2_tool("call_1", content, error=error),
        tau2_message("assistant", "Done: EHGLP3 is cancelled and refunded."),
    )


def test_the_leaderboard_simulation_gives_its_calls_and_error_flags(calls_of, flags_of):
    path = HERE / "gpt-oss-120b_openai_2025-11-26__langchain_agent_airline_2025-11-26_00-37-06.json"
    assert detect(path).NAME == "tau2_bench"
    result = read_file(path, str(path))
    assert result.rejects == []
    simulation = "e4e023e6-8fdb-4c7d-8c5d-96c2a9a3aecd"
    assert [c.id for c in result.conversations] == [simulation]
    assert calls_of(result) == [
        (simulation, "chatcmpl-tool-cd3313ddce0b4372b9c9528cd24cdb1d", "get_user_details"),
        (simulation, "chatcmpl-tool-afb8ad636dc44b08a20a0160a899272c", "get_reservation_details"),
        (simulation, "chatcmpl-tool-268ac6d64b4e4037af549763dd493079", "book_reservation"),
    ]
    assert flags_of(result) == {
        "chatcmpl-tool-cd3313ddce0b4372b9c9528cd24cdb1d": False,
        "chatcmpl-tool-afb8ad636dc44b08a20a0160a899272c": False,
        "chatcmpl-tool-268ac6d64b4e4037af549763dd493079": True,
    }


def test_tau2_results_and_bare_simulation_arrays_are_detected(tmp_path: Path, write_json):
    assert detect(write_json(tmp_path / "a.json", results(cancellation()))).NAME == "tau2_bench"
    assert detect(write_json(tmp_path / "b.json", [cancellation()], None)).NAME == "tau2_bench"


def test_tau2_error_flag_is_the_failure_flag(tmp_path: Path, rows_of, write_json):
    row = rows_of(write_json(tmp_path / "r.json", results(cancellation())))["call_1"]
    assert (row["conversation_id"], row["format"]) == ("sim-1", "tau2_bench")
    assert (row["outcome"], row["outcome_rule"]) == ("tool_error", "flagged-error")
    assert row["evidence_pointer"] == "/simulations/0/messages/3/error"
    assert row["finding"] == "false_success"


def test_a_tau2_export_without_the_error_field_has_no_flag(tmp_path: Path, rows_of, write_json):
    path = write_json(tmp_path / "r.json", results(cancellation(error=None, content="cancelled")))
    conversation = read_file(path, str(path)).conversations[0]
    assert conversation.messages[3].parts[0].is_error is None
    assert rows_of(path)["call_1"]["outcome"] == "ok"


def test_the_simulated_user_starts_each_turn(tmp_path: Path, rows_of, write_json):
    sim = simulation(
        tau2_message("user", "Look up EHGLP3."),
        tau2_message("assistant", None, tau2_call("c1", "get_reservation_details", id="EHGLP3")),
        tau2_tool("c1", "Error: Reservation EHGLP3 not found", error=True),
        tau2_message("user", "Then just say hello."),
        tau2_message("assistant", "Hello! The reservation details are all in order."),
    )
    row = rows_of(write_json(tmp_path / "r.json", results(sim)))["c1"]
    assert row["turn"] == 0
    assert row["claim"] == "none"


def test_tau2_calls_the_user_makes_on_their_phone_are_passed_over(tmp_path: Path, write_json):
    sim = simulation(
        tau2_message("assistant", "Please run a speed test."),
        tau2_message("user", None, tau2_call("u1", "run_speed_test", requestor="user")),
        {
            "id": "u1",
            "role": "tool",
            "content": "Speed test failed: No Connection.",
            "requestor": "user",
            "error": False,
        },
        tau2_message("user", "The speed test failed."),
        tau2_message("assistant", None, tau2_call("a1", "enable_roaming", line_id="L1001")),
        tau2_tool("a1", "Roaming enabled successfully"),
        tau2_message("assistant", "Roaming is on now."),
    )
    result = scan([write_json(tmp_path / "r.json", results(sim))])
    assert result.calls["tool_call_id"].to_list() == ["a1"]
    assert result.passed_over == {USER_CALLS_REASON: 1}
    assert result.rejects.height == 0


def test_a_tau2_simulation_without_an_id_is_named_by_task_and_trial(tmp_path: Path, write_json):
    path = write_json(tmp_path / "r.json", results(cancellation() | {"id": None}))
    assert scan([path]).calls["conversation_id"].to_list() == ["r.json#task-4-trial-0"]


def test_a_tau2_reply_written_as_a_json_object_is_read_for_its_words(
    tmp_path: Path, rows_of, write_json
):
    sim = cancellation()
    sim["messages"][4]["content"] = json.dumps(
        {"message": "I couldn't cancel EHGLP3: it was not found."}
    )
    row = rows_of(write_json(tmp_path / "r.json", results(sim)))["call_1"]
    assert row["claim"] == "failure"
    assert row["finding"] is None


def test_a_tau2_tool_call_without_an_id_is_rejected_and_the_rest_read(tmp_path: Path, write_json):
    sim = cancellation()
    sim["messages"].insert(2, tau2_message("assistant", None, {"name": "get_user_details"}))
    result = scan([write_json(tmp_path / "r.json", results(sim))])
    assert result.calls["tool_call_id"].to_list() == ["call_1"]
    reason = result.rejects.row(0, named=True)["reason"]
    assert reason == "tool call without an id at /simulations/0/messages/2/tool_calls/0"


def test_a_malformed_tau2_document_is_reported_with_file_and_line(tmp_path: Path, write_json):
    path = write_json(tmp_path / "r.json", results(cancellation()))
    lines = path.read_text().splitlines()
    broken = next(i for i, line in enumerate(lines) if '"content": "Please cancel' in line)
    lines[broken] = lines[broken].replace('"content":', '"content"')
    path.write_text("\n".join(lines), encoding="utf-8")
    result = scan([path])
    reject = result.rejects.row(0, named=True)
    assert (reject["source"], reject["line"]) == (str(path), broken + 1)
    assert result.calls.height == 0


def test_a_cut_off_tau2_file_keeps_the_complete_simulations(tmp_path: Path, write_json):
    second = cancellation() | {"id": "sim-2"}
    path = write_json(tmp_path / "r.json", results(cancellation(), second))
    text = path.read_text()
    cut = text[: text.rindex("Done: EHGLP3")]
    path.write_text(cut, encoding="utf-8")
    result = scan([path])
    assert result.calls["conversation_id"].to_list() == ["sim-1"]
    assert result.rejects.row(0, named=True)["line"] == cut.count("\n") + 1


def test_a_tau2_simulation_dates_its_calls_by_the_assistant_message(
    tmp_path: Path, rows_of, write_json
):
    simulation = cancellation()
    simulation["messages"][2]["timestamp"] = "2026-03-20T18:42:31.339303"
    path = write_json(tmp_path / "results.json", results(simulation))
    row = rows_of(path)["call_1"]
    assert row["timestamp"] == datetime(2026, 3, 20, 18, 42, 31, 339303, tzinfo=UTC)


def test_tau2_dir_layout_reads_each_simulation_file_and_passes_over_the_results(
    tmp_path: Path, write_json
):
    """tau2's ``dir`` layout: ``results.json`` (tasks and info) beside ``simulations/<id>.json``."""
    run = tmp_path / "run"
    write_json(run / "results.json", {"timestamp": "2026-01-05T10:00:00", "info": {}, "tasks": []})
    (run / "simulations").mkdir()
    write_json(run / "simulations" / "sim-1.json", cancellation())
    write_json(run / "simulations" / "sim-2.json", cancellation() | {"id": "sim-2"})

    result = scan([run])

    assert sorted(result.calls["conversation_id"].to_list()) == ["sim-1", "sim-2"]
    assert result.calls["evidence_pointer"].to_list()[0] == "/messages/3/error"
    assert result.passed_over == {
        "tau2 run results without simulations (the dir layout keeps each simulation in "
        "simulations/<id>.json, read on its own)": 1
    }
