"""A report to share: one self-contained HTML file, or the same as Markdown for an incident
document.

The HTML needs no network to open: styles, the one small script and the SVG charts are inline,
and a Content-Security-Policy forbids loading anything else. Every string from a transcript is
escaped (``html.escape``); the script runs only because its hash is in the policy, so markup that
slipped into the page could not run a script of its own.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import polars as pl

from auditor.output.folder import load
from auditor.redact import Redactor
from auditor.views.incident import Filters, Incident, blast_radius, users_line, when
from auditor.views.timeline import TIMELINE_CSS, Timeline, build, to_html, to_markdown

e = html.escape
SEVERITY_COLOURS = {"critical": "#dc2626", "warning": "#f59e0b"}
MAX_TIMELINES = 200  # findings drawn with their timeline; the table lists them all


@dataclass
class ReportData:
    """What a report shows, gathered once for both renderers."""

    title: str
    out: Path
    summary: dict[str, Any]
    incident: Incident
    findings: pl.DataFrame  # ranked
    timelines: list[Timeline]
    generated_at: str


def gather(
    out: Path,
    filters: Filters | None = None,
    *,
    root: Path | None = None,
    redactor: Redactor | None = None,
    title: str | None = None,
) -> ReportData:
    """Read a scan's output folder and the source files its findings point at."""
    calls = load(out).collect()
    summary_path = out / "summary.json"
    summary = orjson.loads(summary_path.read_bytes()) if summary_path.is_file() else {}
    filters = filters or Filters()
    incident = blast_radius(calls, filters, redactor=redactor)
    findings = incident.affected
    timelines = []
    for row in findings.head(MAX_TIMELINES).iter_rows(named=True):
        rows = calls.filter(
            (pl.col("conversation_id") == row["conversation_id"])
            & (pl.col("source") == row["source"])
        )
        timelines.append(build(rows, focus=row["tool_call_id"], root=root, redactor=redactor))
    return ReportData(
        title=title or f"Transcript audit: {filters.describe()}",
        out=out,
        summary=summary,
        incident=incident,
        findings=findings,
        timelines=timelines,
        generated_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )


# ----------------------------------------------------------------------------- charts
def findings_over_time_svg(findings: pl.DataFrame, every: str) -> str:
    """Stacked bars of findings per time bucket, critical below warning."""
    dated = findings.filter(pl.col("timestamp").is_not_null())
    if not dated.height:
        return '<p class="muted">No finding carries a timestamp, so there is no time axis.</p>'
    buckets = (
        dated.sort("timestamp")
        .group_by_dynamic("timestamp", every=every)
        .agg(
            (pl.col("severity") == "critical").sum().alias("critical"),
            (pl.col("severity") == "warning").sum().alias("warning"),
        )
        .to_dicts()
    )
    width, height, left, bottom = 640, 220, 40, 40
    top = max(r["critical"] + r["warning"] for r in buckets) or 1
    slot = (width - left - 10) / len(buckets)
    bar = max(4.0, min(48.0, slot * 0.7))
    scale = (height - bottom - 10) / top
    out = [
        f'<svg class="chart" role="img" aria-label="Findings over time" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}">'
    ]
    for tick in range(top + 1):
        if top > 8 and tick % max(1, top // 4):
            continue
        y = height - bottom - tick * scale
        out.append(f'<line x1="{left}" x2="{width - 5}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{tick}</text>')
    fmt = "%m-%d %H:%M" if every.endswith("h") else "%Y-%m-%d"
    for index, row in enumerate(buckets):
        x = left + index * slot + (slot - bar) / 2
        y = height - bottom
        for severity in ("critical", "warning"):
            h = row[severity] * scale
            if h:
                y -= h
                out.append(
                    f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar:.1f}" height="{h:.1f}" '
                    f'fill="{SEVERITY_COLOURS[severity]}"><title>{e(severity)}: '
                    f"{row[severity]}</title></rect>"
                )
        label = row["timestamp"].strftime(fmt)
        out.append(
            f'<text x="{x + bar / 2:.1f}" y="{height - bottom + 16}" text-anchor="middle">'
            f"{e(label)}</text>"
        )
    out.append(_legend(left, height - 8))
    out.append("</svg>")
    return "".join(out)


def findings_by_tool_svg(findings: pl.DataFrame) -> str:
    """Horizontal bars of findings per tool, critical then warning."""
    if not findings.height:
        return '<p class="muted">No findings.</p>'
    by_tool = (
        findings.group_by("tool_name")
        .agg(
            (pl.col("severity") == "critical").sum().alias("critical"),
            (pl.col("severity") == "warning").sum().alias("warning"),
            pl.len().alias("n"),
        )
        .sort(["n", "tool_name"], descending=[True, False])
        .head(15)
        .to_dicts()
    )
    row_h, left, width = 24, 170, 640
    height = len(by_tool) * row_h + 40
    top = max(r["n"] for r in by_tool)
    scale = (width - left - 40) / top
    out = [
        f'<svg class="chart" role="img" aria-label="Findings by tool" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}">'
    ]
    for index, row in enumerate(by_tool):
        y = 6 + index * row_h
        name = row["tool_name"] if len(row["tool_name"]) <= 24 else row["tool_name"][:23] + "…"
        out.append(f'<text x="{left - 8}" y="{y + 15}" text-anchor="end">{e(name)}</text>')
        x = float(left)
        for severity in ("critical", "warning"):
            w = row[severity] * scale
            if w:
                out.append(
                    f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{row_h - 6}" '
                    f'fill="{SEVERITY_COLOURS[severity]}"><title>{e(severity)}: '
                    f"{row[severity]}</title></rect>"
                )
                x += w
        out.append(f'<text x="{x + 6:.1f}" y="{y + 15}">{row["n"]}</text>')
    out.append(_legend(left, height - 8))
    out.append("</svg>")
    return "".join(out)


def _legend(x: float, y: float) -> str:
    items = []
    for index, (name, colour) in enumerate(SEVERITY_COLOURS.items()):
        at = x + index * 100
        items.append(
            f'<rect x="{at}" y="{y - 10}" width="10" height="10" fill="{colour}"/>'
            f'<text x="{at + 14}" y="{y}">{name}</text>'
        )
    return "".join(items)


# ----------------------------------------------------------------------------- HTML
SCRIPT = """
document.body.dataset.ready = "1";
document.getElementById('filter').addEventListener('input', function (event) {
  var needle = event.target.value.toLowerCase();
  document.querySelectorAll('#findings tbody tr').forEach(function (row) {
    row.hidden = needle && row.textContent.toLowerCase().indexOf(needle) < 0;
  });
});
"""

CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#0f172a}
main{max-width:1100px;margin:0 auto;padding:1.2em 1.5em 4em}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;margin-top:1.8em;
  border-bottom:1px solid #e2e8f0;padding-bottom:.2em}
.muted{color:#64748b}
.cards{display:flex;flex-wrap:wrap;gap:.8em;margin:1em 0}
.card{border:1px solid #e2e8f0;border-radius:6px;padding:.5em .9em;min-width:9em}
.card b{display:block;font-size:1.5em}
.charts{display:flex;flex-wrap:wrap;gap:1.5em}
figure{margin:0}.chart{max-width:100%;height:auto}
.chart text{font-size:11px;fill:#334155}.chart .grid{stroke:#e2e8f0}
td.when{white-space:nowrap}
table{border-collapse:collapse;width:100%;font-size:.88em}
th,td{border-bottom:1px solid #e2e8f0;padding:.3em .45em;text-align:left;vertical-align:top;
  overflow-wrap:anywhere}
th{background:#f1f5f9}td.num,th.num{text-align:right}
.sev-critical{color:#b91c1c;font-weight:600}.sev-warning{color:#b45309;font-weight:600}
.impact-write{color:#6d28d9;font-weight:600}
#filter{padding:.3em .5em;width:20em;margin:.4em 0}
section.finding{margin-top:1.2em}
"""


def to_html_report(data: ReportData) -> str:
    """The whole report as one HTML document."""
    incident = data.incident
    script_hash = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
    policy = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src 'sha256-{script_hash}'"
    )
    cards = [
        ("tool calls", incident.calls),
        ("failed", f"{incident.failed} ({incident.failure_rate:.0%})"),
        ("findings", incident.findings),
        ("false claims", incident.false_claims),
        ("conversations with a false claim", incident.conversations),
        ("people with a false claim", incident.users if incident.users is not None else "n/a"),
    ]
    seen = (
        f"First failure {e(_when(incident.first_seen))}, last {e(_when(incident.last_seen))}."
        if incident.first_seen
        else "No failure carries a timestamp."
    )
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{e(policy, quote=False)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(data.title)}</title>",
        f"<style>{CSS}{TIMELINE_CSS}</style></head><body><main>",
        f"<h1>{e(data.title)}</h1>",
        f'<p class="muted">Scan output {e(str(data.out))}; report written '
        f"{e(data.generated_at)}. Selection: {e(incident.filters.describe())}.</p>",
        '<h2 id="summary">Summary</h2><div class="cards">',
        *(f'<div class="card"><b>{e(str(v))}</b>{e(k)}</div>' for k, v in cards),
        "</div>",
        f"<p>{seen} {e(users_line(incident).capitalize())}.</p>",
        _summary_scope(data.summary),
        '<h2 id="charts">Findings over time and by tool</h2><div class="charts">',
        f"<figure>{findings_over_time_svg(data.findings, incident.every)}"
        f"<figcaption>Findings per {e(_every_word(incident.every))}</figcaption></figure>",
        f"<figure>{findings_by_tool_svg(data.findings)}"
        "<figcaption>Findings by tool</figcaption></figure>",
        "</div>",
        _top_errors_html(incident),
        f'<h2 id="findings-table">Findings ({data.findings.height})</h2>',
        '<input id="filter" type="search" placeholder="Filter the findings…" '
        'aria-label="Filter the findings">',
        _findings_table(data.findings),
        '<h2 id="timelines">Timelines</h2>',
    ]
    if data.findings.height > len(data.timelines):
        parts.append(
            f'<p class="muted">The first {len(data.timelines)} findings are drawn; '
            "the table lists them all.</p>"
        )
    for index, (row, timeline) in enumerate(
        zip(data.findings.iter_rows(named=True), data.timelines, strict=False), start=1
    ):
        parts.append(
            f'<section class="finding" id="finding-{index}"><h3>{index}. '
            f'<span class="sev-{e(row["severity"])}">{e(row["finding"])}</span> · '
            f"{e(row['tool_name'])} · {e(row['conversation_id'])}</h3>"
            f"{to_html(timeline)}</section>"
        )
    parts.append(f"</main><script>{SCRIPT}</script></body></html>")
    return "\n".join(parts)


_when = when


def _every_word(every: str) -> str:
    return {"1h": "hour", "1d": "day", "1w": "week"}.get(every, every)


def _summary_scope(summary: dict[str, Any]) -> str:
    if not summary:
        return ""
    return (
        f'<p class="muted">The scan read {summary.get("files", "?")} file(s), '
        f"{summary.get('conversations', '?')} conversation(s), "
        f"{summary.get('tool_calls', '?')} tool call(s); {summary.get('rejects', 0)} line(s) "
        "could not be audited.</p>"
    )


def _top_errors_html(incident: Incident) -> str:
    if not incident.top_errors.height:
        return ""
    rows = "".join(
        f'<tr><td class="num">{r["calls"]}</td><td class="num">{r["conversations"]}</td>'
        f"<td>{e(r['example'] or '')}</td></tr>"
        for r in incident.top_errors.iter_rows(named=True)
    )
    return (
        '<h2 id="errors">Top errors</h2><table><thead><tr><th class="num">calls</th>'
        '<th class="num">conversations</th><th>error (example)</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"
    )


def _findings_table(findings: pl.DataFrame) -> str:
    head = (
        "<tr><th>#</th><th>when</th><th>finding</th><th>impact</th><th>tool</th>"
        "<th>conversation</th><th>evidence</th><th>the reply said</th></tr>"
    )
    rows = []
    for index, r in enumerate(findings.iter_rows(named=True), start=1):
        rows.append(
            f'<tr><td><a href="#finding-{index}">{index}</a></td>'
            f'<td class="when">{e(_when(r["timestamp"]))}</td>'
            f'<td class="sev-{e(r["severity"])}">{e(r["finding"])}</td>'
            f'<td class="impact-{e(r["impact"] or "")}">{e(r["impact"] or "")}</td>'
            f"<td>{e(r['tool_name'])}</td><td>{e(r['conversation_id'])}</td>"
            f"<td>{e(r['evidence'] or '')}</td><td>{e(r['claim_sentence'] or '')}</td></tr>"
        )
    return f'<table id="findings"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'


# ----------------------------------------------------------------------------- Markdown
def _cell(value: Any) -> str:
    """A table cell: plain values as they are, transcript text as code with pipes escaped."""
    text = " ".join(str(value if value is not None else "").split())
    if not text:
        return ""
    ticks = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    return f"{ticks} {text.replace('|', chr(92) + '|')} {ticks}"


def to_markdown_report(data: ReportData) -> str:
    """The report as Markdown for an incident document."""
    incident = data.incident
    lines = [
        f"# {data.title}",
        "",
        f"Scan output `{data.out}`, report written {data.generated_at}. "
        f"Selection: {incident.filters.describe()}.",
        "",
        "## Summary",
        "",
        f"- {incident.calls} tool call(s), {incident.failed} failed ({incident.failure_rate:.0%})",
        f"- first failure {_when(incident.first_seen) or 'not dated'}, "
        f"last {_when(incident.last_seen) or 'not dated'}",
        f"- {incident.findings} finding(s): "
        + (", ".join(f"{k} {v}" for k, v in incident.by_finding.items()) or "none"),
        f"- {incident.false_claims} false claim(s) in {incident.conversations} conversation(s); "
        f"{users_line(incident)}",
        "",
    ]
    if incident.over_time.height:
        lines += [
            f"## Failure rate over time (per {_every_word(incident.every)})",
            "",
            "| from | calls | failed | rate | false claims |",
            "|---|---:|---:|---:|---:|",
            *(
                f"| {_when(r['bucket'])} | {r['calls']} | {r['failed']} | "
                f"{r['failure_rate']:.0%} | {r['false_claims']} |"
                for r in incident.over_time.iter_rows(named=True)
            ),
            "",
        ]
    if data.findings.height:
        by_tool = (
            data.findings.group_by("tool_name")
            .agg(pl.len().alias("findings"), (pl.col("severity") == "critical").sum())
            .sort(["findings", "tool_name"], descending=[True, False])
        )
        lines += ["## Findings by tool", "", "| tool | findings | critical |", "|---|---:|---:|"]
        lines += [f"| {_cell(t)} | {n} | {c} |" for t, n, c in by_tool.iter_rows()]
        lines.append("")
    if incident.top_errors.height:
        lines += ["## Top errors", "", "| calls | conversations | error (example) |"]
        lines.append("|---:|---:|---|")
        lines += [
            f"| {r['calls']} | {r['conversations']} | {_cell(r['example'])} |"
            for r in incident.top_errors.iter_rows(named=True)
        ]
        lines.append("")
    lines += [
        f"## Findings ({data.findings.height})",
        "",
        "| # | when | finding | impact | tool | conversation | user | file:line |",
        "|---:|---|---|---|---|---|---|---|",
    ]
    for index, r in enumerate(data.findings.iter_rows(named=True), start=1):
        where = f"{r['source']}:{r['line']}"
        lines.append(
            f"| {index} | {_when(r['timestamp'])} | {r['finding']} ({r['severity']}) | "
            f"{r['impact'] or ''} | {_cell(r['tool_name'])} | {_cell(r['conversation_id'])} | "
            f"{_cell(r['user_id'])} | {_cell(where)} |"
        )
    lines += ["", "## Timelines", ""]
    for index, (r, timeline) in enumerate(
        zip(data.findings.iter_rows(named=True), data.timelines, strict=False), start=1
    ):
        lines += [f"### {index}. {r['finding']} · {_cell(r['tool_name'])}", ""]
        lines += [to_markdown(timeline), ""]
    return "\n".join(lines)


def write_report(
    out: Path,
    *,
    html_path: Path | None = None,
    markdown_path: Path | None = None,
    filters: Filters | None = None,
    root: Path | None = None,
    redactor: Redactor | None = None,
) -> ReportData:
    """Write the HTML and/or Markdown report of a scan's output folder."""
    data = gather(out, filters, root=root, redactor=redactor)
    if html_path is not None:
        html_path.write_text(to_html_report(data), encoding="utf-8")
    if markdown_path is not None:
        markdown_path.write_text(to_markdown_report(data), encoding="utf-8")
    return data


__all__ = ["ReportData", "gather", "to_html_report", "to_markdown_report", "write_report"]
