"""Recovery: a failed call fixed by a retry of the same action in the same turn."""

import json

from builders import assistant, audit, call, chat, text_block, tool, user

TIMEOUT = {"error": {"code": -32001, "message": "Request timed out"}}
WEATHER = "Chicago: sunny, 58F"


def test_a_retry_with_the_same_arguments_that_works_recovers_the_call():
    rows = audit(
        chat(
            user("weather in Chicago tomorrow?"),
            assistant(None, call("a", "get_weather", location="Chicago")),
            tool("a", None, **TIMEOUT),
            assistant(None, call("b", "get_weather", location="Chicago")),
            tool("b", WEATHER),
            assistant("Tomorrow in Chicago: sunny, 58F."),
        )
    )
    assert rows["a"]["recovered"] is True
    assert rows["a"]["recovered_by"] == "b"
    assert rows["a"]["finding"] is None


def test_a_retry_that_corrects_the_value_the_error_complained_about_recovers():
    rows = audit(
        chat(
            user("open an issue labelled bug"),
            assistant(None, call("a", "github_create_issue", title="VAT bug", labels="bug")),
            tool("a", text_block("Validation Failed: field labels must be an array"), isError=True),
            assistant(None, call("b", "github_create_issue", title="VAT bug", labels=["bug"])),
            tool("b", json.dumps({"number": 482})),
            assistant("Opened #482."),
        )
    )
    assert rows["a"]["recovered"] is True


def test_the_same_tool_on_another_target_is_not_a_recovery():
    rows = audit(
        chat(
            user("close 42 and 43"),
            assistant(None, call("a", "update_ticket", id=42), call("b", "update_ticket", id=43)),
            tool("a", text_block("Ticket is locked"), isError=True),
            tool("b", json.dumps({"id": 43, "state": "closed"})),
            assistant("Both are closed."),
        )
    )
    assert rows["a"]["recovered"] is False
    assert rows["a"]["finding"] == "false_success"


def test_an_earlier_success_of_the_same_tool_does_not_recover_a_later_failure():
    rows = audit(
        chat(
            user("weather?"),
            assistant(None, call("a", "get_weather", location="Chicago")),
            tool("a", WEATHER),
            assistant(None, call("b", "get_weather", location="Chicago")),
            tool("b", None, **TIMEOUT),
            assistant("Sunny, 58F."),
        )
    )
    assert rows["b"]["recovered"] is False


def test_a_retry_in_the_next_turn_is_not_a_recovery():
    rows = audit(
        chat(
            user("weather?"),
            assistant(None, call("a", "get_weather", location="Chicago")),
            tool("a", None, **TIMEOUT),
            assistant("The weather service timed out."),
            user("try again"),
            assistant(None, call("b", "get_weather", location="Chicago")),
            tool("b", WEATHER),
            assistant("Sunny, 58F."),
        )
    )
    assert rows["a"]["recovered"] is False


def test_a_parallel_twin_that_returns_recovers_the_one_that_timed_out():
    rows = audit(
        chat(
            user("EUR to USD?"),
            assistant(None, call("a", "fx_rate", base="EUR"), call("b", "fx_rate", base="EUR")),
            tool("a", None, **TIMEOUT),
            tool("b", "1 EUR = 1.0842 USD"),
            assistant("1 EUR = 1.0842 USD."),
        )
    )
    assert rows["a"]["recovered"] is True


def test_a_shell_command_counts_only_when_run_again_not_when_another_command_runs():
    rows = audit(
        chat(
            user("run the tests"),
            assistant(None, call("a", "Bash", command="npm test 2>&1 | tail -25")),
            tool("a", "Tests:       1 failed, 23 passed, 24 total"),
            assistant(None, call("b", "Bash", command="git status")),
            tool("b", "nothing to commit"),
            assistant(None, call("c", "Bash", command="npm test 2>&1 | tail -8")),
            tool("c", "Tests:       24 passed, 24 total"),
            assistant("All 24 tests pass now."),
        )
    )
    assert rows["a"]["recovered_by"] == "c"
