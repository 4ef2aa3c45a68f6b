"""Terminal rendering with rich: the scan summary, the findings, the evaluation tables.

Transcript text is untrusted: it is always passed to rich as plain ``Text``, never as markup,
and control characters are replaced, so a reply cannot restyle or take over the terminal.
"""

from __future__ import annotations

import re
from typing import Any

import polars as pl
from rich.console import Console
from rich.table import Table
from rich.text import Text

from auditor.audit.impact import RANK_COLUMNS, ranked
from auditor.evaluate import CAUSES, Evaluation
from auditor.output.tables import findings

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
MAX_FINDINGS_SHOWN = 50
ROW = "__row"


def safe(value: Any) -> Text:
    """Untrusted text as a rich Text: no markup, no escape sequences."""
    return Text(_CONTROL.sub("�", "" if value is None else str(value)))


def print_summary(
    console: Console, summary: dict[str, Any], calls: pl.DataFrame | pl.LazyFrame
) -> None:
    console.print(
        f"Scanned {summary['files']} file(s), {summary['conversations']} conversation(s), "
        f"{summary['tool_calls']} tool call(s)."
    )
    counts = Table(title="Tool calls by outcome and claim", show_lines=False)
    counts.add_column("outcome")
    counts.add_column("calls", justify="right")
    counts.add_column("claim")
    counts.add_column("calls", justify="right")
    outcome_rows = list(summary["outcomes"].items())
    claim_rows = list(summary["claims"].items())
    for index in range(max(len(outcome_rows), len(claim_rows))):
        outcome = outcome_rows[index] if index < len(outcome_rows) else ("", "")
        claim = claim_rows[index] if index < len(claim_rows) else ("", "")
        counts.add_row(outcome[0], str(outcome[1]), claim[0], str(claim[1]))
    console.print(counts)
    console.print(
        f"{summary.get('recovered', 0)} failed call(s) recovered, {summary.get('probes', 0)} "
        f"probe(s) (failed lookups the assistant moved past); claims read on "
        f"{summary.get('claims_read', 0)} call(s)."
        + (
            f" [yellow]{summary['claims']['unread']} reply(ies) in a language without a cue "
            "pack were not read.[/yellow]"
            if summary["claims"].get("unread")
            else ""
        ),
        highlight=False,
    )

    by_finding = Table(title="Findings")
    by_finding.add_column("finding")
    by_finding.add_column("severity")
    by_finding.add_column("count", justify="right")
    severity = {"false_success": "critical", "identity_assumed": "critical"}
    for name, count in summary["findings"].items():
        by_finding.add_row(name, severity.get(name, "warning"), str(count))
    console.print(by_finding)

    # Critical first, and a false success on a write before one on a read.
    shown, total = first_findings(calls, MAX_FINDINGS_SHOWN)
    if total:
        print_findings(console, shown, total)
    if summary.get("skipped_files"):
        console.print(
            f"{summary['skipped_files']} file(s) passed over as not transcripts: "
            + ", ".join(f"{reason} ×{n}" for reason, n in summary["skipped_by_reason"].items()),
            highlight=False,
        )
    if summary["rejects"]:
        console.print(
            f"[yellow]{summary['rejects']} input line(s) could not be audited[/yellow] "
            "(see rejects.jsonl): "
            + ", ".join(f"{reason} ×{n}" for reason, n in summary["rejects_by_reason"].items())
        )


def first_findings(calls: pl.DataFrame | pl.LazyFrame, n: int) -> tuple[pl.DataFrame, int]:
    """The first ``n`` findings in reading order (``ranked``), and how many there are. The
    order is found on the columns it sorts by alone, so no more than ``n`` whole rows are read."""
    found = findings(calls.lazy()).with_row_index(ROW)
    order = [name for name in RANK_COLUMNS if name in found.collect_schema().names()]
    first = ranked(found.select(ROW, *order)).head(n).collect()[ROW]
    shown = ranked(found.filter(pl.col(ROW).is_in(first.implode()))).drop(ROW).collect()
    return shown, found.select(pl.len()).collect().item()


def print_findings(console: Console, shown: pl.DataFrame, total: int) -> None:
    """One block per finding shown, ``file:line`` first so editors and terminals can jump to
    it, and how many of the ``total`` were not shown."""
    console.print(Text(f"Findings ({total})", style="bold"))
    for row in shown.iter_rows(named=True):
        style = "bold red" if row["severity"] == "critical" else "bold yellow"
        console.print(
            Text.assemble(
                safe(f"{row['source']}:{row['line']}"),
                "  ",
                (row["finding"], style),
                _impact(row),
                "  ",
                safe(row["conversation_id"]),
                "  ",
                (safe(row["tool_name"]).plain, "bold"),
                (f"  [{row['tool_call_id']}]", "dim"),
            )
        )
        console.print(
            Text.assemble(
                ("    outcome ", "dim"),
                safe(row["outcome"]),
                (f" ({row['outcome_rule']})", "dim"),
                ": ",
                safe(row["evidence"]),
                (f"  at {row['evidence_pointer']}" if row["evidence_pointer"] else "", "dim"),
            )
        )
        said = row["claim_sentence"] or f"({row['claim_cue']})"
        console.print(
            Text.assemble(
                ("    reply   ", "dim"),
                safe(row["claim"]),
                (f" ({row['claim_cue']})", "dim"),
                ": ",
                safe(f"\u201c{said}\u201d" if row["claim_sentence"] else said),
            )
        )
    if total > shown.height:
        console.print(f"… and {total - shown.height} more in the findings table.")


def _impact(row: dict[str, Any]) -> tuple[str, str]:
    impact = row.get("impact")
    if not impact:
        return ("", "")
    return (f" ({impact})", "bold magenta" if impact == "write" else "dim")


def print_evaluation(console: Console, evaluation: Evaluation, *, mismatches: bool = True) -> None:
    scores = Table(title="Findings against the labels")
    for column in ("finding", "tp", "fp", "fn", "precision", "recall", "f1"):
        scores.add_column(column, justify="left" if column == "finding" else "right")
    for name, score in evaluation.findings.items():
        scores.add_row(
            name,
            str(score.true_positive),
            str(score.false_positive),
            str(score.false_negative),
            f"{score.precision:.3f}",
            f"{score.recall:.3f}",
            f"{score.f1:.3f}",
        )
    console.print(scores)
    read = int(evaluation.joined["claim_read"].sum())
    probe = (
        f"   probe accuracy {evaluation.probe_accuracy:.3f}"
        if evaluation.probe_accuracy is not None
        else ""
    )
    console.print(
        f"false alarms {evaluation.false_alarms} of {evaluation.quiet_calls} calls labelled "
        f"with no finding ({evaluation.false_alarm_rate:.1%})\n"
        f"outcome accuracy {evaluation.outcome_accuracy:.3f} over {evaluation.joined.height} "
        f"calls   claim accuracy {evaluation.claim_accuracy:.3f} over the {read} calls whose "
        f"claim is read\n"
        f"recovered accuracy {evaluation.recovered_accuracy:.3f}{probe}"
        + (
            f"   ({evaluation.skipped_ambiguous} ambiguous label(s) not scored)"
            if evaluation.skipped_ambiguous
            else ""
        )
    )
    confusion = evaluation.claim_confusion()
    table = Table(title="Claims where they are read: expected (rows) × auditor (columns)")
    for column in confusion.columns:
        table.add_column(column, justify="left" if column == "expected_claim" else "right")
    for row in confusion.iter_rows():
        table.add_row(*(str(v) for v in row))
    console.print(table)
    if evaluation.unmatched_labels or evaluation.unlabelled_calls:
        console.print(
            f"[yellow]{evaluation.unmatched_labels} label(s) matched no call; "
            f"{evaluation.unlabelled_calls} call(s) have no label[/yellow]"
        )
    if mismatches:
        print_mismatches(console, evaluation.mismatches())


def print_mismatches(console: Console, wrong: Any) -> None:
    """Every mismatch as a short block: what differs, and the columns that decided it."""
    if not wrong.height:
        return
    console.rule(f"Mismatches ({wrong.height})")
    for row in wrong.iter_rows(named=True):
        console.print(
            Text.assemble(
                (f"{row['source'] or ''}:{row['line'] or ''}", "dim"),
                "  ",
                safe(row["conversation_id"]),
                " ",
                safe(row["tool_call_id"]),
                "  ",
                (str(row["tool_name"]), "bold"),
            )
        )
        for column in ("outcome", "recovered", "probe", "claim", "finding"):
            expected, got = row.get(f"expected_{column}"), row[column]
            skip = (column == "claim" and not row["claim_read"]) or (
                column == "probe" and expected is None
            )
            if not skip and expected != got:
                console.print(Text.assemble(f"  {column:<9} ", _versus(expected, got)))
        causes = [f"{name} {row[name]}" for name in CAUSES if row[name] not in (None, "")]
        console.print(Text("  because: ", style="dim") + safe(" · ".join(causes)[:400]))
        if row["label_note"]:
            console.print(Text("  label: ", style="dim") + safe(str(row["label_note"])[:300]))


def _versus(expected: Any, got: Any) -> Text:
    if expected == got:
        return safe(got)
    return Text.assemble(
        ("want ", "dim"), safe(expected), (" got ", "dim"), Text(str(got), style="bold red")
    )
