"""The Dask engine gives the table the local engine gives, and inputs can be fsspec URLs."""

import json
from pathlib import Path

import polars as pl
import pytest
from builders import timeless
from typer.testing import CliRunner

from auditor.cli import app
from auditor.run.local import scan

distributed = pytest.importorskip("distributed")

LABELLED = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "labelled"
SAMPLES = Path(__file__).resolve().parents[1] / "sample_transcripts"


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as local:
        yield local.scheduler_address


def corpus() -> Path:
    return LABELLED if LABELLED.is_dir() else SAMPLES


def test_the_dask_engine_gives_the_same_calls_table_as_the_local_one(cluster):
    local = scan([corpus()])
    on_dask = scan([corpus()], engine="dask", scheduler=cluster)
    assert local.calls.height > 0
    assert local.calls.equals(on_dask.calls)
    assert local.rejects.equals(on_dask.rejects)
    assert timeless(local.summary()) == timeless(on_dask.summary())


def test_files_named_by_url_are_read_through_fsspec(cluster):
    url = SAMPLES.resolve().as_uri()  # file:///…/sample_transcripts
    by_path = scan([SAMPLES]).calls
    by_url = scan([url], engine="dask", scheduler=cluster).calls
    assert set(by_url["source"].str.head(7)) == {"file://"}
    assert by_path.drop("source").equals(by_url.drop("source"))


def test_a_url_that_cannot_be_fetched_is_a_reject_not_a_crash(tmp_path: Path):
    result = scan([(tmp_path / "gone.jsonl").as_uri()])
    assert result.calls.height == 0
    assert result.rejects["reason"].str.contains("cannot fetch|no such file").all()


def test_the_scan_command_runs_on_a_cluster_and_writes_the_same_tables(cluster, tmp_path: Path):
    runner = CliRunner()
    args = ["scan", str(SAMPLES), "--fail-on", "never", "-q"]
    local = runner.invoke(app, [*args, "--out", str(tmp_path / "local")])
    on_dask = runner.invoke(
        app, [*args, "--out", str(tmp_path / "dask"), "--engine", "dask", "--scheduler", cluster]
    )
    assert local.exit_code == on_dask.exit_code == 0, on_dask.output
    one = pl.read_parquet(tmp_path / "local" / "calls.parquet")
    two = pl.read_parquet(tmp_path / "dask" / "calls.parquet")
    assert one.height > 0 and one.equals(two)


def test_url_inputs_with_a_state_folder_are_read_whole_each_night(tmp_path: Path):
    runner = CliRunner()
    url = SAMPLES.resolve().as_uri()
    state = tmp_path / "state"
    for night in ("night-1", "night-2"):
        args = ["scan", url, "--state", str(state), "--out", str(tmp_path / night), "-q"]
        result = runner.invoke(app, [*args, "--fail-on", "never"])
        assert result.exit_code == 0, result.output
    reading = json.loads((tmp_path / "night-2" / "summary.json").read_text())["reading"]
    assert reading["files_unchanged"] == 0
    assert reading["read_whole_because"] == {
        "standard input, a URL or no file": reading["files_read_whole"]
    }
    first = pl.read_parquet(tmp_path / "night-1" / "calls.parquet")
    assert first.height > 0
    assert first.equals(pl.read_parquet(tmp_path / "night-2" / "calls.parquet"))
