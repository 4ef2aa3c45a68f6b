"""Benchmark trajectories: tau-bench runs, tau2-bench simulations, SWE-agent ``.traj`` files."""

import json
from pathlib import Path
from typing import Any

from builders import assistant, call, chat, tool, user, write_jsonl

from auditor import scan
from auditor.readers import detect, read_file
from auditor.readers.tau2_bench import USER_CALLS_REASON
from auditor.readers.tau_bench import FEW_SHOT_REASON


def write_json(path: Path, value: Any, indent: int | None = 2) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=indent), encoding="utf-8")
    return path


def rows_of(result) -> dict[str, dict]:
    return {row["tool_call_id"]: row for row in result.calls.iter_rows(named=True)}


# ----------------------------------------------------------------------------- tau-bench
def run(task_id: int, *traj: dict, trial: int = 0) -> dict:
    return {"task_id": task_id, "reward": 0.0, "info": {"source": "user"}, "traj": list(traj)}


def booking_run(task_id: int = 3, error: str = "Error: not enough seats on flight HAT139") -> dict:
    return run(
        task_id,
        {"role": "system", "content": "# Airline Agent Policy"},
        user("Book HAT139 for both of us."),
        assistant(None, call("call_1", "book_reservation", flight="HAT139")),
        tool("call_1", error, name="book_reservation"),
        assistant("Your reservation on HAT139 is booked."),
    ) | {"trial": 0}


def test_a_tau_bench_results_array_is_detected(tmp_path: Path):
    path = write_json(tmp_path / "gpt-4o-airline.json", [booking_run()])
    assert detect(path).NAME == "tau_bench"


def test_tau_bench_error_text_is_a_failure_the_reply_hides(tmp_path: Path):
    path = write_json(tmp_path / "gpt-4o-airline.json", [booking_run()])
    row = rows_of(scan([path]))["call_1"]
    assert (row["format"], row["conversation_id"]) == (
        "tau_bench",
        "gpt-4o-airline.json#task-3-trial-0",
    )
    assert (row["outcome"], row["finding"]) == ("error_payload", "false_success")
    assert row["evidence_pointer"] == "/0/traj/3/content"


def test_each_tau_bench_run_starts_on_its_own_line(tmp_path: Path):
    runs = [booking_run(1), booking_run(2)]
    path = write_json(tmp_path / "runs.json", runs)
    second = path.read_text().splitlines().index("  {", 2) + 1
    conversations = read_file(path, str(path)).conversations
    assert [c.line for c in conversations] == [2, second]
    assert conversations[1].messages[3].parts[0].line == second


def test_reused_tau_bench_call_ids_pair_with_the_nearest_open_call(tmp_path: Path):
    traj = [
        user("Find me a flight."),
        assistant(None, call("call_X", "search_direct_flight", origin="JFK")),
        tool("call_X", "Error: no direct flights from JFK"),
        assistant(None, call("call_X", "search_onestop_flight", origin="JFK")),
        tool("call_X", '[[{"flight_number": "HAT057"}]]'),
        assistant("HAT057 via ATL is the only option."),
    ]
    path = write_json(tmp_path / "runs.json", [run(7, *traj) | {"trial": 1}])
    result = scan([path])
    outcomes = [(r["tool_name"], r["outcome"]) for r in result.calls.iter_rows(named=True)]
    assert outcomes == [("search_direct_flight", "error_payload"), ("search_onestop_flight", "ok")]
    assert result.rejects.height == 0


def test_few_shot_display_lines_are_passed_over_with_a_reason(tmp_path: Path):
    display = (
        "user: Cancel my trip\nassistant: None\ntool: Error: user not found\nassistant: Sorry."
    )
    path = tmp_path / "MockAirlineDomainEnv-few_shot.jsonl"
    path.write_text(
        json.dumps({"messages_display": display}) + "\n" + '{"messages_display": 3}\n',
        encoding="utf-8",
    )
    assert detect(path).NAME == "tau_bench"
    result = scan([path])
    assert result.calls.height == 0
    assert result.passed_over == {FEW_SHOT_REASON: 1}
    assert result.rejects.row(0, named=True)["line"] == 2


def test_a_cut_off_tau_bench_file_keeps_the_complete_runs(tmp_path: Path):
    path = write_json(tmp_path / "runs.json", [booking_run(1), booking_run(2)])
    text = path.read_text()
    path.write_text(text[: text.rindex("Your reservation")], encoding="utf-8")
    result = scan([path])
    assert result.calls["conversation_id"].to_list() == ["runs.json#task-1-trial-0"]
    reject = result.rejects.row(0, named=True)
    assert reject["source"] == str(path)
    assert reject["line"] == text[: text.rindex("Your reservation")].count("\n") + 1
    assert "malformed JSON document" in reject["reason"]


def test_a_tau_bench_message_that_is_not_an_object_is_rejected_with_its_pointer(tmp_path: Path):
    broken = booking_run()
    broken["traj"].insert(2, "assistant: None")
    result = scan([write_json(tmp_path / "runs.json", [broken])])
    assert result.calls.height == 1
    assert result.rejects.row(0, named=True)["reason"] == "message is not an object at /0/traj/2"


# ----------------------------------------------------------------------------- tau2-bench
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


def test_tau2_results_and_bare_simulation_arrays_are_detected(tmp_path: Path):
    assert detect(write_json(tmp_path / "a.json", results(cancellation()))).NAME == "tau2_bench"
    assert detect(write_json(tmp_path / "b.json", [cancellation()], None)).NAME == "tau2_bench"


def test_tau2_error_flag_is_the_failure_flag(tmp_path: Path):
    row = rows_of(scan([write_json(tmp_path / "r.json", results(cancellation()))]))["call_1"]
    assert (row["conversation_id"], row["format"]) == ("sim-1", "tau2_bench")
    assert (row["outcome"], row["outcome_rule"]) == ("tool_error", "flagged-error")
    assert row["evidence_pointer"] == "/simulations/0/messages/3/error"
    assert row["finding"] == "false_success"


def test_a_tau2_export_without_the_error_field_has_no_flag(tmp_path: Path):
    path = write_json(tmp_path / "r.json", results(cancellation(error=None, content="cancelled")))
    conversation = read_file(path, str(path)).conversations[0]
    assert conversation.messages[3].parts[0].is_error is None
    assert rows_of(scan([path]))["call_1"]["outcome"] == "ok"


def test_the_simulated_user_starts_each_turn(tmp_path: Path):
    sim = simulation(
        tau2_message("user", "Look up EHGLP3."),
        tau2_message("assistant", None, tau2_call("c1", "get_reservation_details", id="EHGLP3")),
        tau2_tool("c1", "Error: Reservation EHGLP3 not found", error=True),
        tau2_message("user", "Then just say hello."),
        tau2_message("assistant", "Hello! The reservation details are all in order."),
    )
    row = rows_of(scan([write_json(tmp_path / "r.json", results(sim))]))["c1"]
    assert row["turn"] == 0
    assert row["claim"] == "none"


def test_tau2_calls_the_user_makes_on_their_phone_are_passed_over(tmp_path: Path):
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


def test_a_tau2_simulation_without_an_id_is_named_by_task_and_trial(tmp_path: Path):
    path = write_json(tmp_path / "r.json", results(cancellation() | {"id": None}))
    assert scan([path]).calls["conversation_id"].to_list() == ["r.json#task-4-trial-0"]


def test_a_tau2_reply_written_as_a_json_object_is_read_for_its_words(tmp_path: Path):
    sim = cancellation()
    sim["messages"][4]["content"] = json.dumps(
        {"message": "I couldn't cancel EHGLP3: it was not found."}
    )
    row = rows_of(scan([write_json(tmp_path / "r.json", results(sim))]))["call_1"]
    assert row["claim"] == "failure"
    assert row["finding"] is None


def test_a_tau2_tool_call_without_an_id_is_rejected_and_the_rest_read(tmp_path: Path):
    sim = cancellation()
    sim["messages"].insert(2, tau2_message("assistant", None, {"name": "get_user_details"}))
    result = scan([write_json(tmp_path / "r.json", results(sim))])
    assert result.calls["tool_call_id"].to_list() == ["call_1"]
    reason = result.rejects.row(0, named=True)["reason"]
    assert reason == "tool call without an id at /simulations/0/messages/2/tool_calls/0"


def test_a_malformed_tau2_document_is_reported_with_file_and_line(tmp_path: Path):
    path = write_json(tmp_path / "r.json", results(cancellation()))
    lines = path.read_text().splitlines()
    broken = next(i for i, line in enumerate(lines) if '"content": "Please cancel' in line)
    lines[broken] = lines[broken].replace('"content":', '"content"')
    path.write_text("\n".join(lines), encoding="utf-8")
    result = scan([path])
    reject = result.rejects.row(0, named=True)
    assert (reject["source"], reject["line"]) == (str(path), broken + 1)
    assert result.calls.height == 0


def test_a_cut_off_tau2_file_keeps_the_complete_simulations(tmp_path: Path):
    second = cancellation() | {"id": "sim-2"}
    path = write_json(tmp_path / "r.json", results(cancellation(), second))
    text = path.read_text()
    cut = text[: text.rindex("Done: EHGLP3")]
    path.write_text(cut, encoding="utf-8")
    result = scan([path])
    assert result.calls["conversation_id"].to_list() == ["sim-1"]
    assert result.rejects.row(0, named=True)["line"] == cut.count("\n") + 1


def test_chat_files_are_not_taken_for_benchmarks(tmp_path: Path):
    record = chat(user("hi"), assistant(None, call("c", "ping")), tool("c", "pong"))
    assert detect(write_jsonl(tmp_path / "a.jsonl", [record])).NAME == "openai_chat"
    assert (
        detect(write_json(tmp_path / "b.json", {"conversations": [record]})).NAME == "openai_chat"
    )


# ----------------------------------------------------------------------------- SWE-agent
def swe_tool(call_id: str, content: str) -> dict:
    return {
        "role": "tool",
        "content": content,
        "agent": "main",
        "message_type": "observation",
        "tool_call_ids": [call_id],
    }


def function_calling_traj() -> dict:
    return {
        "history": [
            {
                "role": "system",
                "content": "SETTING: You are an autonomous programmer.",
                "agent": "main",
            },
            {"role": "user", "content": "DEMONSTRATION ...", "is_demo": True, "agent": "main"},
            {"role": "user", "content": "ISSUE: SyntaxError in missing_colon.py", "agent": "main"},
            assistant("Let's run it.", call("call_A", "bash", command="python missing_colon.py")),
            swe_tool("call_A", "Traceback (most recent call last):\n  SyntaxError: invalid syntax"),
            assistant("python missing_colon.py ran fine.", call("call_A", "bash", command="ls")),
            swe_tool("call_A", "missing_colon.py"),
            {
                "role": "user",
                "content": "Your output was not formatted correctly.",
                "agent": "main",
            },
            assistant("Submitting.", call("call_submit", "submit")),
            swe_tool("call_submit", "diff --git a/missing_colon.py"),
        ],
        "trajectory": [{"action": "ls", "observation": "not read", "thought": "", "messages": []}],
    }


def test_swe_agent_trajectories_are_detected(tmp_path: Path):
    assert (
        detect(write_json(tmp_path / "run" / "i-1.traj", function_calling_traj())).NAME
        == "swe_agent"
    )
    other = write_json(tmp_path / "i-2.json", function_calling_traj(), None)
    assert detect(other).NAME == "swe_agent"


def test_swe_agent_function_calls_pair_through_tool_call_ids(tmp_path: Path):
    path = write_json(tmp_path / "default__t-0.00" / "repo-1.traj", function_calling_traj())
    result = scan([path])
    rows = list(result.calls.iter_rows(named=True))
    assert [r["tool_name"] for r in rows] == ["bash", "bash", "submit"]
    assert rows[0]["conversation_id"] == "default__t-0.00/repo-1.traj"
    assert (rows[0]["outcome"], rows[0]["finding"]) == ("error_payload", "false_success")
    assert rows[0]["evidence_pointer"].startswith("/history/4/content")
    assert rows[1]["outcome"] == "ok"
    assert {r["turn"] for r in rows} == {0}
    assert result.rejects.height == 0


def test_swe_agent_demonstrations_and_framework_notices_are_not_the_person(tmp_path: Path):
    path = write_json(tmp_path / "run" / "repo-1.traj", function_calling_traj())
    conversation = read_file(path, str(path)).conversations[0]
    users = [m for m in conversation.messages if m.role == "user"]
    assert [(m.parts[0].text[:5], m.from_person) for m in users] == [
        ("ISSUE", True),
        ("Your ", False),
    ]


def old_traj() -> dict:
    return {
        "environment": "swe_main",
        "history": [
            {
                "role": "system",
                "content": "COMMANDS:\nopen:\n  docstring: opens a file\n",
                "agent": "primary",
            },
            {"role": "user", "content": "ISSUE: division by zero", "agent": "primary"},
            {
                "role": "assistant",
                "content": "Edit it.\n```\nedit 4:4\n```",
                "action": "edit 4:4\n",
                "agent": "primary",
            },
        ],
        "trajectory": [
            {
                "action": "edit 4:4\n    return a/b if b else 0\nend_of_edit\n",
                "observation": "Your proposed edit has introduced new syntax error(s).",
                "thought": "Let's guard the division.\n\n",
                "response": "Let's guard the division.\n\n```\nedit 4:4\n```",
                "state": "{}",
            },
            {
                "action": "python -m pytest tests\n",
                "observation": "===== 1 failed, 3 passed in 0.2s =====",
                "thought": "The edit is in. Now the tests.\n\n",
            },
            {
                "action": "submit\n",
                "observation": "diff --git a/x.py b/x.py",
                "thought": "All 4 tests pass, submitting.",
            },
        ],
        "info": {"exit_status": "submitted"},
    }


def test_older_swe_agent_runs_are_read_from_the_trajectory_steps(tmp_path: Path):
    path = write_json(tmp_path / "run" / "repo-2.traj", old_traj())
    rows = list(scan([path]).calls.iter_rows(named=True))
    assert [(r["tool_call_id"], r["tool_name"]) for r in rows] == [
        ("step-0", "edit"),
        ("step-1", "bash"),
        ("step-2", "submit"),
    ]
    tests = rows[1]
    assert (tests["outcome"], tests["outcome_rule"]) == ("error_payload", "test-run-failed")
    assert tests["evidence_pointer"] == "/trajectory/1/observation"
    assert tests["finding"] == "false_success"


def test_a_malformed_traj_file_is_reported_with_its_line(tmp_path: Path):
    path = tmp_path / "run" / "repo-3.traj"
    path.parent.mkdir()
    path.write_text('{\n  "history": [\n    {"role": "user",\n', encoding="utf-8")
    result = scan([path])
    reject = result.rejects.row(0, named=True)
    assert (reject["source"], reject["line"]) == (str(path), 4)
    assert "malformed JSON document" in reject["reason"]
