"""The notebooks run top to bottom in a fresh kernel, and the helpers they stand on."""

from pathlib import Path

import nbformat
import polars as pl
import pytest
from builders import assistant, call, chat, text_block, tool, user, write_jsonl
from typer.testing import CliRunner

from auditor.cli import app
from auditor.notebook import timeline
from auditor.output.columns import CALLS_SCHEMA
from auditor.output.folder import load

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
runner = CliRunner()


def scan_into(out: Path, logs: Path) -> Path:
    runner.invoke(app, ["scan", str(logs), "--out", str(out), "-q"])
    return out


def refused_update(tmp_path: Path, conversation_id: str) -> Path:
    record = chat(
        user("Close OPS-1"),
        assistant(None, call("c1", "update_ticket", key="OPS-1")),
        tool("c1", text_block("403 Forbidden"), isError=True),
        assistant("Done, OPS-1 is closed."),
        conversation_id=conversation_id,
    )
    return write_jsonl(tmp_path / f"{conversation_id}.jsonl", [record])


def outputs_of(notebook) -> list[dict]:
    return [output for cell in notebook.cells for output in cell.get("outputs", [])]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_are_stored_without_outputs(path: Path):
    notebook = nbformat.read(path, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(not cell.outputs and cell.execution_count is None for cell in code)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_each_notebook_runs_top_to_bottom_on_the_sample_output(path: Path):
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    outputs = outputs_of(notebook)
    assert not [o for o in outputs if o["output_type"] == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs)  # a chart was drawn
    drawn = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any('class="timeline"' in html for html in drawn)  # a finding's timeline inline


def test_load_gives_the_declared_types(tmp_path: Path):
    out = scan_into(tmp_path / "out", refused_update(tmp_path, "c-1"))
    schema = load(out).collect_schema()
    assert {name: schema[name] for name in CALLS_SCHEMA} == CALLS_SCHEMA


def test_load_reads_a_dataset_of_runs_once_each(tmp_path: Path):
    for day, conversation in (("2026-03-01", "c-1"), ("2026-03-02", "c-2")):
        scan_into(tmp_path / "runs" / f"run_date={day}", refused_update(tmp_path, conversation))
    calls = load(f"{tmp_path}/runs/**/*.parquet").collect()  # findings.parquet is not counted
    assert calls.height == 2
    assert calls["run_date"].dtype == pl.Date
    assert sorted(calls["conversation_id"]) == ["c-1", "c-2"]


def test_a_timeline_draws_itself_as_html_in_a_notebook(tmp_path: Path):
    out = scan_into(tmp_path / "out", refused_update(tmp_path, "c-1"))
    view = timeline(load(out), "c-1")
    html = view._repr_html_()
    assert "<style>" in html and "403 Forbidden" in html
