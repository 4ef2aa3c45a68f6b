"""A night killed at any point (an OOM killer, a deploy, ``kill -9``) and the night after.

Night 2 is killed by SIGKILL at a named point (``AUDITOR_FAULT``) in a process of its own: in
the worker, while parts are merged, while the state is saved, while the outputs are moved into
place. Then the next night runs. Each time its tables are a full scan's, and the output folder
the killed night shared with night 1 holds whole tables, night 1's or night 2's, never a
half-written one.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from builders import write_jsonl
from test_nightly import day_two, forbidden_update, greeting, rate_limited_post
from typer.testing import CliRunner

from auditor.cli import app
from auditor.faults import VARIABLE

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent
NIGHT = ["scan", "logs", "--out", "out", "--state", "state", "-q"]  # run in the site folder
TABLES = ("calls.parquet", "findings.parquet")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Night 1 written with relative paths (so that the folder can be copied for each kill),
    then day two's changes, a copy of a conversation in a later file among them; and what
    night 1 wrote and a full scan of day two's logs give, to compare with."""
    site = tmp_path_factory.mktemp("site")
    logs = site / "logs"
    logs.mkdir()
    write_jsonl(logs / "gateway.jsonl", [rate_limited_post("c-1"), greeting("c-2")])
    write_jsonl(logs / "archive.jsonl", [forbidden_update("c-3", "SUP-4471")])
    with (logs / "archive.jsonl").open("a") as archive:
        archive.write('{"messages": [\n')  # a line cut off: a reject, carried night after night
    cwd = Path.cwd()
    os.chdir(site)
    try:
        assert runner.invoke(app, NIGHT).exit_code == 1
        shutil.copytree(site / "out", site / "night-1")
        day_two(site)
        write_jsonl(logs / "mirror.jsonl", [forbidden_update("c-3", "SUP-4471")])  # a repeat
        assert runner.invoke(app, ["scan", "logs", "--out", "full", "-q"]).exit_code == 1
    finally:
        os.chdir(cwd)
    return site


@pytest.fixture
def site(template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site"
    shutil.copytree(template, site)  # logs keep their times: the copy reads as night 1 left it
    monkeypatch.chdir(site)
    return site


# The rows of consecutive small files are written as one part, so that these small logs give
# no small parts to merge: night 2 is run where it is killed while merging them in two
# workers, each file sent alone.
IN_WORKERS = (
    "import auditor.run.local as run, auditor.run.worker as worker; "
    "run.PARALLEL_MIN_BYTES = 0; worker.BATCH_BYTES = 0; "
)


def killed_night(site: Path, point: str) -> int:
    """Night 2 in a process of its own, killed at ``point``: its exit status."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), VARIABLE: point}
    workers = point in ("parts:merged", "scan:part-written")
    code = (IN_WORKERS if workers else "") + "from auditor.cli import app; app()"
    command = [sys.executable, "-c", code, *NIGHT, *(["--jobs", "2"] if workers else [])]
    return subprocess.run(command, cwd=site, env=env, capture_output=True).returncode


def outputs(folder: Path) -> dict[str, bytes]:
    """The files of an output folder, but the hidden temporary ones a killed run leaves."""
    return {p.name: p.read_bytes() for p in folder.iterdir() if not p.name.startswith(".")}


def assert_whole(site: Path, untouched: bool) -> None:
    """``out`` is as night 1 left it (``untouched``: killed before any table was moved into
    place), or each table in it is whole: night 1's or the full scan's."""
    if untouched:
        assert outputs(site / "out") == outputs(site / "night-1")
    for name in TABLES:
        table = pl.read_parquet(site / "out" / name)
        versions = [pl.read_parquet(site / run / name) for run in ("night-1", "full")]
        assert any(table.equals(version) for version in versions), name
    json.loads((site / "out" / "summary.json").read_text())


def assert_next_night_is_a_full_scan(site: Path) -> None:
    """The next night's tables are a full scan's; it found a state to carry rows from (the
    killed night cost no full read); it leaves nothing of the killed night behind."""
    assert runner.invoke(app, NIGHT).exit_code == 1
    for name in TABLES:
        assert pl.read_parquet(site / "out" / name).equals(pl.read_parquet(site / "full" / name))
    rejects = [(site / run / "rejects.jsonl").read_text() for run in ("out", "full")]
    assert rejects[0] == rejects[1] != ""
    assert json.loads((site / "out" / "summary.json").read_text())["reading"]["files_unchanged"]
    left = sorted(p.name for p in (site / "state").iterdir() if not p.name.startswith("tables-"))
    assert left == ["lock", "state.json"]
    assert len(list((site / "state").glob("tables-*"))) == 1
    assert [p.name for p in (site / "out").iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize(
    ("point", "untouched"),
    [
        ("worker:part-written", True),  # in the worker, after a file's rows are written
        ("parts:merged", True),  # while the workers' small parts are merged (two workers)
        ("scan:part-written", True),  # in the scan's process, auditing beside a worker
        ("carry:part-written", True),  # while carried rows and new rows are merged
        ("state:part-written", True),  # while the new state's tables are written
        ("parts:repeats-left-out", True),  # while calls read from two files are left out
        ("output:written:calls.parquet", True),  # the tables written under temporary names
        ("state:tmp-written", True),  # the new state.json written, not yet in place
        ("state:replaced", True),  # the new state in place, its old tables not yet removed
        ("output:renamed:findings.parquet", False),  # the first table moved into place
    ],
)
def test_a_night_killed_at_any_point_leaves_whole_tables_and_a_whole_next_night(
    site: Path, point: str, untouched: bool
):
    assert killed_night(site, point) == -signal.SIGKILL
    assert_whole(site, untouched)
    assert_next_night_is_a_full_scan(site)


def test_a_worker_process_killed_fails_the_night_and_the_next_one_is_whole(
    site: Path, monkeypatch: pytest.MonkeyPatch
):
    """With ``--jobs 2`` the files are audited in worker processes; one is killed."""
    monkeypatch.setattr("auditor.run.local.PARALLEL_MIN_BYTES", 0)
    monkeypatch.setenv(VARIABLE, "worker:part-written")  # the workers inherit it
    result = runner.invoke(app, [*NIGHT, "--jobs", "2"])
    assert result.exit_code == 4
    assert json.loads(result.stderr)["error"] == "internal"
    monkeypatch.delenv(VARIABLE)
    assert_whole(site, untouched=True)
    assert_next_night_is_a_full_scan(site)
