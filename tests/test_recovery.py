"""Recovery: a failed call fixed by a retry of the same action in the same turn."""

import json

import pytest
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


# ----------------------------------------------------------------------------- target and effect
NOT_READ = (
    "<tool_use_error>File has not been read yet. Read it first before writing to it."
    "</tool_use_error>"
)


def coding_turn(*steps: dict, reply: str = "Done with the change.") -> dict:
    """One person's request, then the agent's calls and results, then its reply."""
    return audit(chat(user("tidy up the relay module"), *steps, assistant(reply)))


def test_a_refused_edit_is_recovered_by_reading_the_file_and_making_the_same_edit():
    edit = {"file_path": "/repo/src/relay.rs", "old_string": "let mut rx", "new_string": "let rx"}
    rows = coding_turn(
        assistant(None, call("a", "Edit", **edit)),
        tool("a", NOT_READ, isError=True),
        assistant(None, call("b", "Read", file_path="/repo/src/relay.rs")),
        tool("b", "1  use tokio;\n2  let mut rx = channel();"),
        assistant(None, call("c", "Edit", **edit)),
        tool("c", "The file /repo/src/relay.rs has been updated."),
    )
    assert rows["a"]["recovered_by"] == "c"


def test_a_refused_edit_is_recovered_by_the_same_change_made_with_another_tool():
    rows = coding_turn(
        assistant(
            None,
            call(
                "a",
                "Edit",
                file_path="crates/market/src/relay.rs",
                old_string="UnboundedReceiver<Event>",
                new_string="Receiver<Event>",
                replace_all=True,
            ),
        ),
        tool("a", NOT_READ, isError=True),
        assistant(
            None,
            call(
                "b",
                "Bash",
                command="sed -i 's/UnboundedReceiver<Event>/Receiver<Event>/g' "
                "/home/dev/repo/crates/market/src/relay.rs",
            ),
        ),
        tool("b", ""),
    )
    assert rows["a"]["recovered_by"] == "b"


def test_another_edit_of_the_same_file_does_not_recover_a_refused_edit():
    rows = coding_turn(
        assistant(
            None,
            call(
                "a",
                "Edit",
                file_path="src/server.rs",
                old_string="fn serve()",
                new_string="fn serve(auth: Auth)",
            ),
        ),
        tool("a", NOT_READ, isError=True),
        assistant(None, call("b", "Read", file_path="src/server.rs")),
        tool("b", "fn serve() {}\nfn health() {}"),
        assistant(
            None,
            call(
                "c",
                "Edit",
                file_path="src/server.rs",
                old_string="fn health()",
                new_string="fn healthz()",
            ),
        ),
        tool("c", "The file src/server.rs has been updated."),
    )
    assert rows["a"]["recovered"] is False
    assert rows["a"]["finding"] == "false_success"


def test_an_edit_of_another_file_does_not_recover_a_refused_edit():
    rows = coding_turn(
        assistant(None, call("a", "Edit", file_path="src/a.rs", old_string="x", new_string="y")),
        tool("a", NOT_READ, isError=True),
        assistant(None, call("b", "Edit", file_path="src/b.rs", old_string="x", new_string="y")),
        tool("b", "The file src/b.rs has been updated."),
    )
    assert rows["a"]["recovered"] is False


def test_a_read_is_recovered_by_a_read_of_the_same_file_from_another_working_folder():
    rows = coding_turn(
        assistant(None, call("a", "Read", file_path="crates/gitafter/src/views.rs")),
        tool("a", "<tool_use_error>File does not exist.</tool_use_error>", isError=True),
        assistant(
            None, call("b", "Bash", command="cat /home/dev/repo/crates/gitafter/src/views.rs")
        ),
        tool("b", "use maud::html;"),
        reply="The views use maud.",
    )
    assert rows["a"]["recovered_by"] == "b"


def test_a_search_in_a_folder_above_recovers_a_read_only_when_it_finds_the_file():
    def run(found: str) -> dict:
        return coding_turn(
            assistant(None, call("a", "Read", file_path="crates/autopilot/src/benchmark.rs")),
            tool("a", "<tool_use_error>File does not exist.</tool_use_error>", isError=True),
            assistant(
                None,
                call("b", "Grep", pattern="fn run_benchmark", path="/work/repo/crates/autopilot"),
            ),
            tool("b", found),
            reply="Found where benchmarks run.",
        )["a"]

    assert run("crates/autopilot/src/benchmark.rs:12: fn run_benchmark()")["recovered_by"] == "b"
    assert run("crates/autopilot/src/bench/mod.rs:40: fn run_benchmark()")["recovered"] is False


def test_a_wrong_subcommand_is_recovered_by_the_right_one_not_by_asking_for_help():
    rows = coding_turn(
        assistant(
            None, call("a", "Bash", command="./target/debug/issue-tool create 'Add trait' 'd-019'")
        ),
        tool("a", "Exit code 2\nerror: unexpected argument 'd-019' found", isError=True),
        assistant(None, call("b", "Bash", command="./target/debug/issue-tool create --help")),
        tool("b", "Usage: issue-tool create [OPTIONS] <TITLE>"),
        assistant(
            None,
            call(
                "c",
                "Bash",
                command="./target/debug/issue-tool create --directive d-019 'Add trait'",
            ),
        ),
        tool("c", "✓ Created issue #1005"),
    )
    assert rows["a"]["recovered_by"] == "c"


@pytest.mark.parametrize(
    ("first", "second"),
    [("get_me", "get_current_user"), ("whoami", "get_profile"), ("get_viewer", "whoami")],
)
def test_an_identity_lookup_that_works_recovers_one_that_came_back_empty(first, second):
    rows = audit(
        chat(
            user("unlock bike 4471 for me"),
            assistant(None, call("a", first)),
            tool("a", "null"),
            assistant(None, call("b", second)),
            tool("b", json.dumps({"id": "r_90812", "name": "Sanne Visser"})),
            assistant("Hi Sanne! Shall I unlock bike 4471 now?"),
        )
    )
    assert rows["a"]["recovered_by"] == "b"
    assert rows["a"]["finding"] is None


def test_an_identity_lookup_in_the_next_turn_does_not_recover_one_that_came_back_empty():
    rows = audit(
        chat(
            user("unlock bike 4471 for me"),
            assistant(None, call("a", "get_me")),
            tool("a", "null"),
            assistant("Hi Sanne! Unlocking bike 4471 now."),
            user("thanks"),
            assistant(None, call("b", "get_current_user")),
            tool("b", json.dumps({"id": "r_90812", "name": "Sanne Visser"})),
            assistant("You're welcome, Sanne."),
        )
    )
    assert rows["a"]["recovered"] is False


@pytest.mark.parametrize(
    "post",
    [
        {"channel": "#ops", "text": "Restarted api-gateway, error rate is back under 1%."},
        {"to": "oncall@example.com", "body": "api-gateway restarted at 09:12"},
    ],
)
def test_a_message_that_names_what_a_command_acted_on_does_not_recover_it(post):
    rows = audit(
        chat(
            user("bounce api-gateway and tell #ops"),
            assistant(None, call("a", "Bash", command="docker compose restart api-gateway")),
            tool("a", text_block("Command timed out after 2m 0.0s"), isError=True),
            assistant(None, call("b", "send_message", **post)),
            tool("b", json.dumps({"ok": True})),
            assistant("Bounced api-gateway and posted in #ops."),
        )
    )
    assert rows["a"]["recovered"] is False


def test_a_later_call_that_also_failed_is_no_recovery():
    rows = coding_turn(
        assistant(None, call("a", "Bash", command="git push origin main")),
        tool("a", "Exit code 1\n! [rejected] main -> main (fetch first)", isError=True),
        assistant(None, call("b", "Bash", command="git push --force-with-lease origin main")),
        tool("b", "Exit code 1\n! [remote rejected] main -> main (protected branch)", isError=True),
    )
    assert (rows["a"]["recovered"], rows["b"]["recovered"]) == (False, False)


def test_a_command_whose_goal_an_edit_reached_is_recovered():
    rows = coding_turn(
        assistant(None, call("a", "Bash", command="cargo add uuid --no-default-features")),
        tool(
            "a",
            "error: cannot override workspace dependency with `--default-features`",
            isError=True,
        ),
        assistant(
            None,
            call(
                "b",
                "Edit",
                file_path="crates/autopilot/Cargo.toml",
                old_string="[dependencies]",
                new_string="[dependencies]\nuuid = { workspace = true }",
            ),
        ),
        tool("b", "The file crates/autopilot/Cargo.toml has been updated."),
    )
    assert rows["a"]["recovered_by"] == "b"


def test_a_corrected_id_of_the_same_record_recovers_a_lookup():
    rows = audit(
        chat(
            user("Where is my order 9502127?"),
            assistant(None, call("a", "get_order_details", order_id="9502127")),
            tool("a", "Error: Order not found"),
            assistant(None, call("b", "get_order_details", order_id="#W9502127")),
            tool("b", json.dumps({"order_id": "#W9502127", "status": "delivered"})),
            assistant("Order #W9502127 was delivered."),
        )
    )
    assert rows["a"]["recovered_by"] == "b"


def deploys(first: str, second: str) -> dict:
    """A deploy refused in one environment, then the same service deployed to ``second``."""
    return audit(
        chat(
            user("Ship billing 2.4."),
            assistant(None, call("a", "deploy_service", service="billing", environment=first)),
            tool("a", text_block(f"change freeze in effect for {first}"), isError=True),
            assistant(None, call("b", "deploy_service", service="billing", environment=second)),
            tool("b", json.dumps({"status": "deployed", "environment": second})),
            assistant("Deployed."),
        )
    )


@pytest.mark.parametrize("second", ["staging", "eu-west-1-canary"])
def test_a_tool_call_in_another_place_does_not_recover_it(second):
    assert deploys("prod", second)["a"]["recovered"] is False


def test_a_tool_call_retried_in_the_same_place_recovers_it():
    assert deploys("prod", "prod")["a"]["recovered_by"] == "b"


def test_the_same_namespace_on_another_cluster_does_not_recover_it():
    command = "kubectl --context {} -n checkout set image deployment/api api=reg/api:3.18.2"
    rows = coding_turn(
        assistant(None, call("a", "Bash", command=command.format("staging-eu-1"))),
        tool(
            "a",
            "Unable to connect to the server: dial tcp 10.40.0.12:443: i/o timeout",
            isError=True,
        ),
        assistant(None, call("b", "Bash", command=command.format("staging-us-1"))),
        tool("b", "deployment.apps/api image updated"),
    )
    assert rows["a"]["recovered"] is False


def statements(first: str, second: str) -> dict:
    """An SQL statement that failed on the connection, then ``second`` run and done."""
    return audit(
        chat(
            user("Dedupe yesterday's clickstream rows."),
            assistant(None, call("a", "execute_sql", sql=first)),
            tool("a", text_block("MCP error -32000: Connection closed"), isError=True),
            assistant(None, call("b", "execute_sql", sql=second)),
            tool("b", json.dumps({"status": "success", "rows_affected": 41872})),
            assistant("Done."),
        )
    )["a"]


DEDUPE = "DELETE FROM {} t USING (SELECT id FROM {} GROUP BY id HAVING COUNT(*) > 1) d"


@pytest.mark.parametrize("other", ["ANALYTICS.EVENTS.CLICKSTREAM", "raw.events.clickstream_backup"])
def test_the_same_statement_on_another_table_does_not_recover_it(other):
    first = DEDUPE.format("RAW.EVENTS.CLICKSTREAM", "RAW.EVENTS.CLICKSTREAM")
    assert statements(first, DEDUPE.format(other, other))["recovered"] is False


def test_a_table_the_error_named_corrected_recovers_it():
    rows = audit(
        chat(
            user("How many orders in March 2023?"),
            assistant(None, call("a", "run_sql", sql="SELECT count(*) FROM orders_2023")),
            tool("a", 'ERROR:  relation "orders_2023" does not exist'),
            assistant(None, call("b", "run_sql", sql="SELECT count(*) FROM orders")),
            tool("b", json.dumps([{"count": 4182}])),
            assistant("4,182 orders."),
        )
    )
    assert rows["a"]["recovered_by"] == "b"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("cancellations_v2", "fct_reservations"),
        ("churn_scores", "customer_events"),
        ("orders_2023", "invoices"),
    ],
)
def test_another_table_in_place_of_the_one_the_error_named_does_not_recover_it(first, second):
    rows = audit(
        chat(
            user("How many cancellations in November?"),
            assistant(None, call("a", "run_sql", sql=f"SELECT count(*) FROM {first}")),
            tool("a", f"Error: 404 Not found: Table {first} was not found"),
            assistant(None, call("b", "run_sql", sql=f"SELECT count(*) FROM {second}")),
            tool("b", json.dumps([{"count": 211}])),
            assistant("211 cancellations in November."),
        )
    )
    assert rows["a"]["recovered"] is False


def test_the_same_statement_on_the_same_table_recovers_it():
    first = DEDUPE.format("RAW.EVENTS.CLICKSTREAM", "RAW.EVENTS.CLICKSTREAM")
    second = DEDUPE.format('"RAW"."EVENTS"."CLICKSTREAM"', "RAW.EVENTS.CLICKSTREAM")
    assert statements(first, second)["recovered_by"] == "b"


# ----------------------------------------------------------------------------- the next turn
def refused_booking(reply: str, answer: str) -> dict:
    """A booking refused, the assistant's reply, the person's answer, and a second booking."""
    first = [{"id": "card_1", "amount": 299}]
    second = [{"id": "card_1", "amount": 375}]
    return audit(
        chat(
            user("Book HAT204 for me."),
            assistant(
                None, call("a", "book_reservation", user_id="mia_3668", payment_methods=first)
            ),
            tool("a", "Error: payment amount does not add up, total price is 375, but paid 299"),
            assistant(reply),
            user(answer),
            assistant(
                None, call("b", "book_reservation", user_id="mia_3668", payment_methods=second)
            ),
            tool("b", json.dumps({"reservation_id": "HATHAT", "status": "booked"})),
            assistant("Booked: reservation HATHAT."),
        )
    )["a"]


def test_a_corrected_request_the_person_confirms_in_the_next_turn_is_a_recovery():
    row = refused_booking(
        "The total is actually $375. Shall I charge $375 to your card?", "Yes please."
    )
    assert row["recovered_by"] == "b"


def rescheduled_post(reply: str, answer: str, retried_at: str = "2026-03-15T18:00:00") -> dict:
    """A post refused for a date in the past, a reply putting another date to the person, their
    answer, and the post scheduled again."""
    return audit(
        chat(
            user("Schedule the launch carousel for tomorrow at 6pm."),
            assistant(None, call("a", "schedule_post", draft_id="d_55", at="2026-03-13T18:00:00")),
            tool("a", json.dumps({"success": False, "error": "publish_at_in_past"})),
            assistant(reply),
            user(answer),
            assistant(None, call("b", "schedule_post", draft_id="d_55", at=retried_at)),
            tool("b", json.dumps({"success": True, "status": "scheduled"})),
            assistant("Scheduled."),
        )
    )["a"]


@pytest.mark.parametrize(
    "reply",
    [
        "I sent 13/03, which has passed. Tomorrow is Sunday 15/03 — shall I use 18:00 then?",
        "Oops, that date was in the past. Go with 3/15 at 6pm?",
        "Das Datum lag in der Vergangenheit. Soll ich den 15.03. um 18 Uhr nehmen?",
        "The 13th has passed. Sunday 15 March at 18:00 instead?",
        "Op vrijdag 13 maart zit het vol. Zondag 15 maart is er plek. Zal ik die nemen?",
        "That slot is gone. How about March 15th, same time?",
    ],
)
def test_a_corrected_date_put_to_the_person_in_their_format_is_a_recovery(reply):
    assert rescheduled_post(reply, "yes")["recovered_by"] == "b"


def test_a_corrected_option_named_by_its_part_is_a_recovery():
    rows = audit(
        chat(
            user("Give Sofia an E5 licence."),
            assistant(None, call("a", "assign_license", user="sofia@nd.no", sku="SPE_E5")),
            tool("a", json.dumps({"success": False, "error": "NO_AVAILABLE_SEATS"})),
            assistant("All E5 seats are taken. I can assign E3 now instead. Which do you prefer?"),
            user("E3 for now please."),
            assistant(None, call("b", "assign_license", user="sofia@nd.no", sku="SPE_E3")),
            tool("b", json.dumps({"success": True, "sku": "SPE_E3"})),
            assistant("Done."),
        )
    )
    assert rows["a"]["recovered_by"] == "b"


def installment_change(reply: str, answer: str) -> dict:
    """A change refused for a missing meter reading, a reply asking for it, the person's
    reading, and the change sent again with it."""
    return audit(
        chat(
            user("Lower my monthly payment to 85, account 4471-220-93."),
            assistant(None, call("a", "update_installment", account="4471-220-93", amount=85)),
            tool(
                "a",
                "Installment change requires a meter reading from the last 60 days.",
                isError=True,
            ),
            assistant(reply),
            user(answer),
            assistant(
                None,
                call("b", "update_installment", account="4471-220-93", amount=85, reading=48213),
            ),
            tool("b", json.dumps({"account": "4471-220-93", "amount": 85, "saved": True})),
            assistant("Saved."),
        )
    )["a"]


@pytest.mark.parametrize(
    "reply",
    [
        "It needs a recent meter reading. Send me today's and I'll put the change through.",
        "I'll need a meter reading from the last 60 days before I can lower it.",
        "Wenn Sie mir Ihren aktuellen Zählerstand nennen, setze ich den Abschlag gleich neu.",
        "Necesito una lectura reciente del contador; en cuanto me la indique, lo cambio.",
        "Il me faut un relevé de compteur récent : donnez-le-moi et je relance le changement.",
        "Daarvoor heb ik een recente meterstand nodig. Stuur hem door, dan pas ik het aan.",
        "Mi serve una lettura recente del contatore: me la comunichi e aggiorno la rata.",
        "Preciso de uma leitura recente do contador. Envie-me e eu altero a prestação.",
    ],
)
def test_a_value_asked_for_without_a_question_mark_then_given_is_a_recovery(reply):
    assert installment_change(reply, "48213 kWh, read today.")["recovered_by"] == "b"


def test_a_retry_with_a_value_nobody_asked_for_is_no_recovery():
    row = installment_change("The system turned the change down.", "48213 kWh, read today.")
    assert row["recovered"] is False


def test_a_retry_on_a_date_nobody_named_is_no_recovery():
    reply = "That date was in the past. Which day should it go out instead?"
    assert rescheduled_post(reply, "whenever")["recovered"] is False


def test_a_retry_in_the_next_turn_without_a_question_to_the_person_is_no_recovery():
    row = refused_booking("The booking went through.", "Great, also add a bag.")
    assert row["recovered"] is False


# ----------------------------------------------------------------------------- probes
def test_a_failed_lookup_the_agent_moved_past_is_a_probe_with_no_unreported_failure():
    rows = coding_turn(
        assistant(None, call("a", "Read", file_path="src/nip77/varint.rs")),
        tool("a", "<tool_use_error>File does not exist.</tool_use_error>", isError=True),
        assistant("Let me search for it.", call("b", "Glob", pattern="**/nip77*.rs")),
        tool("b", "src/nip77.rs"),
        reply="There are already some basic varint tests in nip77.rs.",
    )
    assert (rows["a"]["probe"], rows["a"]["finding"]) == (True, None)


def test_a_failed_write_the_agent_moved_past_is_no_probe():
    rows = coding_turn(
        assistant(None, call("a", "Bash", command="git push origin main")),
        tool("a", "Exit code 1\n! [rejected] main -> main (fetch first)", isError=True),
        assistant(None, call("b", "Bash", command="git log --oneline -3")),
        tool("b", "a1b2c3 fix relay"),
        reply="Here are the last commits.",
    )
    assert (rows["a"]["probe"], rows["a"]["finding"]) == (False, "unreported_failure")


def test_a_probe_whose_reply_presents_the_data_it_was_to_fetch_is_still_a_false_success():
    rows = coding_turn(
        assistant(None, call("a", "Bash", command="cat config/.env.production")),
        tool(
            "a", "Exit code 1\ncat: config/.env.production: No such file or directory", isError=True
        ),
        assistant(None, call("b", "Bash", command="ls config")),
        tool("b", "settings.toml"),
        reply="config/.env.production sets DATABASE_URL=postgres://db:5432/app and WORKERS=8.",
    )
    assert (rows["a"]["probe"], rows["a"]["finding"]) == (True, "false_success")


@pytest.mark.parametrize("closing", ["Done.", "Klaar.", "All set 👍", "Fatto ✅"])
def test_a_closing_word_after_a_probe_presents_nothing_it_was_to_fetch(closing):
    rows = coding_turn(
        assistant(None, call("a", "Read", file_path="app/workshop.py")),
        tool("a", "<tool_use_error>File does not exist.</tool_use_error>", isError=True),
        assistant(None, call("b", "Read", file_path="app/repairs.py")),
        tool("b", "def quote(bike): ..."),
        reply=closing,
    )
    assert (rows["a"]["probe"], rows["a"]["finding"]) == (True, None)


@pytest.mark.parametrize(
    "reply",
    [
        "There's one parcel on the way: a DPD delivery due 13:12-14:12.",
        "Your 2 orders are on their way, arriving 14:00 and 16:30.",
        "The 3 open invoices total 1,240.50 and are all sorted by due date.",
    ],
)
def test_what_the_next_call_fetched_is_not_what_a_probe_was_to_fetch(reply):
    rows = coding_turn(
        assistant(None, call("a", "check_parcel_locker", locker="LK-7")),
        tool("a", '{"error": "locker under maintenance"}'),
        assistant(None, call("b", "list_deliveries")),
        tool(
            "b",
            '{"deliveries": [{"carrier": "DPD", "window": "13:12-14:12", "n": 1}], '
            '"orders": [2, "14:00", "16:30"], "invoices": [3, "1,240.50"]}',
        ),
        reply=reply,
    )
    assert (rows["a"]["probe"], rows["a"]["finding"]) == (True, None)


def test_an_identity_call_is_never_a_probe():
    rows = audit(
        chat(
            user("who am I signed in as?"),
            assistant(None, call("a", "get_me")),
            tool("a", json.dumps({"data": {"viewer": None}})),
            assistant(None, call("b", "list_repos")),
            tool("b", "[]"),
            assistant("You're signed in as jana."),
        )
    )
    assert (rows["a"]["probe"], rows["a"]["finding"]) == (False, "identity_assumed")


def test_a_command_is_known_by_what_it_runs_however_it_is_started():
    rows = coding_turn(
        assistant(
            None,
            call(
                "a",
                "Bash",
                command="cargo run --bin autopilot -- issue create 'Add APM view' 'long text'",
            ),
        ),
        tool("a", "Exit code 2\nerror: unexpected argument 'long text' found", isError=True),
        assistant(
            None,
            call(
                "b",
                "Bash",
                command="./target/debug/autopilot issue create 'Add APM view' -d 'long text'",
            ),
        ),
        tool("b", "✓ Created issue #813"),
    )
    assert rows["a"]["recovered_by"] == "b"


def test_a_subcommand_the_error_named_corrected_is_a_recovery_but_not_one_that_drops_the_id():
    wrong_word = coding_turn(
        assistant(None, call("a", "Bash", command="alembic upgrade-head")),
        tool("a", "Exit code 2\nalembic: error: invalid choice: 'upgrade-head'", isError=True),
        assistant(None, call("b", "Bash", command="alembic upgrade head")),
        tool("b", "INFO  Running upgrade 3f2a -> 9c1d"),
    )
    assert wrong_word["a"]["recovered_by"] == "b"
    dropped_id = coding_turn(
        assistant(None, call("a", "Bash", command="./bin/tracker directive get d-016")),
        tool("a", "Exit code 2\nerror: unrecognized subcommand 'get'", isError=True),
        assistant(None, call("b", "Bash", command="./bin/tracker directive list")),
        tool("b", "d-001 Ship v1\nd-016 Metrics"),
    )
    assert dropped_id["a"]["recovered"] is False


def test_a_narrower_run_that_passes_does_not_recover_a_whole_run_that_failed():
    rows = coding_turn(
        assistant(None, call("a", "Bash", command="pytest -q 2>&1 | tail -3")),
        tool("a", "=========== 2 failed, 40 passed in 3.10s ==========="),
        assistant(None, call("b", "Bash", command="pytest -q tests/test_parser.py")),
        tool("b", "=========== 12 passed in 0.40s ==========="),
        reply="All tests pass.",
    )
    assert rows["a"]["recovered"] is False


@pytest.mark.parametrize(
    "dates",
    [
        {"from": "2026-06-01", "to": "2026-06-30"},
        {"start": "2026-06-01T09:00", "to": "2026-06-01T17:00Z"},
    ],
)
def test_a_date_under_a_target_key_does_not_make_two_records_one(dates):
    rows = audit(
        chat(
            user("freeze members 118 and 231 for June"),
            assistant(
                None,
                call("a", "freeze_membership", member_id=118, **dates),
                call("b", "freeze_membership", member_id=231, **dates),
            ),
            tool("a", json.dumps({"member_id": 118, "status": "frozen"})),
            tool("b", text_block("Freeze rejected: outstanding balance"), isError=True),
            assistant("Member 118 is frozen for June."),
        )
    )
    assert rows["b"]["recovered"] is False


@pytest.mark.parametrize(
    ("failed", "later"),
    [
        # failed calls whose impact no rule names: their actions tell them apart
        (("attach_documents", {"files": ["a.jpg"]}), ("send_confirmation_email", {})),
        (("attach_receipt", {"file": "r.pdf"}), ("notify_customer", {})),
        (("share_folder", {"with": "adjuster"}), ("post_comment", {"text": "Shared"})),
    ],
)
def test_another_action_on_the_same_record_does_not_recover_a_call(failed, later):
    (name, arguments), (other, other_arguments) = failed, later
    rows = audit(
        chat(
            user("attach the photos to claim SIN-20931 and confirm by email"),
            assistant(None, call("a", name, claim_id="SIN-20931", **arguments)),
            tool("a", text_block("quota exceeded for claim SIN-20931"), isError=True),
            assistant(None, call("b", other, claim_id="SIN-20931", **other_arguments)),
            tool("b", json.dumps({"sent": True})),
            assistant("A confirmation for SIN-20931 is on its way."),
        )
    )
    assert rows["a"]["recovered"] is False


@pytest.mark.parametrize(
    ("request_text", "key", "failed_value", "other_value"),
    [
        ("Move Thursday chemistry for 7B and 7C into lab R-214.", "class", "7B", "7C"),
        ("Book rooms A and B for the Friday workshop.", "room", "A", "B"),
        ("Enable SSO for the teams north-1 and north-2.", "team", "north-1", "north-2"),
        ("Zet de kassa's K1 en K2 op de nieuwe prijs.", "till", "K1", "K2"),
    ],
)
def test_the_next_item_the_person_asked_for_does_not_recover_the_one_that_failed(
    request_text, key, failed_value, other_value
):
    rows = audit(
        chat(
            user(request_text),
            assistant(None, call("a", "update_schedule", **{key: failed_value, "slot": 3})),
            tool("a", text_block(f"403 Forbidden: {failed_value} is locked"), isError=True),
            assistant(None, call("b", "update_schedule", **{key: other_value, "slot": 3})),
            tool("b", json.dumps({key: other_value, "updated": True})),
            assistant("Both are updated."),
        )
    )
    assert rows["a"]["recovered"] is False
    assert rows["a"]["recovered_by"] is None


def test_a_value_the_person_never_asked_for_still_corrects_the_one_the_error_named():
    rows = audit(
        chat(
            user("Move Thursday chemistry for 7B into lab R-214."),
            assistant(None, call("a", "update_schedule", room="R-214", group="7B")),
            tool("a", text_block("400: room R-214 unknown, did you mean R214?"), isError=True),
            assistant(None, call("b", "update_schedule", room="R214", group="7B")),
            tool("b", json.dumps({"room": "R214", "updated": True})),
            assistant("7B now has chemistry in R214 on Thursdays."),
        )
    )
    assert rows["a"]["recovered"] is True


@pytest.mark.parametrize(
    ("failed", "other"),
    [
        (
            "set -a && . ./.env.staging && set +a && alembic upgrade head",
            "DATABASE_URL=postgresql://app@localhost:5432/app_dev alembic upgrade head",
        ),
        (
            "kubectl --context prod rollout restart deploy/api",
            "kubectl --context kind-dev rollout restart deploy/api",
        ),
        ("fly deploy --app shop-production", "fly deploy --app shop-staging"),
        (
            "terraform -chdir=envs/prod apply -auto-approve",
            "terraform -chdir=envs/dev apply -auto-approve",
        ),
        (
            "psql postgresql://app@db.prod.internal/app -f 042.sql",
            "psql postgresql://app@localhost/app -f 042.sql",
        ),
    ],
)
def test_the_same_program_run_against_another_place_does_not_recover_it(failed, other):
    rows = coding_turn(
        assistant(None, call("a", "Bash", command=failed)),
        tool("a", "Exit code 1\nconnection timed out", isError=True),
        assistant(None, call("b", "Bash", command=other)),
        tool("b", "OK"),
    )
    assert rows["a"]["recovered"] is False


def test_the_same_program_run_again_against_the_same_place_recovers_it():
    rows = coding_turn(
        assistant(None, call("a", "Bash", command="fly deploy --app shop-staging")),
        tool("a", "Exit code 1\nError: timeout waiting for builder", isError=True),
        assistant(None, call("b", "Bash", command="fly deploy --app shop-staging --remote-only")),
        tool("b", "Deployed"),
    )
    assert rows["a"]["recovered_by"] == "b"


def test_another_subcommand_that_drops_what_the_failed_one_acted_on_is_no_correction():
    rows = coding_turn(
        assistant(None, call("a", "Bash", command="git push origin main")),
        tool(
            "a",
            "Exit code 1\n ! [rejected] main -> main (fetch first)\n"
            "error: failed to push some refs",
            isError=True,
        ),
        assistant(None, call("b", "Bash", command="git tag -a v2.3.1 -m 'Release 2.3.1'")),
        tool("b", ""),
    )
    assert rows["a"]["recovered"] is False


def test_a_refused_edit_retried_with_the_file_s_own_spelling_is_recovered():
    path = "/repo/.github/workflows/ci.yml"
    rows = coding_turn(
        assistant(
            None, call("a", "Edit", file_path=path, old_string="node: 18", new_string="node: 20")
        ),
        tool("a", "File has not been read yet. Read it first before writing to it.", isError=True),
        assistant(None, call("b", "Read", file_path=path)),
        tool("b", "     1\tnode: '18.x'"),
        assistant(
            None,
            call("c", "Edit", file_path=path, old_string="node: '18.x'", new_string="node: '20.x'"),
        ),
        tool("c", "The file has been updated."),
    )
    assert rows["a"]["recovered_by"] == "c"


@pytest.mark.parametrize(
    ("done", "failed"),
    [
        ("provision_accounts", "enroll_benefits"),
        ("create_badge", "assign_parking_spot"),
        ("order_laptop", "book_induction"),
        ("provision_accounts", "hris_benefits_enrolment"),  # a name that says no verb
    ],
)
def test_another_step_for_the_same_record_sent_beside_it_does_not_recover_it(done, failed):
    rows = audit(
        chat(
            user("Onboard E-3318 for Monday"),
            assistant(
                None, call("a", done, employee_id="E-3318"), call("b", failed, employee_id="E-3318")
            ),
            tool("a", '{"created": ["okta:00u9k"]}'),
            tool("b", text_block("rejected: employee E-3318 is pre-hire"), isError=True),
            assistant("Kofi is all set for Monday."),
        )
    )
    assert (rows["b"]["recovered"], rows["b"]["finding"]) == (False, "false_success")


def dbt_rerun(second: str) -> dict:
    """A dbt model that failed in dev, a fix to its SQL, then another dbt run."""
    return audit(
        chat(
            user("fix stg_payments and run it in dev"),
            assistant(None, call("a", "Bash", command="dbt run -s stg_payments --target dev")),
            tool("a", "Exit code 1\nDatabase Error in model stg_payments", isError=True),
            assistant("Reproduced.", call("e", "Edit", file_path="models/stg_payments.sql")),
            tool("e", "The file has been updated."),
            assistant(None, call("b", "Bash", command=second)),
            tool("b", "Completed successfully"),
            assistant("All green."),
        )
    )["a"]


@pytest.mark.parametrize(
    "second",
    [
        "dbt run -s stg_payments+ --target dev",
        "dbt run -s +stg_payments --target dev",
        "dbt run --select 2+stg_payments --target dev",
    ],
)
def test_a_rerun_of_the_model_with_a_graph_selector_recovers_it(second):
    assert dbt_rerun(second)["recovered"] is True


@pytest.mark.parametrize(
    "second", ["dbt run -s stg_orders --target dev", "dbt run -s stg_payments --target prod"]
)
def test_a_run_of_another_model_or_target_does_not(second):
    assert dbt_rerun(second)["recovered"] is False
