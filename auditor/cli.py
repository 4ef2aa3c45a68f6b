"""The ``auditor`` command: a thin layer over the library that parses options and prints.

Exit statuses (also in the README):
  0  no finding at or above the --fail-on threshold, all input read
  1  at least one unsuppressed finding at or above the --fail-on threshold (with --fail-on-new:
     a new finding or a new signature)
  2  the scan did not start: bad options, a wrong rule, suppressions or settings file, an
     unknown input format name, a baseline folder without a scan
  3  no finding at or above the threshold, but some input could not be read (see rejects.jsonl)
  4  the run failed part way (an internal error); one line of JSON on stderr says why
Every failing status but 1 and 3 writes one line of JSON on stderr.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NoReturn

import orjson
import polars as pl
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from auditor import catalogue, readers
from auditor.evaluate import evaluate
from auditor.output.suppress import default_suppressions
from auditor.output.tables import WriteFailed
from auditor.rules_loader import RuleFileError, load_rules
from auditor.run import pipeline
from auditor.run.lock import StateBusy
from auditor.run.status import EXIT_INTERNAL, EXIT_USAGE
from auditor.views.nightly import ProgressBar, print_scan
from auditor.views.rules import print_explanation, print_rules
from auditor.views.terminal import print_evaluation

app = typer.Typer(
    help="Audit stored LLM tool-call transcripts for replies that claimed success when the "
    "tool had failed.",
    no_args_is_help=True,
    add_completion=False,
)


class OutputFormat(StrEnum):
    parquet = "parquet"
    jsonl = "jsonl"
    csv = "csv"


class Engine(StrEnum):
    local = "local"
    dask = "dask"


class ClaimReading(StrEnum):
    findings = "findings"
    all = "all"


class FailOn(StrEnum):
    critical = "critical"
    warning = "warning"
    never = "never"


RulesOption = Annotated[
    Path | None,
    typer.Option("--rules", help="A folder of rule files layered over the shipped ones."),
]
RedactOption = Annotated[
    bool,
    typer.Option(
        "--redact/--no-redact",
        help="Mask secrets (API keys, tokens, private keys, passwords in URLs and assignments, "
        "Authorization headers) in transcript text.",
    ),
]
RedactEmailsOption = Annotated[
    bool, typer.Option("--redact-emails", help="Mask email addresses too.")
]
RedactEntropyOption = Annotated[
    bool,
    typer.Option(
        "--redact-entropy",
        help="Mask long random-looking words too (this masks hashes and ids as well).",
    ),
]
REDACTION_SETTINGS = ("redact", "redact_emails", "redact_entropy")


def _rules(rules_dir: Path | None):
    try:
        return load_rules(rules_dir)
    except RuleFileError as exc:
        fail("rule file", exc, EXIT_USAGE)


@app.callback()
def settings_callback(
    ctx: typer.Context,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="Settings file (default: ./auditor.toml, else the tool.auditor table of "
            "./pyproject.toml).",
        ),
    ] = None,
) -> None:
    """Options not given on the command line come from the settings file, when there is one."""
    from auditor.settings import SettingsError, find_settings, load_settings, scan_defaults

    path = config or find_settings()
    if path is None:
        return
    try:
        defaults = scan_defaults(load_settings(path))
    except SettingsError as exc:
        fail("settings", exc, EXIT_USAGE)
    rules = {"rules_dir": defaults["rules_dir"]} if "rules_dir" in defaults else {}
    redaction = {key: defaults[key] for key in REDACTION_SETTINGS if key in defaults}
    ctx.default_map = {
        "scan": defaults,
        "eval": rules,
        "rules": rules,
        **{command: redaction for command in ("show", "incident", "report")},
    }


def fail(kind: str, error: Exception | str, status: int) -> NoReturn:
    """End the run with one line of JSON on stderr, for schedulers and log collectors."""
    line: dict[str, object] = {"error": kind, "message": str(error), "exit_status": status}
    if isinstance(error, RuleFileError):
        line.update(file=error.file, key=error.key, problem=error.problem)
    if isinstance(error, WriteFailed):
        line.update(path=str(error.path))
    if isinstance(error, StateBusy) and error.holder is not None:
        line.update(holder=dataclasses.asdict(error.holder))
    sys.stderr.write(orjson.dumps(line).decode() + "\n")
    raise typer.Exit(status)


@app.command("scan")
def scan_command(
    paths: Annotated[
        list[str] | None,
        typer.Argument(
            help="Transcript files or folders ('-' for standard input), or fsspec URLs "
            "(s3://, gs://, file://; needs the dask extra)."
        ),
    ] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the output tables.")] = Path(
        "out"
    ),
    output_format: Annotated[
        OutputFormat, typer.Option("--format", help="Format of the calls and findings tables.")
    ] = OutputFormat.parquet,
    fail_on: Annotated[
        FailOn,
        typer.Option(help="Exit 1 when a finding of this severity or worse exists."),
    ] = FailOn.critical,
    rules_dir: RulesOption = None,
    input_format: Annotated[
        str | None,
        typer.Option("--input-format", help="Read every file with this reader (see 'formats')."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")] = False,
    redact: RedactOption = True,
    redact_emails: RedactEmailsOption = False,
    redact_entropy: RedactEntropyOption = False,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs", "-j", min=1, help="Processes to audit files in (default: all cores)."
        ),
    ] = os.cpu_count() or 1,
    engine: Annotated[
        Engine,
        typer.Option(help="Where files are audited: local processes, or a Dask cluster."),
    ] = Engine.local,
    scheduler: Annotated[
        str | None,
        typer.Option(
            help="Address of the Dask scheduler (tcp://host:8786) for --engine dask; "
            "without it, a cluster on this machine."
        ),
    ] = None,
    baseline: Annotated[
        Path | None,
        typer.Option(
            "--baseline",
            help="A previous run's output folder (or partitioned dataset): mark findings new or "
            "persisting, signatures new or known, write resolved.<format>.",
        ),
    ] = None,
    fail_on_new: Annotated[
        bool,
        typer.Option(
            "--fail-on-new",
            help="Exit 1 only for new findings or new signatures at or above --fail-on.",
        ),
    ] = False,
    suppressions: Annotated[
        Path | None,
        typer.Option(
            "--suppressions",
            help="Suppressions file (default: ./auditor-ignore.toml when there is one).",
        ),
    ] = None,
    state: Annotated[
        Path | None,
        typer.Option(
            "--state",
            help="State folder for incremental runs: read only files that are new or changed, "
            "and only the appended lines of grown JSONL logs.",
        ),
    ] = None,
    partition_by_date: Annotated[
        bool,
        typer.Option(
            "--partition-by-date",
            help="Write this run's tables to --out/run_date=YYYY-MM-DD/ (a dataset over time).",
        ),
    ] = False,
    run_date: Annotated[
        str | None,
        typer.Option(
            "--run-date",
            help="The run's date for --partition-by-date and suppression expiry (YYYY-MM-DD; "
            "default: today, UTC), to back-fill a missed night.",
        ),
    ] = None,
    claims: Annotated[
        ClaimReading,
        typer.Option(
            "--claims",
            help="Where to read what the reply claims: 'findings' (calls where a finding can "
            "follow: failed or partial, not recovered) or 'all' (every call; slower).",
        ),
    ] = ClaimReading.findings,
    wait: Annotated[
        float,
        typer.Option(
            "--wait",
            min=0,
            metavar="SECONDS",
            help="When another run holds the --state folder, wait this long for it to end "
            "(default: stop at once with status 2).",
        ),
    ] = 0,
) -> None:
    """Audit transcripts and write calls, findings, rejects and summary to --out."""
    console = Console()
    with ProgressBar(console, enabled=not quiet) as progress:
        result = _scan_or_fail(
            paths or [],
            out=out,
            output_format=output_format.value,
            fail_on=fail_on.value,
            fail_on_new=fail_on_new,
            rules_dir=rules_dir,
            input_format=input_format,
            redact=redact,
            redact_emails=redact_emails,
            redact_entropy=redact_entropy,
            jobs=jobs,
            engine=engine.value,
            scheduler=scheduler,
            suppressions=suppressions or default_suppressions(),
            baseline=baseline,
            state=state,
            partition_by_date=partition_by_date,
            run_date=run_date,
            progress=progress,
            claims=claims.value,
            wait=wait,
            warn=warn,
        )
    if not quiet:
        print_scan(console, result, output_format.value)
    raise typer.Exit(result.exit_status)


def warn(message: str) -> None:
    """One line on stderr, for the scheduler's log: the run goes on."""
    sys.stderr.write(f"warning: {message}\n")


def _scan_or_fail(paths: list[str], **options: Any) -> pipeline.ScanResult:
    """``pipeline.scan``, or the end of the run with the documented status and one JSON line."""
    try:
        return pipeline.scan(paths, **options)
    except pipeline.ScanRefused as exc:
        fail(exc.kind, exc.error, EXIT_USAGE)
    except WriteFailed as exc:  # nothing was changed: the previous outputs and state stand
        fail("cannot write", exc, EXIT_USAGE)
    except Exception as exc:  # one JSON line a scheduler can log, not a traceback
        fail("internal", f"{type(exc).__name__}: {exc}", EXIT_INTERNAL)


@app.command("diff")
def diff_command(
    old: Annotated[Path, typer.Argument(help="The earlier run's output folder.")],
    new: Annotated[Path, typer.Argument(help="The later run's output folder.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON.")] = False,
) -> None:
    """What changed between two runs: new, persisting and resolved findings, new signatures."""
    from auditor.output.baseline import BaselineError, diff
    from auditor.views.nightly import print_diff

    try:
        compared = diff(old, new)
    except BaselineError as exc:
        fail("baseline", exc, EXIT_USAGE)
    if as_json:
        payload = {
            **{k: v for k, v in compared.items() if k not in ("findings", "resolved")},
            "new_findings": compared["findings"].filter(pl.col("baseline") == "new").to_dicts(),
            "resolved": compared["resolved"].to_dicts(),
        }
        sys.stdout.buffer.write(
            orjson.dumps(payload, option=orjson.OPT_INDENT_2, default=str) + b"\n"
        )
        return
    print_diff(Console(), compared)


@app.command("eval")
def eval_command(
    corpus: Annotated[Path, typer.Argument(help="A labelled corpus: transcripts + labels.jsonl.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the scores as JSON.")] = False,
    rules_dir: RulesOption = None,
    mismatches: Annotated[
        bool, typer.Option("--mismatches/--no-mismatches", help="List every mismatch.")
    ] = True,
) -> None:
    """Score the auditor against a labelled corpus: precision and recall of findings, accuracy
    of outcomes and claims, and every mismatch."""
    if not (corpus / "labels.jsonl").is_file():
        Console(stderr=True).print(
            f"{corpus}: no labels.jsonl (see the spec's corpus layout)", markup=False
        )
        raise typer.Exit(EXIT_USAGE)
    evaluation = evaluate(corpus, rules=_rules(rules_dir))
    if as_json:
        payload = evaluation.as_dict()
        if mismatches:
            payload["mismatches"] = evaluation.mismatches().drop("label_note").to_dicts()
        sys.stdout.buffer.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n")
        return
    print_evaluation(Console(), evaluation, mismatches=mismatches)


@app.command("rules")
def rules_command(
    rule_id: Annotated[
        str | None,
        typer.Argument(help="A rule id, finding, cue id or cue family to explain (as --explain)."),
    ] = None,
    explain: Annotated[
        str | None,
        typer.Option("--explain", help="Explain one id: what it catches, why, an example."),
    ] = None,
    rules_dir: RulesOption = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List every cue.")] = False,
) -> None:
    """List every rule (outcome rules, findings, claim cue families, impact rules) with the
    rule files and cue packs in use; --explain ID prints one rule's explanation."""
    wanted = explain or rule_id
    if wanted is not None:
        try:
            entry = catalogue.explain(wanted)
        except catalogue.UnknownRuleError as exc:
            Console(stderr=True).print(str(exc), markup=False)
            raise typer.Exit(EXIT_USAGE) from exc
        print_explanation(Console(), wanted, entry)
        return
    print_rules(Console(), _rules(rules_dir), catalogue.load_catalogue(), verbose=verbose)


@app.command("bench")
def bench_command(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Your own logs to measure; without them, the bench corpus."),
    ] = None,
    folder: Annotated[
        Path, typer.Option("--dir", help="Where the bench corpus is (or is written).")
    ] = Path("bench-corpus"),
    size_mb: Annotated[float, typer.Option("--size-mb", help="Corpus size to generate.")] = 100.0,
    many_files: Annotated[
        int | None,
        typer.Option(
            "--many-files",
            help="Instead: scan this many tiny files (one conversation each, written into "
            "--dir) against the same conversations in a few files: time, memory, open files.",
        ),
    ] = None,
) -> None:
    """Measure scan throughput, memory and where the time goes, against bare JSON parsing of
    the same files: your own logs, or a generated corpus."""
    from auditor.bench import run, run_many
    from auditor.views.bench import print_bench, print_many_files

    if many_files is not None:
        found = run_many(folder, many_files)
        print_many_files(Console(), found)
    else:
        found = run(folder, size_mb, paths or None)
        print_bench(Console(), found)
    if found.missing_calls:
        raise typer.Exit(1)


@app.command("formats")
def formats_command() -> None:
    """List the transcript readers (each file's format is detected unless --input-format)."""
    table = Table(title="Readers")
    table.add_column("name")
    table.add_column("reads")
    for name, module in readers.READERS.items():
        table.add_row(name, Text(module.DESCRIPTION))
    Console().print(table)


# ----------------------------------------------------------------------------- postmortems
OutOption = Annotated[
    Path, typer.Option("--out", "-o", help="The scan's output folder (calls table).")
]
RootOption = Annotated[
    Path | None,
    typer.Option("--root", help="Folder the table's source paths are relative to (default: here)."),
]


def _calls(out: Path) -> pl.LazyFrame:
    """The calls table of an output folder or of a dataset of runs (``run_date=`` partitions),
    lazily; a folder with no scan output stops the command with a usage error."""
    from auditor.output.folder import load

    try:
        return load(out)
    except FileNotFoundError as exc:
        Console(stderr=True).print(f"{exc} (run 'auditor scan … --out {out}' first)", markup=False)
        raise typer.Exit(EXIT_USAGE) from exc


def _filters(tool, server, outcome, finding, since, until):
    from auditor.views.incident import Filters, parse_moment

    try:
        return Filters(
            tool=tool,
            server=server,
            outcome=outcome,
            finding=finding,
            since=parse_moment(since) if since else None,
            until=parse_moment(until, end=True) if until else None,
        )
    except ValueError as exc:
        Console(stderr=True).print(str(exc), markup=False)
        raise typer.Exit(EXIT_USAGE) from exc


def _redactor(redact: bool, emails: bool, entropy: bool):
    """The redactor of a command that shows transcript text: re-read sources, and tables written
    by an older auditor or with ``--no-redact``, are masked as the scan masks them."""
    from auditor.redact import Redactor

    return Redactor(enabled=redact, emails=emails, entropy=entropy)


ToolOption = Annotated[str | None, typer.Option("--tool", help="Tool name (MCP prefix optional).")]
ServerOption = Annotated[str | None, typer.Option("--server", help="MCP server name.")]
OutcomeOption = Annotated[
    str | None, typer.Option("--outcome", help="Only calls with this outcome.")
]
FindingOption = Annotated[str | None, typer.Option("--finding", help="Only this finding.")]
SinceOption = Annotated[
    str | None, typer.Option("--since", help="From this date or time (UTC, ISO 8601).")
]
UntilOption = Annotated[
    str | None, typer.Option("--until", help="Up to this time; a date includes that whole day.")
]


@app.command("show")
def show_command(
    key: Annotated[
        str, typer.Argument(help="A conversation id, a finding fingerprint or a call id.")
    ],
    out: OutOption = Path("out"),
    root: RootOption = None,
    whole: Annotated[
        bool, typer.Option("--whole", help="The whole conversation, not only the finding's turn.")
    ] = False,
    redact: RedactOption = True,
    redact_emails: RedactEmailsOption = False,
    redact_entropy: RedactEntropyOption = False,
) -> None:
    """Show a conversation as a timeline (request, calls, results, reply), re-read from source."""
    from auditor.views.timeline import NotFound, build, find_rows, to_rich

    try:
        rows, focus = find_rows(_calls(out).collect(), key)
    except NotFound as exc:
        Console(stderr=True).print(str(exc), markup=False)
        raise typer.Exit(EXIT_USAGE) from exc
    redactor = _redactor(redact, redact_emails, redact_entropy)
    timeline = build(rows, focus=focus, root=root, redactor=redactor, whole=whole)
    Console().print(to_rich(timeline))


@app.command("incident")
def incident_command(
    out: OutOption = Path("out"),
    tool: ToolOption = None,
    server: ServerOption = None,
    outcome: OutcomeOption = None,
    finding: FindingOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    every: Annotated[
        str | None,
        typer.Option("--every", help="Bucket of the series: 1h, 1d, 1w (default: by span)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the numbers as JSON.")] = False,
    redact: RedactOption = True,
    redact_emails: RedactEmailsOption = False,
    redact_entropy: RedactEntropyOption = False,
) -> None:
    """Blast radius: first and last failure, failure rate over time, who got a false claim."""
    from auditor.views.incident import blast_radius, print_incident

    incident = blast_radius(
        _calls(out).collect(),
        _filters(tool, server, outcome, finding, since, until),
        every,
        redactor=_redactor(redact, redact_emails, redact_entropy),
    )
    if as_json:
        sys.stdout.buffer.write(
            orjson.dumps(incident.as_dict(), option=orjson.OPT_INDENT_2) + b"\n"
        )
        return
    print_incident(Console(), incident)


@app.command("report")
def report_command(
    out: Annotated[Path, typer.Argument(help="The scan's output folder.")],
    html_path: Annotated[
        Path | None, typer.Option("--html", help="Write an HTML report here.")
    ] = None,
    markdown_path: Annotated[
        Path | None, typer.Option("--markdown", help="Write a Markdown incident document here.")
    ] = None,
    root: RootOption = None,
    tool: ToolOption = None,
    server: ServerOption = None,
    outcome: OutcomeOption = None,
    finding: FindingOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    redact: RedactOption = True,
    redact_emails: RedactEmailsOption = False,
    redact_entropy: RedactEntropyOption = False,
) -> None:
    """Write a self-contained HTML report (and/or Markdown) of a scan's findings."""
    from auditor.views.html import write_report

    if html_path is None and markdown_path is None:
        Console(stderr=True).print("give --html FILE and/or --markdown FILE", markup=False)
        raise typer.Exit(EXIT_USAGE)
    _calls(out)  # lazy: only says whether there is a scan output to report on
    data = write_report(
        out,
        html_path=html_path,
        markdown_path=markdown_path,
        filters=_filters(tool, server, outcome, finding, since, until),
        root=root,
        redactor=_redactor(redact, redact_emails, redact_entropy),
    )
    written = " and ".join(str(p) for p in (html_path, markdown_path) if p)
    Console().print(f"Wrote {written}: {data.findings.height} finding(s).", markup=False)


def main() -> None:  # pragma: no cover - console script entry
    app()
