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
"""

from __future__ import annotations

import os
import subprocess
import sys
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


def scan_all(folder: Path, code: Path = HERE) -> None:
    """Scan every corpus that exists into ``folder/<name>`` with the auditor of ``code``."""
    for name, corpus in CORPORA.items():
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


def main(argv: list[str]) -> int:
    code = HERE
    if "--code" in argv:
        at = argv.index("--code")
        code = Path(argv[at + 1]).resolve()
        argv = argv[:at] + argv[at + 2 :]
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
