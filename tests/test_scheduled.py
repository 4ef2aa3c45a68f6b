"""What a scheduler needs from the command: short cron lines, JSON errors, quiet output, and a
dataset of dated partitions that polars reads across runs."""

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from builders import write_jsonl
from rich.console import Console
from test_nightly import forbidden_update, greeting, missing_channel
from typer.testing import CliRunner

from auditor.cli import app
from auditor.views.nightly import ProgressBar

runner = CliRunner()


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A job folder with a log in it, the current folder, as a cron line's ``cd`` makes it."""
    (tmp_path / "logs").mkdir()
    write_jsonl(tmp_path / "logs" / "gateway.jsonl", [forbidden_update("c-3", "SUP-1")])
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_settings_in_auditor_toml_make_the_command_line_short(here: Path):
    (here / "auditor.toml").write_text(
        'paths = ["logs"]\nout = "nightly"\nformat = "jsonl"\nfail-on = "never"\nquiet = true\n'
    )
    result = run("scan")
    assert result.exit_code == 0
    assert result.output == ""
    assert (here / "nightly" / "calls.jsonl").exists()


def test_settings_in_pyproject_tool_auditor(here: Path):
    (here / "pyproject.toml").write_text(
        '[project]\nname = "ops"\n\n[tool.auditor]\npaths = ["logs"]\nout = "nightly"\n'
    )
    assert run("scan", "--quiet").exit_code == 1
    assert (here / "nightly" / "calls.parquet").exists()


def test_an_option_on_the_command_line_beats_the_settings(here: Path):
    (here / "auditor.toml").write_text('paths = ["logs"]\nout = "nightly"\nfail-on = "never"\n')
    assert run("scan", "--fail-on", "critical", "-q").exit_code == 1


def test_a_wrong_settings_file_is_one_json_line_on_stderr_and_status_2(here: Path):
    (here / "auditor.toml").write_text('paths = ["logs"]\nfail-on = "sometimes"\n')
    result = run("scan")
    assert result.exit_code == 2
    error = json.loads(result.stderr)
    assert (error["error"], error["file"], error["key"]) == ("settings", "auditor.toml", "fail-on")
    assert result.stderr.count("\n") == 1


def test_a_wrong_rule_file_is_one_json_line_on_stderr(here: Path):
    (here / "rules").mkdir()
    (here / "rules" / "outcomes.toml").write_text("[identity]\ntools = 3\n")
    result = run("scan", "logs", "--rules", here / "rules")
    error = json.loads(result.stderr)
    assert (error["error"], error["key"], error["exit_status"]) == (
        "rule file",
        "identity.tools",
        2,
    )


def test_the_first_night_of_a_dataset_has_no_baseline_yet_and_everything_is_new(here: Path):
    result = run("scan", "logs", "--out", "dataset", "--baseline", "dataset", "-q")
    assert result.exit_code == 1
    summary = json.loads((here / "dataset" / "summary.json").read_text())
    assert summary["baseline"]["findings"] == {"new": 1, "persisting": 0, "resolved": 0}


def test_a_baseline_folder_that_holds_something_else_is_status_2(here: Path):
    (here / "elsewhere").mkdir()
    (here / "elsewhere" / "notes.txt").write_text("not a scan")
    result = run("scan", "logs", "--baseline", "elsewhere")
    assert result.exit_code == 2
    assert json.loads(result.stderr)["error"] == "baseline"


def test_quiet_prints_nothing(here: Path):
    result = run("scan", "logs", "--quiet")
    assert (result.exit_code, result.output) == (1, "")


def test_no_color_is_honoured(here: Path):
    def scan_output(**env: str) -> str:
        return subprocess.run(
            [Path(sys.executable).parent / "auditor", "scan", "logs", "--out", "out"],
            capture_output=True,
            text=True,
            env={**os.environ, "FORCE_COLOR": "1", "COLUMNS": "100", **env},
            cwd=here,
        ).stdout

    colour = re.compile(r"\x1b\[(?:\d+;)*(?:3[0-7]|9[0-7])[;m]")  # a foreground colour code
    assert colour.search(scan_output())
    assert not colour.search(scan_output(NO_COLOR="1"))  # bold may stay: it is no colour


def test_partitions_by_date_form_a_dataset_polars_reads_across_runs(here: Path):
    run("scan", "logs", "--out", "dataset", "--partition-by-date", "--run-date", "2026-11-29")
    write_jsonl(here / "logs" / "gateway.jsonl", [missing_channel("c-5"), greeting("c")])
    run("scan", "logs", "--out", "dataset", "--partition-by-date", "--run-date", "2026-11-30")
    dataset = pl.scan_parquet("dataset/**/*.parquet", hive_partitioning=True)
    by_day = dataset.group_by("run_date").agg(pl.col("conversation_id")).sort("run_date").collect()
    assert [(str(d), ids) for d, ids in by_day.rows()] == [
        ("2026-11-29", ["c-3"]),
        ("2026-11-30", ["c-5"]),
    ]
    assert sorted(p.name for p in (here / "dataset" / "run_date=2026-11-30").iterdir()) == [
        "calls.parquet",
        "findings.jsonl",
        "rejects.jsonl",
        "summary.json",
    ]


def test_the_summary_carries_what_an_alert_needs(here: Path):
    run("scan", "logs", "--out", "out", "-q")
    run("scan", "logs", "--out", "next", "--baseline", "out", "-q")
    summary = json.loads((here / "next" / "summary.json").read_text())
    assert summary["severity"] == {"critical": 1, "warning": 0}
    assert summary["baseline"]["signatures"] == {"new": 0, "known": 1}
    assert summary["reading"]["lines_read"] == 1
    assert summary["rejects"] == 0


def test_a_run_that_fails_part_way_is_one_json_line_and_status_4(
    here: Path, monkeypatch: pytest.MonkeyPatch
):
    def broken(*args: object, **kwargs: object):
        raise RuntimeError("A process in the process pool was terminated abruptly")

    monkeypatch.setattr("auditor.run.pipeline.scan_and_stage", broken)
    result = run("scan", "logs")
    assert result.exit_code == 4
    error = json.loads(result.stderr)
    assert error == {
        "error": "internal",
        "message": "RuntimeError: A process in the process pool was terminated abruptly",
        "exit_status": 4,
    }


def test_the_progress_bar_shows_on_a_terminal_only():
    def shown(terminal: bool) -> str:
        console = Console(file=io.StringIO(), force_terminal=terminal, width=80)
        with ProgressBar(console, after=0) as progress:
            progress(1, 2)
        return console.file.getvalue()

    assert "1/2" in shown(terminal=True)
    assert shown(terminal=False) == ""
