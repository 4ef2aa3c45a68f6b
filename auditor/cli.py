"""The ``auditor`` command: a thin layer over the library that parses options and prints.

Exit statuses (also in the README):
  0  no finding at or above the --fail-on threshold, all input read
  1  at least one finding at or above the --fail-on threshold
  2  the scan did not start: bad options, a wrong rule file, an unknown input format name
  3  no finding at or above the threshold, but some input could not be read (see rejects.jsonl)
"""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import orjson
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from auditor import readers
from auditor.evaluate import evaluate
from auditor.report import print_evaluation, print_summary
from auditor.rules_loader import RuleFileError, load_rules
from auditor.scan import scan
from auditor.table import write_outputs

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_PARTLY_UNREADABLE = 0, 1, 2, 3

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


class FailOn(StrEnum):
    critical = "critical"
    warning = "warning"
    never = "never"


RulesOption = Annotated[
    Path | None,
    typer.Option("--rules", help="A folder of rule files layered over the shipped ones."),
]


def _rules(rules_dir: Path | None):
    try:
        return load_rules(rules_dir)
    except RuleFileError as exc:
        Console(stderr=True).print(
            f"[red]rule file error:[/red] {exc}", markup=True, highlight=False
        )
        raise typer.Exit(EXIT_USAGE) from exc


@app.command("scan")
def scan_command(
    paths: Annotated[list[Path], typer.Argument(help="Transcript files or folders ('-' not yet).")],
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
    redact: Annotated[
        bool,
        typer.Option(
            "--redact/--no-redact",
            help="Mask tokens, API keys and Authorization headers in every excerpt written.",
        ),
    ] = True,
    redact_emails: Annotated[
        bool, typer.Option("--redact-emails", help="Mask email addresses too.")
    ] = False,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs", "-j", min=1, help="Processes to audit files in (default: all cores)."
        ),
    ] = os.cpu_count() or 1,
) -> None:
    """Audit transcripts and write calls, findings, rejects and summary to --out."""
    if input_format is not None and input_format not in readers.READERS:
        Console(stderr=True).print(
            f"unknown input format {input_format!r}; known: {', '.join(readers.READERS)}",
            markup=False,
        )
        raise typer.Exit(EXIT_USAGE)
    rules = _rules(rules_dir)
    result = scan(
        paths,
        rules=rules,
        input_format=input_format,
        redact=redact,
        redact_emails=redact_emails,
        jobs=jobs,
    )
    summary = result.summary()
    write_outputs(out, result.calls, result.rejects, summary, output_format.value)
    if not quiet:
        console = Console()
        print_summary(console, summary, result.calls)
        console.print(
            f"Wrote {out}/calls.{output_format.value}, findings, rejects.jsonl, summary.json"
        )
    raise typer.Exit(exit_status(summary, fail_on))


def exit_status(summary: dict, fail_on: FailOn) -> int:
    """The documented exit status of a scan."""
    severity = summary["severity"]
    if fail_on == FailOn.critical and severity["critical"]:
        return EXIT_FINDINGS
    if fail_on == FailOn.warning and (severity["critical"] or severity["warning"]):
        return EXIT_FINDINGS
    if summary["rejects"]:
        return EXIT_PARTLY_UNREADABLE
    return EXIT_OK


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
    rules_dir: RulesOption = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List every cue.")] = False,
) -> None:
    """List the rule files and cue packs in use, and where each cue came from."""
    rules = _rules(rules_dir)
    console = Console()
    console.print("Rule files:", highlight=False)
    for name in rules.files:
        console.print(f"  {name}", markup=False, highlight=False)
    packs = Table(title="Claim cue packs")
    for column in ("language", "name", "cues", "from"):
        packs.add_column(column)
    for language, pack in sorted(rules.packs.items()):
        sources = sorted({cue.source for cue in pack.cues})
        packs.add_row(language, pack.name, str(len(pack.cues)), "\n".join(sources))
    console.print(packs)
    recognised = sorted(set(rules.languages) - set(rules.packs))
    if recognised:
        console.print(
            "Recognised without a pack (claim neutral with a note): "
            + ", ".join(f"{code} ({rules.language_names.get(code, code)})" for code in recognised),
            highlight=False,
        )
    if verbose:
        cues = Table(title="Cues")
        for column in ("id", "kind", "from", "pattern"):
            cues.add_column(column, overflow="fold")
        for pack in rules.packs.values():
            for cue in pack.cues:
                cues.add_row(cue.id, cue.kind, cue.source, cue.regex.pattern)
        console.print(cues)


@app.command("bench")
def bench_command(
    folder: Annotated[
        Path, typer.Option("--dir", help="Where the synthetic corpus is (or is written).")
    ] = Path("bench-corpus"),
    size_mb: Annotated[float, typer.Option("--size-mb", help="Corpus size to generate.")] = 100.0,
) -> None:
    """Measure scan throughput and memory against bare JSON parsing of the same files."""
    from auditor.bench import run

    report = run(folder, size_mb)
    table = Table(
        title=f"{report.megabytes:.0f} MB, {report.conversations:,} conversations, "
        f"{os.cpu_count()} core(s)"
    )
    for column in ("reading", "MB/s", "conversations/s", "× bare parsing", "peak RSS MB"):
        table.add_column(column, justify="left" if column == "reading" else "right")
    for name, mb_s, conv_s, ratio, peak in report.rows():
        table.add_row(name, f"{mb_s:.1f}", f"{conv_s:,.0f}", f"{ratio:.3f}", f"{peak:.0f}")
    Console().print(table)


@app.command("formats")
def formats_command() -> None:
    """List the transcript readers (each file's format is detected unless --input-format)."""
    table = Table(title="Readers")
    table.add_column("name")
    table.add_column("reads")
    for name, module in readers.READERS.items():
        table.add_row(name, Text(module.DESCRIPTION))
    Console().print(table)


def main() -> None:  # pragma: no cover - console script entry
    app()
