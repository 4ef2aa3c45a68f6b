"""Same tables before and after a change that should not change output.

A reshaping of the code (moving modules, splitting a stage) must leave every row of every scan
the same. Run this with the old code to save the tables, then with the new code to compare:

    python tests/compare_tables.py save /tmp/before
    # ... change the code ...
    python tests/compare_tables.py check /tmp/before

It scans the sample transcripts, the labelled corpus, the real corpora and the bench corpus
(those that exist; ``AUDITOR_BENCH_DIR`` names the bench corpus, default ``/tmp/bench10``, made
by ``auditor bench``) with ``auditor scan`` as a user runs it, and compares the calls table, the
findings, the rejects and the summary. It exits 1 and names the first difference when anything
changed. ``--code TREE`` runs the auditor of another checkout (the old code, say) instead of
this one's.

The calls tables of the sample transcripts and the labelled corpus are also kept in the
repository (``tests/data/golden``), and ``tests/test_same_tables.py`` holds every change to
them: a change meant to alter no output must leave them as they are. A change that alters
output on purpose writes them again, and the diff shows what it altered:

    python tests/compare_tables.py golden
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson
import polars as pl

HERE = Path(__file__).resolve().parent.parent
CORPORA = {
    "sample_transcripts": HERE / "sample_transcripts",
    "labelled": HERE.parent / "shared" / "corpus" / "labelled",
    "real": HERE.parent / "shared" / "corpus" / "real",
    "real-more": HERE.parent / "shared" / "corpus" / "real-more",
    "bench": Path(os.environ.get("AUDITOR_BENCH_DIR", "/tmp/bench10")),
}


GOLDEN = HERE / "tests" / "data" / "golden"
GOLDEN_CORPORA = ("sample_transcripts", "labelled")


def scan_all(folder: Path, code: Path = HERE, names: tuple[str, ...] = tuple(CORPORA)) -> None:
    """Scan every corpus of ``names`` that exists into ``folder/<name>`` with the auditor of
    ``code``."""
    for name in names:
        corpus = CORPORA[name]
        if not corpus.is_dir():
            print(f"skip {name}: {corpus} is not here", file=sys.stderr)
            continue
        auditor = [sys.executable, "-c", "from auditor.cli import app; app()"]
        command = [*auditor, "scan", str(corpus), "--out", str(folder / name), "--quiet"]
        # One seed for set order: ties between equally good sentences are otherwise settled
        # by hash order, which differs from process to process.
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(code)}
        status = subprocess.run([*command, "--fail-on", "never"], env=env).returncode
        if status not in (0, 3):  # 3: some input could not be read, which is part of the test
            raise SystemExit(f"{' '.join(command)} exited with {status}")


def differences(before: Path, after: Path) -> list[str]:
    """What differs between two folders written by ``scan_all`` (empty when nothing does)."""
    found = []
    for name in CORPORA:
        old, new = before / name, after / name
        if not old.is_dir():
            continue
        for table in ("calls.parquet", "findings.parquet"):
            a, b = pl.read_parquet(old / table), pl.read_parquet(new / table)
            if not a.equals(b):
                found.append(f"{name}/{table}: {a.shape} before, {b.shape} after")
        if (old / "rejects.jsonl").read_bytes() != (new / "rejects.jsonl").read_bytes():
            found.append(f"{name}/rejects.jsonl differs")
        summaries = [orjson.loads((d / "summary.json").read_bytes()) for d in (old, new)]
        for summary in summaries:
            summary.pop("generated_at", None)  # the run's own time, different on every run
            for signature in summary.get("signatures", []):
                signature.pop("first_seen", None)
                signature.pop("last_seen", None)
        if summaries[0] != summaries[1]:
            found.append(f"{name}/summary.json differs")
    return found


def golden_rows(calls: Path) -> list[bytes]:
    """A calls table as the JSON lines kept in ``tests/data/golden``: one row a line in input
    order, sources without the folders the checkout happens to be in."""
    table = pl.read_parquet(calls).with_columns(
        pl.col("source")
        .str.replace(str(HERE), "<checkout>", literal=True)
        .str.replace(str(HERE.parent), "<beside>", literal=True)
    )
    return [orjson.dumps(row, option=orjson.OPT_SORT_KEYS) for row in table.iter_rows(named=True)]


def write_golden(folder: Path) -> None:
    """Write the golden calls tables from a ``scan_all`` of ``GOLDEN_CORPORA``."""
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name in GOLDEN_CORPORA:
        if (folder / name).is_dir():
            rows = golden_rows(folder / name / "calls.parquet")
            (GOLDEN / f"{name}.calls.jsonl").write_bytes(b"\n".join(rows) + b"\n")


def main(argv: list[str]) -> int:
    code = HERE
    if "--code" in argv:
        at = argv.index("--code")
        code = Path(argv[at + 1]).resolve()
        argv = argv[:at] + argv[at + 2 :]
    if argv == ["golden"]:
        with tempfile.TemporaryDirectory() as folder:
            scan_all(Path(folder), code, GOLDEN_CORPORA)
            write_golden(Path(folder))
        return 0
    if len(argv) != 2 or argv[0] not in ("save", "check"):
        print(__doc__, file=sys.stderr)
        return 2
    action, folder = argv[0], Path(argv[1])
    if action == "save":
        scan_all(folder, code)
        return 0
    after = folder.with_name(folder.name + "-after")
    scan_all(after, code)
    found = differences(folder, after)
    for line in found:
        print(line)
    print("identical" if not found else f"{len(found)} difference(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
