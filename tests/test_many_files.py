"""A log folder of one file per session: many small files in one scan."""

from __future__ import annotations

from pathlib import Path

import orjson

from auditor.bench import MANIFEST, generate_many, measure


def test_a_scan_of_more_files_than_it_may_open_loses_no_call(tmp_path: Path) -> None:
    many, _ = generate_many(tmp_path, 400)
    generated = orjson.loads((many / MANIFEST).read_bytes())
    # 400 files under a limit of 64 open files: a scan that kept files open would fail to read
    # the rest ("too many open files") and lose their calls.
    scanned = measure("scan", [many], 1, {"AUDITOR_BENCH_OPEN_FILES": "64"})
    assert scanned.conversations == generated["conversations"] == 400
    assert scanned.calls == generated["calls"]


def test_small_files_go_to_a_worker_together_and_a_span_alone(tmp_path: Path) -> None:
    from auditor.readers.lines import Span
    from auditor.run.jobs import Job
    from auditor.run.worker import BATCH_BYTES, batches

    small = tmp_path / "session.jsonl"
    small.write_bytes(b"{}\n" * 10)
    work = [(i, Job(small, f"s{i}", None)) for i in range(5)]
    work.append((5, Job(small, "big", None, Span(0, BATCH_BYTES, 1))))
    work.append((6, Job(small, "s6", None)))
    grouped = [[index for index, _ in batch] for batch in batches(work)]
    assert grouped == [[0, 1, 2, 3, 4], [5], [6]]
