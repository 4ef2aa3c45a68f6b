"""The whole ``auditor scan`` as one library function, with its exit status.

The command line, ``auditor bench``, the notebooks and ``from auditor import scan`` all call
``scan`` here, so that what a nightly job runs is what a notebook gets: an incremental read
(with ``state``), the audit on the local or the Dask engine, suppressions, the comparison with
a baseline, the summary, the run folder (with ``out``) and the exit status.

A problem found before anything is read (a wrong rule, suppressions or settings file, an
unknown input format, a baseline folder without a scan, a missing extra) raises
``ScanRefused``: the command line turns it into exit status 2 with one line of JSON.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from dataclasses import replace
from datetime import date
from pathlib import Path
from time import perf_counter

from auditor import readers
from auditor.output.baseline import BaselineError, compare, load_baseline_or_none
from auditor.output.folder import run_folder, staged_run
from auditor.output.result import ScanResult
from auditor.output.suppress import apply_suppressions, load_suppressions, today_utc
from auditor.output.tables import check_writable
from auditor.rules_loader import RuleFileError, RuleSet, load_rules
from auditor.run import inputs
from auditor.run.incremental import scan_and_stage
from auditor.run.lock import StateBusy, holding
from auditor.run.share import start_early
from auditor.run.stages import lap
from auditor.run.status import exit_status


class ScanRefused(ValueError):
    """The scan did not start; ``kind`` names what was wrong (usage, rule file, baseline...)."""

    def __init__(self, kind: str, error: Exception | str) -> None:
        super().__init__(str(error))
        self.kind = kind
        self.error = error


def scan(
    paths: Iterable[str | Path],
    *,
    out: str | Path | None = None,
    output_format: str = "parquet",
    fail_on: str = "critical",
    fail_on_new: bool = False,
    rules: RuleSet | None = None,
    rules_dir: str | Path | None = None,
    input_format: str | None = None,
    redact: bool = True,
    redact_emails: bool = False,
    redact_entropy: bool = False,
    jobs: int = 1,
    engine: str = "local",
    scheduler: str | None = None,
    suppressions: str | Path | None = None,
    baseline: str | Path | None = None,
    state: str | Path | None = None,
    partition_by_date: bool = False,
    run_date: date | str | None = None,
    progress: Callable[[int, int], None] | None = None,
    claims: str = "findings",
    wait: float = 0,
    warn: Callable[[str], None] | None = None,
) -> ScanResult:
    """Audit every transcript under ``paths`` as ``auditor scan`` does.

    ``claims``: ``findings`` reads a reply's claim only where a finding can follow (the spec);
    ``all`` reads it for every call.

    With ``state``, one run at a time holds the state folder: another run's scan waits up to
    ``wait`` seconds for it, else raises ``ScanRefused``; a run that takes over the folder from
    one that was killed tells ``warn`` (default: ``warnings.warn``). The new state comes into
    effect only once the run folder is written, and the run folder only once the state is:
    a run that cannot write either raises ``WriteFailed`` (a full disk, a folder it may not
    write) and leaves both as they were.

    The result holds the tables, ``summary()``, and ``exit_status`` (the documented status for
    ``fail_on``, ``fail_on_new``). With ``out`` the run's tables are written to its run folder
    (``result.folder``); without it nothing is written. Bad input goes to the rejects table,
    never raises; a scan that cannot start raises ``ScanRefused``.
    """
    paths = list(paths)
    # Workers for a scan on several cores start now: their start-up passes while the rules load.
    workers = start_early(paths, jobs) if engine == "local" else None
    try:
        rules, today, ignore, previous = _prepare(
            paths, rules, rules_dir, input_format, engine, suppressions, baseline, run_date
        )
        if claims not in CLAIM_READING:
            raise ScanRefused("usage", f"--claims must be one of {', '.join(CLAIM_READING)}")
        if (claims == "all") != rules.claims_all:
            rules = replace(rules, claims_all=claims == "all")
        folder = run_folder(Path(out), partition_by_date, today) if out is not None else None
        if folder is not None:
            check_writable(folder)  # before hours of reading, not after
        try:
            with holding(Path(state), wait) if state is not None else nullcontext() as killed:
                if killed is not None:
                    (warn or warnings.warn)(
                        f"{state}: took over the state folder from a run that ended without "
                        f"releasing it (killed?): {killed}"
                    )
                result, update = scan_and_stage(
                    paths,
                    state,
                    rules=rules,
                    input_format=input_format,
                    redact=redact,
                    redact_emails=redact_emails,
                    redact_entropy=redact_entropy,
                    jobs=jobs,
                    progress=progress,
                    engine=engine,
                    scheduler=scheduler,
                    workers=workers,
                )
                clock = perf_counter()
                with update or nullcontext():  # discarded unless committed
                    if ignore is not None:
                        result = apply_suppressions(result, ignore, today)
                    if previous is not None:
                        result = compare(result, previous)
                    summary = result.run_summary = result.summary()
                    with (
                        staged_run(folder, result, summary, output_format, partition_by_date)
                        if folder is not None
                        else nullcontext()
                    ):
                        if update is not None:
                            update.commit()
        except StateBusy as exc:
            raise ScanRefused("state in use", exc) from exc
        result.folder = folder
        result.exit_status = exit_status(summary, fail_on, only_new=fail_on_new)
        lap("tables", clock)
        return result
    finally:
        if workers is not None:
            workers.close()  # those the scan did not take


CLAIM_READING = ("findings", "all")  # where claims are read: --claims


def _prepare(
    paths: list[str | Path],
    rules: RuleSet | None,
    rules_dir: str | Path | None,
    input_format: str | None,
    engine: str,
    suppressions: str | Path | None,
    baseline: str | Path | None,
    run_date: date | str | None,
):
    """Everything checked and loaded before a file is read; a problem raises ``ScanRefused``."""
    if not paths:
        raise ScanRefused("usage", "no input: give files or folders, or 'paths' in the settings")
    needs_dask = engine == "dask" or any(inputs.is_url(p) for p in paths)
    if needs_dask and not inputs.available():
        raise ScanRefused("usage", inputs.MISSING)
    if input_format is not None and input_format not in readers.READERS:
        known = ", ".join(readers.READERS)
        raise ScanRefused("usage", f"unknown input format {input_format!r}; known: {known}")
    try:
        rules = rules or load_rules(rules_dir)
    except RuleFileError as exc:
        raise ScanRefused("rule file", exc) from exc
    try:
        ignore = load_suppressions(suppressions) if suppressions is not None else None
    except RuleFileError as exc:
        raise ScanRefused("suppressions", exc) from exc
    try:
        previous = load_baseline_or_none(baseline) if baseline is not None else None
    except BaselineError as exc:
        raise ScanRefused("baseline", exc) from exc
    try:
        today = date.fromisoformat(run_date) if isinstance(run_date, str) else run_date
    except ValueError as exc:
        raise ScanRefused("usage", f"--run-date: {exc}") from exc
    return rules, today or today_utc(), ignore, previous
