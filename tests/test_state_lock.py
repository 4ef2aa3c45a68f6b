"""One run per state folder: yesterday's slow night and tonight's never share ``--state``.

A second run stops with status 2 and names the holder, or waits for it with ``--wait``; a lock
left by a killed run is taken over with a warning."""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import polars as pl
import pytest
from builders import write_jsonl
from test_nightly import forbidden_update, greeting, rate_limited_post, run

from auditor.run.lock import holding

ROOT = Path(__file__).resolve().parent.parent
CHILD_ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    logs = tmp_path / "logs"
    logs.mkdir()
    write_jsonl(logs / "gateway.jsonl", [rate_limited_post("c-1"), greeting("c-2")])
    write_jsonl(logs / "tickets.jsonl", [forbidden_update("c-3", "SUP-4471")])
    return logs


def night(logs: Path, name: str, *options: object):
    state = logs.parent / "state"
    return run("scan", logs, "--out", logs.parent / name, "--state", state, "-q", *options)


def calls(out: Path) -> pl.DataFrame:
    return pl.read_parquet(out / "calls.parquet")


def full_scan(logs: Path) -> pl.DataFrame:
    run("scan", logs, "--out", logs.parent / "full", "-q")
    return calls(logs.parent / "full")


def test_a_second_run_on_a_state_folder_in_use_stops_with_status_2_naming_the_holder(
    logs: Path,
):
    with holding(logs.parent / "state"):
        result = night(logs, "night-1")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    error = json.loads(result.stderr)
    assert error["error"] == "state in use"
    assert f"pid {os.getpid()} on {socket.gethostname()}, started 20" in error["message"]
    assert error["holder"]["pid"] == os.getpid()
    assert not (logs.parent / "night-1" / "calls.parquet").exists()


def test_a_run_told_to_wait_stops_when_the_holder_outlasts_the_wait(logs: Path):
    with holding(logs.parent / "state"):
        started = time.monotonic()
        result = night(logs, "night-1", "--wait", "0.5")
    assert result.exit_code == 2
    assert time.monotonic() - started >= 0.5
    assert "after waiting 0.5s" in json.loads(result.stderr)["message"]


def test_a_run_told_to_wait_runs_once_the_holder_is_done(
    logs: Path, monkeypatch: pytest.MonkeyPatch
):
    """Yesterday's slow night holds the folder until tonight's has started waiting for it."""
    held, waiting = threading.Event(), threading.Event()

    def sleep(seconds: float) -> None:
        waiting.set()
        time.sleep(seconds)

    monkeypatch.setattr("auditor.run.lock.sleep", sleep)

    def yesterdays_slow_night() -> None:
        with holding(logs.parent / "state"):
            held.set()
            waiting.wait(timeout=30)

    holder = threading.Thread(target=yesterdays_slow_night)
    holder.start()
    held.wait()
    result = night(logs, "night-1", "--wait", "30")
    holder.join()
    assert result.exit_code == 1, result.output
    assert waiting.is_set()
    assert calls(logs.parent / "night-1").equals(full_scan(logs))


def test_a_lock_left_by_a_killed_run_is_taken_over_with_a_warning(logs: Path):
    state = logs.parent / "state"
    killed = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, signal, sys\nfrom pathlib import Path\n"
            "from auditor.run.lock import holding\n"
            "with holding(Path(sys.argv[1])):\n"
            "    print(os.getpid(), flush=True)\n"
            "    os.kill(os.getpid(), signal.SIGKILL)\n",
            str(state),
        ],
        env=CHILD_ENV,
        capture_output=True,
        text=True,
    )
    assert killed.returncode == -signal.SIGKILL
    result = night(logs, "night-1")
    assert result.exit_code == 1, result.output
    assert "took over the state folder" in result.stderr
    assert f"pid {killed.stdout.strip()} on {socket.gethostname()}" in result.stderr
    assert calls(logs.parent / "night-1").equals(full_scan(logs))


def test_a_run_that_ends_cleanly_leaves_no_holder_to_take_over(logs: Path):
    night(logs, "night-1")
    result = night(logs, "night-2")
    assert result.stderr == ""


def test_two_overlapping_nights_on_one_state_folder_both_give_a_full_scans_tables(logs: Path):
    """Two cron jobs started together: one waits for the other; both tables, and the next
    night's from the state they leave, are a full scan's."""
    state = logs.parent / "state"

    def start(name: str) -> subprocess.Popen:
        command = "from auditor.cli import app; app()"
        arguments = ["scan", str(logs), "--out", str(logs.parent / name), "--state", str(state)]
        return subprocess.Popen(
            [sys.executable, "-c", command, *arguments, "--wait", "60", "-q"],
            env=CHILD_ENV,
            stderr=subprocess.PIPE,
            text=True,
        )

    runs = [start("night-a"), start("night-b")]
    for process in runs:
        assert process.wait(timeout=120) == 1, process.stderr.read()
    full = full_scan(logs)
    assert calls(logs.parent / "night-a").equals(full)
    assert calls(logs.parent / "night-b").equals(full)
    assert night(logs, "night-c").exit_code == 1
    assert calls(logs.parent / "night-c").equals(full)
