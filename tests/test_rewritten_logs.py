"""Logs that change under a nightly run in other ways than growing: rotated, truncated, deleted,
or replaced by another file of the same size and modification time. Each time, the incremental
night gives the tables a full scan of the same logs gives."""

import json
import os
import shutil
from pathlib import Path

import polars as pl
import pytest
from builders import write_jsonl
from test_nightly import forbidden_update, greeting, missing_channel, rate_limited_post, run

from auditor.run.parts import REPEATED


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    """Night 1's logs, scanned with a state folder: a gateway log and an archive."""
    logs = tmp_path / "logs"
    logs.mkdir()
    write_jsonl(
        logs / "gateway.jsonl",
        [rate_limited_post("c-1"), forbidden_update("c-3", "SUP-4471"), greeting("c-4")],
    )
    write_jsonl(logs / "archive.jsonl", [greeting("c-0")])
    night(logs, "night-1")
    return logs


def night(logs: Path, name: str):
    """``auditor scan logs --state state --out <name>``: the tables of that night."""
    out = logs.parent / name
    result = run("scan", logs, "--out", out, "--state", logs.parent / "state", "-q")
    assert result.exit_code in (0, 1), result.output
    return out


def full_scan(logs: Path) -> Path:
    out = logs.parent / "full"
    assert run("scan", logs, "--out", out, "-q").exit_code in (0, 1)
    return out


def assert_same_tables(night: Path, full: Path) -> None:
    """The same calls, rejects and counts of what was passed over."""
    assert pl.read_parquet(night / "calls.parquet").equals(pl.read_parquet(full / "calls.parquet"))
    assert (night / "rejects.jsonl").read_text() == (full / "rejects.jsonl").read_text()
    summaries = [json.loads((out / "summary.json").read_text()) for out in (night, full)]
    for key in ("conversations", "tool_calls", "passed_over_by_reason", "findings"):
        assert summaries[0][key] == summaries[1][key], key


def test_a_rotated_log_and_its_new_successor(logs: Path):
    """logrotate: gateway.jsonl becomes gateway.jsonl.1, a new gateway.jsonl starts."""
    (logs / "gateway.jsonl").rename(logs / "gateway.jsonl.1")
    write_jsonl(logs / "gateway.jsonl", [missing_channel("c-5")])
    assert_same_tables(night(logs, "night-2"), full_scan(logs))


def test_a_log_rotated_by_copy_and_truncate_that_grew_past_its_old_size(logs: Path):
    """copytruncate: the old lines move to gateway.jsonl.1, and the new lines written since
    make gateway.jsonl longer than it was, though its start is not what it was."""
    gateway = logs / "gateway.jsonl"
    shutil.copy(gateway, logs / "gateway.jsonl.1")
    size = gateway.stat().st_size
    write_jsonl(gateway, [missing_channel(f"c-{n}") for n in range(5, 9)])
    assert gateway.stat().st_size > size
    assert_same_tables(night(logs, "night-2"), full_scan(logs))


def test_a_truncated_log(logs: Path):
    gateway = logs / "gateway.jsonl"
    first_line = gateway.read_bytes().split(b"\n", 1)[0] + b"\n"
    with gateway.open("r+b") as handle:
        handle.truncate(len(first_line))
    assert_same_tables(night(logs, "night-2"), full_scan(logs))


@pytest.fixture
def copied(tmp_path: Path) -> Path:
    """Night 1 over two logs that both hold c-3: archive.jsonl, read first, and gateway.jsonl,
    whose c-3 a full scan leaves out as a repeat (a log copied into a longer one)."""
    logs = tmp_path / "logs"
    logs.mkdir()
    write_jsonl(logs / "archive.jsonl", [greeting("c-0"), forbidden_update("c-3", "SUP-4471")])
    write_jsonl(
        logs / "gateway.jsonl", [rate_limited_post("c-1"), forbidden_update("c-3", "SUP-4471")]
    )
    night(logs, "night-1")
    return logs


def test_deleting_the_file_that_held_a_conversation_first_brings_back_the_later_copy(
    copied: Path,
):
    (copied / "archive.jsonl").unlink()
    tonight = night(copied, "night-2")
    assert "c-3" in pl.read_parquet(tonight / "findings.parquet")["conversation_id"].to_list()
    assert_same_tables(tonight, full_scan(copied))


def test_rewriting_the_file_that_held_a_conversation_first_brings_back_the_later_copy(
    copied: Path,
):
    write_jsonl(copied / "archive.jsonl", [greeting("c-0")])
    tonight = night(copied, "night-2")
    assert "c-3" in pl.read_parquet(tonight / "findings.parquet")["conversation_id"].to_list()
    assert_same_tables(tonight, full_scan(copied))


def test_calls_left_out_as_repeats_are_counted_on_a_night_that_reads_nothing(copied: Path):
    tonight = night(copied, "night-2")  # nothing changed: every row carried
    passed_over = json.loads((tonight / "summary.json").read_text())["passed_over_by_reason"]
    assert passed_over[REPEATED] == 1
    assert_same_tables(tonight, full_scan(copied))


def test_a_log_replaced_by_another_of_the_same_size_and_modification_time(logs: Path):
    """The ticket SUP-4471 becomes SUP-4472 in place, and the old time is set back
    (``touch -r``): only the change time, which the kernel sets, tells."""
    gateway = logs / "gateway.jsonl"
    before = gateway.stat()
    gateway.write_bytes(gateway.read_bytes().replace(b"SUP-4471", b"SUP-4472"))
    os.utime(gateway, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (gateway.stat().st_size, gateway.stat().st_mtime_ns) == (
        before.st_size,
        before.st_mtime_ns,
    )
    tonight = night(logs, "night-2")
    evidence = pl.read_parquet(tonight / "findings.parquet")["evidence"].to_list()
    assert any("SUP-4472" in text for text in evidence)
    assert_same_tables(tonight, full_scan(logs))


def test_a_log_whose_only_change_is_its_permissions_is_hashed_not_read(logs: Path):
    (logs / "gateway.jsonl").chmod(0o600)  # a new change time, the same content
    reading = json.loads((night(logs, "night-2") / "summary.json").read_text())["reading"]
    assert (reading["files_unchanged"], reading["lines_read"]) == (2, 0)
