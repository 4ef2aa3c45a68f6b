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


def test_a_folder_is_walked_in_sorted_path_order_as_its_files_are_reached(tmp_path: Path) -> None:
    from auditor.run.inputs import expand

    for name in ("b/x/1", "b c/2", "B/3", "a/.git/4", ".hidden/5", "sub/.aider.chat.history.md/6"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}\n")
    for name in ("b.txt", "b-c", "a b", "a/b", ".h", ".aider.chat.history.md", "é", "Z"):
        (tmp_path / name).write_text("{}\n")
    (tmp_path / "to-b").symlink_to(tmp_path / "b")  # a link to a folder is not walked
    (tmp_path / "to-b.txt").symlink_to(tmp_path / "b.txt")  # a link to a file is read
    walked = expand([tmp_path])
    assert next(walked) == (
        tmp_path / ".aider.chat.history.md",
        str(tmp_path / ".aider.chat.history.md"),
    )
    names = [str(Path(source).relative_to(tmp_path)) for _, source in walked]
    assert names == ["B/3", "Z", "a/b", "a b", "b/x/1", "b c/2", "b-c", "b.txt", "to-b.txt", "é"]
