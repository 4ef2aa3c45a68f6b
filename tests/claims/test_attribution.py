"""Attribution: which calls of a turn each sentence speaks of, by action and target first."""

import pytest
from stages import action, lookup, reply, unit_saying


def test_a_verb_of_the_action_ties_a_sentence_without_the_tools_words():
    calls = [
        action(0, "send_sms", error="503 Service Unavailable", to="+4915112345678"),
        action(1, "assign_issue", issue="PAY-418", assignee="priya"),
    ]
    units = reply("Priya owns PAY-418 now. I've also pinged Maria about it.", calls)
    assert unit_saying(units, "pinged").calls == {0}


def test_a_sentence_about_another_action_is_not_about_the_failed_one():
    calls = [
        action(0, "git_commit", message="refresh lockfile", branch="main"),
        action(1, "git_push", error="rejected: non-fast-forward", branch="main"),
    ]
    units = reply("Committed the refreshed lockfile as 9b7d2e1 on main.", calls)
    assert units[0].calls == {0}


def test_of_two_calls_of_one_action_the_one_whose_target_is_named_is_spoken_of():
    calls = [
        action(0, "send_message", channel="eng-alerts", text="deploy at 5"),
        action(1, "send_message", error="channel_not_found", channel="ops-oncall", text="deploy"),
    ]
    units = reply("Posted the heads-up in eng-alerts.", calls)
    assert units[0].calls == {0}


@pytest.mark.parametrize(
    "sentence",
    [
        "The €40 for the cracked mug is on its way back to Aoife.",
        "Aoife's 40 is back on her card.",
        "Die 40 € sind schon unterwegs.",
    ],
)
def test_an_amount_written_otherwise_names_the_twin_that_was_for_it(sentence):
    calls = [
        action(0, "issue_refund", order="8829", amount=40.0),
        action(1, "issue_refund", error="charge_already_refunded", order="8830", amount=65.0),
    ]
    units = reply(sentence, calls)
    assert unit_saying(units, "40").calls == {0}


def test_both_x_and_y_speaks_of_the_world_not_of_both_calls():
    calls = [
        lookup(0, "check_availability", date="2026-12-03"),
        action(1, "book_room", error="409 Conflict", room="Orvieto", date="2026-12-04"),
    ]
    units = reply("Both the 3rd and the 4th are open for a walk-in.", calls)
    assert 1 not in units[0].calls


def test_both_alone_speaks_of_every_recent_call():
    calls = [
        action(0, "close_issue", key="OPS-1"),
        action(1, "close_issue", error="403 Forbidden", key="OPS-2"),
    ]
    units = reply("Both are closed out.", calls)
    assert units[0].calls == {0, 1}


@pytest.mark.parametrize(
    "sentence",
    [
        "Added 40 to both sizes, so you're at 52 in M and 47 in L.",
        "Bumped both variants; the drop is covered.",
        "Restocked both hoodies.",
    ],
)
def test_both_and_a_noun_speaks_of_every_recent_call(sentence):
    calls = [
        action(0, "update_inventory", variant_id="HOOD-M", adjust=40),
        action(1, "update_inventory", error="variant not found", variant_id="HOOD-L", adjust=40),
    ]
    units = reply(sentence, calls)
    assert 1 in units[0].calls


@pytest.mark.parametrize(
    ("name", "first", "second", "sentence"),
    [
        ("approve_refill", "RX-1002", "RX-1003", "The refill for RX-1002 could not be approved."),
        (
            "send_invoice",
            "INV-2201",
            "INV-2202",
            "Invoice INV-2201 could not be sent: the address bounced.",
        ),
        (
            "cancel_booking",
            "B-77",
            "B-78",
            "Booking B-77 could not be cancelled, it is past the cutoff.",
        ),
    ],
)
def test_a_failure_naming_one_call_of_a_tool_is_not_said_of_its_twin(name, first, second, sentence):
    calls = [
        action(0, name, error="refused", target=first),
        action(1, name, error="refused", target=second),
    ]
    units = reply(sentence, calls)
    assert 1 not in units[0].calls


def test_each_clause_speaks_of_its_own_call():
    calls = [
        action(0, "book_table", table="12", time="19:30"),
        action(1, "send_sms", error="timeout", to="Maria"),
    ]
    units = reply("Table 12 is booked for 19:30, and Maria has been texted.", calls)
    assert unit_saying(units, "Table 12").calls == {0}
    assert unit_saying(units, "Maria").calls == {1}


def test_calls_of_one_shell_tool_that_do_different_things_are_not_twins():
    calls = [
        action(0, "execute_bash", result={"listing": "audit materials folder"}, command="ls"),
        action(1, "execute_bash", error="cp: cannot stat", command="cp -r a/* b/"),
    ]
    calls[1].actions = frozenset({"copy"})
    units = reply("I attempted to copy the audit materials, but the folder is empty.", calls)
    assert 1 in units[0].calls


def test_a_failure_said_of_a_family_of_tools_covers_every_failed_call_of_it():
    calls = [
        action(0, "issue_claim", error="503 Service Unavailable", issue="972"),
        lookup(1, "issue_show", error="503 Service Unavailable", issue="973"),
    ]
    units = reply("The issue tools are not available right now.", calls)
    assert units[0].calls == {0, 1}


@pytest.mark.parametrize(
    "sentence",
    [
        "I was unable to create the calendar event: the calendar service did not respond.",
        "Creating the calendar event failed, the calendar timed out.",
        "The calendar event could not be created.",
    ],
)
def test_a_failure_that_names_one_tool_is_not_said_of_another_that_shares_its_verb(sentence):
    calls = [
        action(0, "create_ticket", error="Validation failed: field 'component' is required"),
        action(1, "create_calendar_event", error="MCP error -32001: Request timed out"),
    ]
    units = reply(sentence, calls)
    assert units[0].calls == {1}


def test_the_mcp_server_of_one_tool_of_a_family_does_not_take_the_failure_from_the_others():
    calls = [
        action(0, "mcp__issues__issue_create", error="No such tool available"),
        lookup(1, "issue_ready", error="No such tool available"),
    ]
    units = reply("The MCP issue tools are not available in this session.", calls)
    assert units[0].calls == {0, 1}


@pytest.mark.parametrize(
    "sentence",
    [
        "I couldn't load the vendor list just now (the vendor service timed out).",
        "The vendor service timed out, so I can't show the vendor list yet.",
        "Vendors: unavailable for now, the vendor service hit a timeout.",
    ],
)
def test_a_failure_in_the_words_of_one_calls_error_is_not_said_of_its_namesake(sentence):
    calls = [
        lookup(0, "venue_graphql", error="Vendor service timeout", event="EV-0822"),
        action(1, "send_vendor_confirmations", error="SMTP relay rejected batch", event="EV-0822"),
    ]
    units = reply(sentence, calls)
    assert units[0].calls == {0}
