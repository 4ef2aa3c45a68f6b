"""A full disk and an output folder the run may not write: the night stops with status 2 and a
message that names the path, last night's outputs and the state stay as they were, and no
temporary file is left behind.

A full disk is simulated by the fault hook (``AUDITOR_FAULT`` names the point,
``AUDITOR_FAULT_ERRNO=ENOSPC`` makes it raise what the write would), since a test cannot fill
a real disk."""

import json
import os
from pathlib import Path

import polars as pl
import pytest
from builders import write_jsonl
from test_nightly import day_two, forbidden_update, greeting, rate_limited_post, run

from auditor.faults import ERRNO_VARIABLE, VARIABLE


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """Night 1 written to ``out`` with a state folder; then day two's new lines."""
    logs = tmp_path / "logs"
    logs.mkdir()
    write_jsonl(logs / "gateway.jsonl", [rate_limited_post("c-1"), greeting("c-2")])
    write_jsonl(logs / "archive.jsonl", [forbidden_update("c-3", "SUP-4471")])
    assert night(tmp_path).exit_code == 1
    day_two(tmp_path)
    return tmp_path


def night(site: Path):
    return run("scan", site / "logs", "--out", site / "out", "--state", site / "state", "-q")


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden ones too) with its bytes; the lock file aside, which
    holds the name of whichever run holds it."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name != "lock"
    }


def failing(monkeypatch: pytest.MonkeyPatch, point: str, error: str) -> None:
    monkeypatch.setenv(VARIABLE, point)
    monkeypatch.setenv(ERRNO_VARIABLE, error)


def test_a_disk_that_fills_while_the_tables_are_written(
    site: Path, monkeypatch: pytest.MonkeyPatch
):
    before = snapshot(site / "out"), snapshot(site / "state")
    failing(monkeypatch, "output:written:rejects.jsonl", "ENOSPC")  # findings written already
    result = night(site)
    assert result.exit_code == 2
    error = json.loads(result.stderr)
    assert error["error"] == "cannot write"
    assert error["path"] == str(site / "out" / "rejects.jsonl")
    assert error["message"].endswith("rejects.jsonl: No space left on device")
    assert (snapshot(site / "out"), snapshot(site / "state")) == before


def test_a_disk_that_fills_while_the_state_is_saved(site: Path, monkeypatch: pytest.MonkeyPatch):
    """The tables are written (under temporary names) when the state's file cannot be."""
    before = snapshot(site / "out"), snapshot(site / "state")
    failing(monkeypatch, "state:tmp-written", "ENOSPC")
    result = night(site)
    assert result.exit_code == 2
    assert json.loads(result.stderr)["path"] == str(site / "state" / "state.json")
    assert (snapshot(site / "out"), snapshot(site / "state")) == before


def test_a_disk_that_fills_while_the_states_tables_are_written(
    site: Path, monkeypatch: pytest.MonkeyPatch
):
    before = snapshot(site / "out"), snapshot(site / "state")
    failing(monkeypatch, "state:part-written", "ENOSPC")
    result = night(site)
    assert result.exit_code == 2
    assert "/state/tables-" in json.loads(result.stderr)["path"]
    assert (snapshot(site / "out"), snapshot(site / "state")) == before


def test_a_full_disk_that_the_parquet_writer_reports_without_an_errno(
    site: Path, monkeypatch: pytest.MonkeyPatch
):
    """polars' parquet sink, on a full disk, can say only "Invalid thrift: transport error":
    a disk with next to no room left is then taken to be full."""
    before = snapshot(site / "out"), snapshot(site / "state")

    sink_parquet = pl.LazyFrame.sink_parquet

    def disk_full(frame: pl.LazyFrame, path: str, **options: object) -> None:
        if Path(path).parent != site / "out":  # the scan's own parts, in the temporary folder
            return sink_parquet(frame, path, **options)
        Path(path).write_bytes(b"PAR1")  # as far as it got
        raise pl.exceptions.ComputeError(
            "parquet: File out of specification: Invalid thrift: transport error"
        )

    monkeypatch.setattr(pl.LazyFrame, "sink_parquet", disk_full)
    monkeypatch.setattr("auditor.output.tables.free_bytes", lambda path: 4096)
    result = night(site)
    assert result.exit_code == 2
    assert json.loads(result.stderr)["message"] == (
        f"cannot write {site / 'out' / 'findings.parquet'}: No space left on device"
    )
    assert (snapshot(site / "out"), snapshot(site / "state")) == before


def test_the_night_after_a_full_disk_is_whole(site: Path, monkeypatch: pytest.MonkeyPatch):
    failing(monkeypatch, "state:tmp-written", "ENOSPC")
    night(site)
    monkeypatch.delenv(VARIABLE)
    assert night(site).exit_code == 1
    run("scan", site / "logs", "--out", site / "full", "-q")
    assert (site / "out" / "calls.parquet").read_bytes() == (
        site / "full" / "calls.parquet"
    ).read_bytes()


def test_an_output_folder_the_run_may_not_write_stops_it_before_it_reads(
    site: Path, monkeypatch: pytest.MonkeyPatch
):
    """``--out`` made read-only. Root writes there all the same, so under root the fault hook
    makes the folder refuse as it refuses the cron job's user."""
    out = site / "out"
    before = snapshot(out), snapshot(site / "state")
    out.chmod(0o555)
    if os.geteuid() == 0:
        failing(monkeypatch, "output:probe", "EACCES")
    try:
        result = night(site)
    finally:
        out.chmod(0o755)
    assert result.exit_code == 2
    error = json.loads(result.stderr)
    assert (error["path"], error["message"]) == (
        str(out),
        f"cannot write {out}: Permission denied",
    )
    assert (snapshot(out), snapshot(site / "state")) == before
