"""Large inputs: files read in spans by several workers give the very table one reader gives."""

import itertools
import json
import multiprocessing
import sys
from pathlib import Path

import polars as pl
import pytest
from builders import timeless, write_jsonl

from auditor.bench import generate
from auditor.faults import ERRNO_VARIABLE, VARIABLE
from auditor.run import pipeline
from auditor.run.jobs import SPAN_BYTES, cut_spans, plan, shared_span
from auditor.run.local import scan
from auditor.run.parts import REPEATED, settle
from auditor.run.share import start_early
from auditor.run.worker import part_path


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """A small benchmark corpus with a broken line in the middle of one file."""
    folder = tmp_path_factory.mktemp("corpus")
    generate(folder, 0.3)
    first = sorted(folder.glob("*.jsonl"))[0]
    lines = first.read_bytes().splitlines(keepends=True)
    lines.insert(len(lines) // 2, b'{"conversation_id": "broken", "messages": [\n')
    first.write_bytes(b"".join(lines))
    return folder


def test_spans_cover_a_file_at_line_boundaries_and_count_its_lines(tmp_path: Path):
    path = write_jsonl(tmp_path / "a.jsonl", [{"n": n, "pad": "x" * (n % 7)} for n in range(50)])
    data = path.read_bytes()
    spans = list(cut_spans(path, 100))
    assert len(spans) > 3
    assert spans[0].start == 0 and spans[-1].end == len(data)
    for before, after in itertools.pairwise(spans):
        assert before.end == after.start
        assert data[after.start - 1 : after.start] == b"\n"
        assert after.first_line == data[: after.start].count(b"\n") + 1


def test_only_large_plain_jsonl_files_are_cut(corpus: Path, tmp_path: Path):
    files = [(path, str(path)) for path in sorted(corpus.glob("*.jsonl"))]
    assert all(job.span is None for job in plan(files, None, 1 << 30))
    assert any(job.span is not None for job in plan(files, None, 20_000))
    document = tmp_path / "one.json"
    document.write_text('[{"conversation_id": "d", "messages": []}]' + " " * 50_000)
    assert [job.span for job in plan([(document, "one.json")], None, 1000)] == [None]


def test_a_file_read_in_spans_gives_the_same_calls_and_rejects(corpus: Path):
    whole = scan([corpus])
    spans = scan([corpus], span_bytes=20_000)
    assert spans.calls.height > 100
    assert whole.calls.equals(spans.calls)
    assert whole.rejects.equals(spans.rejects)
    assert whole.rejects["line"].to_list() == spans.rejects["line"].to_list() != []
    assert whole.conversations == spans.conversations


def test_several_processes_over_spans_give_the_same_table_as_one(corpus: Path, monkeypatch):
    monkeypatch.setattr(sys.modules["auditor.run.local"], "PARALLEL_MIN_BYTES", 0)
    one = scan([corpus], jobs=1)
    two = scan([corpus], jobs=2, span_bytes=20_000)
    assert one.calls.equals(two.calls)
    assert timeless(one.summary()) == timeless(two.summary())


def test_a_call_read_again_from_another_file_is_counted_once(corpus: Path, tmp_path: Path):
    first = sorted(corpus.glob("*.jsonl"))[0]
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(first.read_bytes())
    result = scan([first, copy])
    assert set(result.calls["source"]) == {str(first)}
    assert result.summary()["passed_over_by_reason"]


def test_the_tables_are_lazy_until_asked_for(corpus: Path):
    result = scan([corpus])
    assert isinstance(result.lazy_calls, pl.LazyFrame)
    assert result.findings.height == result.calls.filter(pl.col("finding").is_not_null()).height


def test_the_scan_command_counts_calls_read_again_from_another_file(corpus: Path, tmp_path: Path):
    from typer.testing import CliRunner

    from auditor.cli import app

    first = sorted(corpus.glob("*.jsonl"))[0]
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(first.read_bytes())
    out = tmp_path / "out"
    CliRunner().invoke(app, ["scan", str(first), str(copy), "--out", str(out), "-q"])
    summary = json.loads((out / "summary.json").read_text())
    assert summary["passed_over_by_reason"][REPEATED] == summary["tool_calls"] > 0


def test_small_parts_are_merged_in_order_and_empty_ones_dropped(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(sys.modules["auditor.run.parts"], "PART_ROWS", 3)
    sizes = [1, 0, 1, 2, 5, 0, 1]
    frames = [pl.DataFrame({"n": [f"{i}.{k}" for k in range(n)]}) for i, n in enumerate(sizes)]
    for index, frame in enumerate(frames):
        frame.write_parquet(part_path(tmp_path, "calls", index))
    settled = settle(tmp_path, "calls", list(range(len(sizes))), sizes)
    assert [pl.read_parquet(p).height for p in settled] == [4, 5, 1]
    assert sorted(tmp_path.iterdir()) == settled
    assert pl.read_parquet(settled).equals(pl.concat(frames))


def test_a_folder_of_small_files_is_read_from_few_parts_and_the_same_table(
    corpus: Path, tmp_path: Path, monkeypatch
):
    files = sorted(corpus.glob("*.jsonl"))
    lines = b"".join(path.read_bytes() for path in files).splitlines(keepends=True)
    for number, line in enumerate(lines):  # one conversation a file, and one broken line
        (tmp_path / f"{number:04d}.jsonl").write_bytes(line)
    merged = scan([tmp_path])
    monkeypatch.setattr(sys.modules["auditor.run.parts"], "PART_ROWS", 1)
    monkeypatch.setattr(sys.modules["auditor.run.worker"], "BATCH_ROWS", 1)  # a part a file
    apart = scan([tmp_path])
    assert len(list(Path(merged.parts.name).glob("calls-*"))) == 1
    assert len(list(Path(apart.parts.name).glob("calls-*"))) > 30
    assert merged.calls.height > 100 and merged.rejects.height == 1
    assert merged.calls.equals(apart.calls) and merged.rejects.equals(apart.rejects)
    assert timeless(merged.summary()) == timeless(apart.summary())


def test_a_scan_on_several_cores_cuts_spans_finer_so_that_the_cores_end_together():
    assert shared_span(50 << 20, 2, SPAN_BYTES) == (50 << 20) // 16  # 8 spans a core
    assert shared_span(4 << 30, 2, SPAN_BYTES) == SPAN_BYTES  # large inputs: as before
    assert shared_span(9 << 20, 8, SPAN_BYTES) == 1 << 20  # never finer than 1 MB
    assert shared_span(50 << 20, 2, 20_000) == 20_000  # nor coarser than asked


def test_this_process_and_a_worker_share_finer_spans_and_give_the_table_of_one(
    corpus: Path, monkeypatch
):
    monkeypatch.setattr(sys.modules["auditor.run.local"], "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(sys.modules["auditor.run.jobs"], "SHARED_SPAN_MIN", 10_000)
    told: list[tuple[int, int]] = []
    one = scan([corpus], jobs=1)
    two = scan([corpus], jobs=2, progress=lambda done, total: told.append((done, total)))
    files = len(list(corpus.glob("*.jsonl")))
    assert told[-1][0] == told[-1][1] > 2 * files  # each file cut in spans, all audited
    assert [done for done, _ in told] == list(range(1, len(told) + 1))
    assert one.calls.equals(two.calls) and one.rejects.equals(two.rejects)
    assert timeless(one.summary()) == timeless(two.summary())


def test_an_error_in_a_worker_is_raised_by_the_scan(corpus: Path, monkeypatch):
    """A full disk where the worker writes its part: the scan raises the worker's own error
    (this process writes its parts at another fault point, and goes on until then)."""
    monkeypatch.setattr(sys.modules["auditor.run.local"], "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setenv(VARIABLE, "worker:part-written")  # the worker inherits it
    monkeypatch.setenv(ERRNO_VARIABLE, "ENOSPC")
    with pytest.raises(OSError, match="No space left") as raised:
        scan([corpus], jobs=2, span_bytes=20_000)
    assert any("in worker process" in note for note in raised.value.__notes__)


def test_workers_start_early_only_for_inputs_worth_sharing(corpus: Path, monkeypatch):
    assert start_early([corpus], 2) is None  # 0.3 MB: not worth a process
    monkeypatch.setattr(sys.modules["auditor.run.share"], "PARALLEL_MIN_BYTES", 1000)
    assert start_early([corpus], 1) is None
    workers = start_early([corpus], 3)
    assert workers is not None
    processes = [worker.process for worker in workers.waiting]
    assert len(processes) == 2 and all(process.is_alive() for process in processes)
    workers.close()  # never given work: each ends when its pipe is closed
    assert [process.exitcode for process in processes] == [0, 0]


@pytest.mark.parametrize("shared", [True, False])
def test_a_scan_with_workers_started_early_gives_the_table_of_one(
    corpus: Path, tmp_path: Path, monkeypatch, shared: bool
):
    """Started before the rules load, the workers are given the work, or closed unused when the
    scan finds it is not worth sharing."""
    monkeypatch.setattr(sys.modules["auditor.run.share"], "PARALLEL_MIN_BYTES", 0)
    if shared:
        monkeypatch.setattr(sys.modules["auditor.run.local"], "PARALLEL_MIN_BYTES", 0)
    one = pipeline.scan([corpus], jobs=1, fail_on="never")
    two = pipeline.scan([corpus], jobs=2, fail_on="never", out=tmp_path / "out")
    assert one.calls.equals(two.calls) and one.rejects.equals(two.rejects)
    assert timeless(one.summary()) == timeless(two.summary())
    assert not [child for child in multiprocessing.active_children() if child.is_alive()]
