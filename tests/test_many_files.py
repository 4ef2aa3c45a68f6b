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
