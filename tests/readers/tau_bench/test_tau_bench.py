"""tau-bench results: a JSON array of runs whose ``traj`` holds chat messages; few-shot
``messages_display`` files are passed over."""

import json
from pathlib import Path

from builders import assistant, call, tool, user

from auditor import scan
from auditor.readers import detect, read_file
from auditor.readers.tau_bench import FEW_SHOT_REASON

HERE = Path(__file__).parent


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


def test_the_airline_run_gives_its_calls_and_the_error_text(calls_of, flags_of, rows_of):
    path = HERE / "gpt-4o-airline.json"
    assert detect(path).NAME == "tau_bench"
    result = read_file(path, str(path))
    assert result.rejects == []
    run = "gpt-4o-airline.json#task-13-trial-1"
    assert [(c.id, c.line) for c in result.conversations] == [(run, 2)]
    assert calls_of(result) == [
        (run, "call_aHFvcOCBnUSBGb47m72g1qAH", "get_reservation_details"),
        (run, "call_12ZKvycpF90C5LBULDtq0YVV", "update_reservation_flights"),
    ]
    assert flags_of(result) == {
        "call_aHFvcOCBnUSBGb47m72g1qAH": None,
        "call_12ZKvycpF90C5LBULDtq0YVV": None,
    }
    failed = rows_of(path)["call_12ZKvycpF90C5LBULDtq0YVV"]
    assert (failed["outcome"], failed["evidence_pointer"]) == (
        "error_payload",
        "/0/traj/11/content",
    )


def test_the_few_shot_sample_is_passed_over():
    path = HERE / "MockAirlineDomainEnv-few_shot.jsonl"
    assert detect(path).NAME == "tau_bench"
    result = read_file(path, str(path))
    assert (result.conversations, result.rejects) == ([], [])
    assert result.passed_over == {FEW_SHOT_REASON: 1}


def test_a_tau_bench_results_array_is_detected(tmp_path: Path, write_json):
    path = write_json(tmp_path / "gpt-4o-airline.json", [booking_run()])
    assert detect(path).NAME == "tau_bench"


def test_tau_bench_error_text_is_a_failure_the_reply_hides(tmp_path: Path, rows_of, write_json):
    path = write_json(tmp_path / "gpt-4o-airline.json", [booking_run()])
    row = rows_of(path)["call_1"]
    assert (row["format"], row["conversation_id"]) == (
        "tau_bench",
        "gpt-4o-airline.json#task-3-trial-0",
    )
    assert (row["outcome"], row["finding"]) == ("error_payload", "false_success")
    assert row["evidence_pointer"] == "/0/traj/3/content"


def test_each_tau_bench_run_starts_on_its_own_line(tmp_path: Path, write_json):
    runs = [booking_run(1), booking_run(2)]
    path = write_json(tmp_path / "runs.json", runs)
    second = path.read_text().splitlines().index("  {", 2) + 1
    conversations = read_file(path, str(path)).conversations
    assert [c.line for c in conversations] == [2, second]
    assert conversations[1].messages[3].parts[0].line == second


def test_reused_tau_bench_call_ids_pair_with_the_nearest_open_call(tmp_path: Path, write_json):
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


def test_a_cut_off_tau_bench_file_keeps_the_complete_runs(tmp_path: Path, write_json):
    path = write_json(tmp_path / "runs.json", [booking_run(1), booking_run(2)])
    text = path.read_text()
    path.write_text(text[: text.rindex("Your reservation")], encoding="utf-8")
    result = scan([path])
    assert result.calls["conversation_id"].to_list() == ["runs.json#task-1-trial-0"]
    reject = result.rejects.row(0, named=True)
    assert reject["source"] == str(path)
    assert reject["line"] == text[: text.rindex("Your reservation")].count("\n") + 1
    assert "malformed JSON document" in reject["reason"]


def test_a_tau_bench_message_that_is_not_an_object_is_rejected_with_its_pointer(
    tmp_path: Path, write_json
):
    broken = booking_run()
    broken["traj"].insert(2, "assistant: None")
    result = scan([write_json(tmp_path / "runs.json", [broken])])
    assert result.calls.height == 1
    assert result.rejects.row(0, named=True)["reason"] == "message is not an object at /0/traj/2"
