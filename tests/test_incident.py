"""`auditor incident`: the blast radius of a failing tool, from the calls table."""

import json
from datetime import UTC, datetime
from pathlib import Path

from builders import assistant, call, chat, text_block, tool, user, write_jsonl
from typer.testing import CliRunner

from auditor.cli import app
from auditor.output.tables import read_calls
from auditor.views.incident import Filters, blast_radius, parse_moment

runner = CliRunner()


def refused(n: int, when: str, person: str | None, account: str = "relay-bot") -> dict:
    """A ticket update refused with 403 that the reply calls done, dated and by a person."""
    record = chat(
        user(f"Close OPS-{n}"),
        assistant(None, call(f"c{n}", "update_ticket", key=f"OPS-{n}")),
        tool(f"c{n}", text_block(f"403 Forbidden: account '{account}' is read-only"), isError=True),
        assistant(f"Done, OPS-{n} is closed."),
        conversation_id=f"conv-{n}",
    )
    record["created_at"] = when
    if person:
        record["user"] = person
    return record


def worked(n: int, when: str) -> dict:
    record = chat(
        user(f"Close OPS-{n}"),
        assistant(None, call(f"c{n}", "update_ticket", key=f"OPS-{n}")),
        tool(f"c{n}", text_block(f"OPS-{n} closed")),
        assistant(f"OPS-{n} is closed."),
        conversation_id=f"conv-{n}",
    )
    record["created_at"] = when
    return record


def table(tmp_path: Path, *records: dict):
    write_jsonl(tmp_path / "logs.jsonl", list(records))
    runner.invoke(app, ["scan", str(tmp_path / "logs.jsonl"), "--out", str(tmp_path / "out")])
    return read_calls(tmp_path / "out")


def test_first_and_last_seen_are_the_first_and_last_failure(tmp_path: Path):
    calls = table(
        tmp_path,
        worked(1, "2026-03-01T08:00:00Z"),
        refused(2, "2026-03-02T09:00:00Z", "u-1"),
        refused(3, "2026-03-04T10:00:00Z", "u-2"),
        worked(4, "2026-03-05T08:00:00Z"),
    )
    incident = blast_radius(calls, Filters(tool="update_ticket"))
    assert incident.first_seen == datetime(2026, 3, 2, 9, tzinfo=UTC)
    assert incident.last_seen == datetime(2026, 3, 4, 10, tzinfo=UTC)
    assert (incident.calls, incident.failed) == (4, 2)


def test_the_failure_rate_is_given_per_day(tmp_path: Path):
    calls = table(
        tmp_path,
        worked(1, "2026-03-01T08:00:00Z"),
        refused(2, "2026-03-01T09:00:00Z", "u-1"),
        worked(3, "2026-03-04T08:00:00Z"),
    )
    series = blast_radius(calls, Filters(tool="update_ticket")).over_time
    by_day = {row["bucket"].day: row["failure_rate"] for row in series.iter_rows(named=True)}
    assert by_day == {1: 0.5, 4: 0.0}


def test_people_who_got_a_false_claim_are_counted_once(tmp_path: Path):
    calls = table(
        tmp_path,
        refused(1, "2026-03-01T08:00:00Z", "u-1"),
        refused(2, "2026-03-01T09:00:00Z", "u-1"),
        refused(3, "2026-03-02T09:00:00Z", "u-2"),
    )
    incident = blast_radius(calls)
    assert (incident.false_claims, incident.conversations, incident.users) == (3, 3, 2)


def test_a_format_without_user_ids_is_named_instead_of_counted(tmp_path: Path):
    calls = table(tmp_path, refused(1, "2026-03-01T08:00:00Z", None))
    incident = blast_radius(calls)
    assert incident.users is None
    assert incident.formats_without_users == ["openai_chat"]


def test_the_time_window_leaves_out_calls_outside_it(tmp_path: Path):
    calls = table(
        tmp_path,
        refused(1, "2026-03-01T08:00:00Z", "u-1"),
        refused(2, "2026-03-05T08:00:00Z", "u-2"),
    )
    window = Filters(since=parse_moment("2026-03-04"), until=parse_moment("2026-03-05", end=True))
    assert blast_radius(calls, window).calls == 1


def test_the_same_error_about_different_names_is_grouped(tmp_path: Path):
    calls = table(
        tmp_path,
        refused(1, "2026-03-01T08:00:00Z", "u-1", account="relay-bot"),
        refused(2, "2026-03-01T09:00:00Z", "u-2", account="ops-bot"),
    )
    errors = blast_radius(calls).top_errors
    assert errors.height == 1
    assert errors.row(0, named=True)["calls"] == 2


def test_incident_prints_json_for_scripts(tmp_path: Path):
    table(tmp_path, refused(1, "2026-03-01T08:00:00Z", "u-1"))
    result = runner.invoke(
        app, ["incident", "--out", str(tmp_path / "out"), "--tool", "update_ticket", "--json"]
    )
    assert result.exit_code == 0, result.output
    numbers = json.loads(result.output)
    assert numbers["conversations_with_false_claim"] == 1
    assert numbers["first_seen"] == "2026-03-01T08:00:00+00:00"


def test_a_date_that_is_no_date_is_a_usage_error(tmp_path: Path):
    table(tmp_path, refused(1, "2026-03-01T08:00:00Z", "u-1"))
    result = runner.invoke(app, ["incident", "--out", str(tmp_path / "out"), "--since", "soon"])
    assert result.exit_code == 2
