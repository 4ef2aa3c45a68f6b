"""Speed work and reshaping must not change a single row: the calls tables of the sample
transcripts and the labelled corpus are held to the ones kept in ``tests/data/golden``.

A change that alters output on purpose (a new rule, a better cue) writes them again with
``python tests/compare_tables.py golden``; the diff of those files is then what it altered.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from compare_tables import CORPORA, GOLDEN, GOLDEN_CORPORA, golden_rows, scan_all


@pytest.mark.parametrize("name", GOLDEN_CORPORA)
def test_the_calls_table_is_the_one_kept(name: str, tmp_path: Path) -> None:
    if not CORPORA[name].is_dir():
        pytest.skip(f"{CORPORA[name]} is not here")
    scan_all(tmp_path, names=(name,))
    kept = (GOLDEN / f"{name}.calls.jsonl").read_bytes().splitlines()
    made = golden_rows(tmp_path / name / "calls.parquet")
    changed = [
        f"row {number}: {old.decode()[:300]} -> {new.decode()[:300]}"
        for number, (old, new) in enumerate(zip(kept, made, strict=False))
        if old != new
    ]
    assert len(kept) == len(made), f"{len(kept)} rows kept, {len(made)} made"
    assert not changed, "\n".join(changed[:5])
