"""A conversation as a timeline: the person's request, each tool call with its arguments, the
result with the evidence that decided its outcome marked, and the reply with the sentence that
made the claim marked.

The calls table holds references (``source``, ``line``, ``evidence_pointer``), not copies of
transcripts: the timeline re-reads the source file. Everything taken from the transcript goes
through the redactor, and the renderers treat it as plain text: rich ``Text`` for the terminal
(``report.safe``), escaped HTML, fenced Markdown. One timeline, three ways to draw it.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson
import polars as pl
from rich.console import Group
from rich.table import Table
from rich.text import Text

from auditor.audit.payload import decode_json_text
from auditor.model import Conversation, TextPart, ToolCall, ToolResult
from auditor.readers import ReadResult, read_file
from auditor.redact import Redactor
from auditor.views.terminal import safe

TEXT_CHARS = 1500  # of one text shown; the marked part is always kept in view
ARGUMENT_CHARS = 1200
CONTEXT_STEPS = 4  # steps shown before a finding's call in a long turn (--whole: all)
CRITICAL_FINDINGS = ("false_success", "identity_assumed")


@dataclass
class Step:
    """One entry of a timeline. ``marks`` are (start, end) spans of ``text`` to highlight."""

    kind: str  # request, assistant, call, result, missing
    text: str
    marks: list[tuple[int, int]] = field(default_factory=list)
    row: dict[str, Any] | None = None  # the calls-table row of a call or result step
    turn: int = 0


@dataclass
class Timeline:
    conversation_id: str
    source: str
    steps: list[Step]
    note: str = ""  # why the source could not be re-read, when it could not
    focus: str | None = None  # tool_call_id of the finding the timeline is about

    @property
    def title(self) -> str:
        return f"{self.conversation_id}  ({self.source})"


class NotFound(LookupError):
    """No conversation, finding fingerprint or call id in the calls table matches."""


# ----------------------------------------------------------------------------- looking up
def find_rows(calls: pl.DataFrame | pl.LazyFrame, key: str) -> tuple[pl.DataFrame, str | None]:
    """The rows of the conversation ``key`` names, and the call id of the finding it names when
    it is a fingerprint (or a tool call id) rather than a conversation id."""
    lazy = calls.lazy()
    columns = lazy.collect_schema().names()
    rows = lazy.filter(pl.col("conversation_id") == key).collect()
    if rows.height:  # the same id in two files is two conversations: the first file's
        return rows.filter(pl.col("source") == rows["source"][0]), None
    for column in ("fingerprint", "tool_call_id"):
        if column not in columns:
            continue
        hit = lazy.filter(pl.col(column) == key).collect()
        if not hit.height and column == "fingerprint" and len(key) >= 6:
            hit = lazy.filter(pl.col(column).str.starts_with(key)).collect()
        if hit.height:
            first = hit.row(0, named=True)
            rows = lazy.filter(
                (pl.col("conversation_id") == first["conversation_id"])
                & (pl.col("source") == first["source"])
            ).collect()
            return rows, first["tool_call_id"]
    raise NotFound(f"no conversation, finding fingerprint or tool call id {key!r} in the table")


def resolve_source(source: str, root: Path | None = None) -> Path:
    """Where a ``source`` column value is now: as written, or under ``root``."""
    path = Path(source)
    if root is not None and not path.is_absolute():
        return root / path
    return path


def reread(rows: pl.DataFrame, root: Path | None = None) -> Conversation:
    """The conversation of ``rows`` read again from its source file with the same reader."""
    first = rows.row(0, named=True)
    path = resolve_source(first["source"], root)
    if not path.is_file():
        raise FileNotFoundError(f"{first['source']} is not there any more")
    read = _read(path, path.stat().st_mtime_ns, first["source"], first.get("format"))
    call_ids = set(rows["tool_call_id"].to_list())
    for conversation in read.conversations:
        if conversation.id != first["conversation_id"]:
            continue
        ids = {p.id for m in conversation.messages for p in m.parts if isinstance(p, ToolCall)}
        if ids & call_ids or not call_ids:
            return conversation
    raise LookupError(f"{first['source']} no longer holds conversation {first['conversation_id']}")


@lru_cache(maxsize=8)
def _read(path: Path, mtime: int, source: str, format_name: str | None) -> ReadResult:
    """A file read once for all the timelines of a report (``mtime``: a changed file is new)."""
    return read_file(path, source, format_name)


# ----------------------------------------------------------------------------- building
def build(
    rows: pl.DataFrame,
    *,
    focus: str | None = None,
    root: Path | None = None,
    redactor: Redactor | None = None,
    whole: bool = False,
) -> Timeline:
    """The timeline of the conversation of ``rows``: the turn of the ``focus`` call (a finding),
    or the whole conversation when there is no focus or ``whole`` is set."""
    redactor = redactor or Redactor()
    first = rows.row(0, named=True)
    by_call = {row["tool_call_id"]: row for row in rows.iter_rows(named=True)}
    turn = by_call[focus]["turn"] if focus in by_call and not whole else None
    try:
        conversation = reread(rows, root)
    except (OSError, LookupError) as exc:
        return _from_table(rows, focus, turn, redactor, f"source not re-read: {exc}")
    steps = _steps(conversation, by_call, redactor)
    if turn is not None:
        steps = _around(focus, [step for step in steps if step.turn == turn])
    return Timeline(first["conversation_id"], first["source"], steps, focus=focus)


def _around(focus: str | None, steps: list[Step]) -> list[Step]:
    """The part of a long agent turn that tells a finding's story: the request, a few steps
    before the call, the call, its result and the reply up to the next call, and the turn's last
    words; what is left out is counted in a ``gap`` step."""
    at = next(
        (
            i
            for i, s in enumerate(steps)
            if s.kind == "call" and s.row and s.row["tool_call_id"] == focus
        ),
        None,
    )
    if at is None:
        return steps
    end = next(
        (i for i in range(at + 1, len(steps)) if steps[i].kind == "call"),
        len(steps),
    )
    start = max(0, at - CONTEXT_STEPS)
    kept: list[Step] = []
    request = [s for s in steps[:start] if s.kind == "request"][:1]
    kept += request
    if start > len(request):
        kept.append(Step("gap", f"{start - len(request)} step(s) left out", turn=steps[at].turn))
    kept += steps[start:end]
    last = max((i for i, s in enumerate(steps) if s.kind == "assistant"), default=-1)
    if last >= end:
        if last > end:
            kept.append(Step("gap", f"{last - end} step(s) left out", turn=steps[at].turn))
        kept.append(steps[last])
    return kept


def _steps(
    conversation: Conversation, by_call: dict[str, dict[str, Any]], redactor: Redactor
) -> list[Step]:
    steps: list[Step] = []
    turn, started = 0, False
    sentences = [row["claim_sentence"] for row in by_call.values() if row.get("claim_sentence")]
    for message in conversation.messages:
        if message.role == "user" and message.from_person:
            turn = turn + 1 if started else 0
            started = True
        for part in message.parts:
            if isinstance(part, TextPart):
                text = redactor.apply(part.text) or ""
                if not text.strip():
                    continue
                if message.from_person:
                    steps.append(Step("request", text, turn=turn))
                elif message.role == "assistant":
                    marks = [m for s in sentences for m in _spans_of(text, s)]
                    steps.append(Step("assistant", text, _merge(marks), turn=turn))
            elif isinstance(part, ToolCall):
                started = True
                row = by_call.get(part.id)
                arguments = _json(part.arguments)
                steps.append(Step("call", redactor.apply(arguments) or "", row=row, turn=turn))
                if (
                    row is not None
                    and row["outcome"] == "transport_error"
                    and not _has_result(conversation, part.id)
                ):
                    steps.append(Step("missing", "no result came back", row=row, turn=turn))
            elif isinstance(part, ToolResult):
                row = by_call.get(part.call_id)
                text = redactor.apply(result_text(part)) or ""
                marks = _evidence_marks(text, part, row, redactor) if row else []
                steps.append(Step("result", text, marks, row=row, turn=turn))
    return steps


def _has_result(conversation: Conversation, call_id: str) -> bool:
    return any(
        isinstance(p, ToolResult) and p.call_id == call_id
        for m in conversation.messages
        for p in m.parts
    )


def _from_table(
    rows: pl.DataFrame, focus: str | None, turn: int | None, redactor: Redactor, note: str
) -> Timeline:
    """What the table alone says, when the source file cannot be read again."""
    steps = []
    for row in rows.sort("line").iter_rows(named=True):
        if turn is not None and row["turn"] != turn:
            continue
        steps.append(Step("call", "(arguments are in the source file)", row=row, turn=row["turn"]))
        evidence = redactor.apply(row["evidence"]) or ""
        steps.append(Step("result", evidence, [(0, len(evidence))] if evidence else [], row=row))
        sentence = redactor.apply(row["claim_sentence"]) or ""
        if sentence:
            steps.append(Step("assistant", sentence, [(0, len(sentence))], turn=row["turn"]))
    first = rows.row(0, named=True)
    return Timeline(first["conversation_id"], first["source"], steps, note=note, focus=focus)


def result_text(result: ToolResult) -> str:
    """A tool result as text: its text blocks, other blocks and structured content as JSON,
    or the protocol error that came back instead."""
    if not result.returned:
        return _json(result.rpc_error)
    content = result.content
    if isinstance(content, str):
        pieces = [content]
    elif isinstance(content, list):
        pieces = [
            block["text"]
            if isinstance(block, dict) and isinstance(block.get("text"), str)
            else block
            if isinstance(block, str)
            else _json(block)
            for block in content
        ]
    elif content is None:
        pieces = []
    else:
        pieces = [_json(content)]
    if result.has_structured and not pieces:
        pieces.append(_json(result.structured))
    return "\n".join(pieces)


def _json(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return str(value)


def _merge(marks: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(marks):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _spans_of(text: str, needle: str | None) -> list[tuple[int, int]]:
    """Where ``needle`` (or, when the table clipped it, its start) sits in ``text``."""
    if not needle:
        return []
    needle = needle.rstrip("…").strip()
    for candidate in (needle, needle[:80]):
        if len(candidate) < 3:
            continue
        # The table keeps a sentence on one line; the text may wrap it.
        pattern = r"\s+".join(re.escape(word) for word in candidate.split())
        found = [(m.start(), m.end()) for m in re.finditer(pattern, text)]
        if found:
            return found
    return []


def _evidence_marks(
    text: str, result: ToolResult, row: dict[str, Any], redactor: Redactor
) -> list[tuple[int, int]]:
    """Spans of the result text that decided the outcome: the value the evidence pointer names
    (an error message, an ``"ok": false`` field), else the evidence text itself."""
    marks: list[tuple[int, int]] = []
    found = _at_pointer(result, row.get("evidence_pointer") or "")
    if found is not None:
        key, value = found
        if isinstance(value, dict):
            value = next(
                (value[k] for k in ("message", "error", "detail") if isinstance(value.get(k), str)),
                _json(value),
            )
        if isinstance(value, str):
            marks = _spans_of(text, redactor.apply(value))
        elif key:
            literal = _json(value)
            pattern = rf'"{re.escape(key)}"\s*:\s*{re.escape(literal)}'
            marks = [(m.start(), m.end()) for m in re.finditer(pattern, text)]
    if not marks:
        evidence = row.get("evidence") or ""
        for piece in [evidence, *re.split(r";\s|\s\[|\s{2}", evidence)]:
            marks = _spans_of(text, piece)
            if marks:
                break
    return _merge(marks)


def _at_pointer(result: ToolResult, pointer: str) -> tuple[str, Any] | None:
    """(last key, value) the evidence pointer names inside ``result``; a step through a string
    continues into the JSON inside it."""
    if not pointer or not pointer.startswith(result.pointer):
        return None
    steps = [
        s.replace("~1", "/").replace("~0", "~") for s in pointer[len(result.pointer) :].split("/")
    ]
    record = {
        result.content_key: result.content,
        result.structured_key: result.structured,
        result.flag_key: result.is_error,
        result.error_key: result.rpc_error,
    }
    value: Any = record
    key = ""
    for step in steps[1:]:
        if isinstance(value, str):
            decoded, value = decode_json_text(value)
            if not decoded:
                return None
        if isinstance(value, dict) and step in value:
            value = value[step]
        elif isinstance(value, list) and step.isdigit() and int(step) < len(value):
            value = value[int(step)]
        else:
            return None
        key = step
    return key, value


# ----------------------------------------------------------------------------- terminal
def _badge(row: dict[str, Any] | None) -> Text:
    if row is None:
        return Text("")
    style = "bold red" if row["severity"] == "critical" else "bold yellow"
    pieces: list[Any] = [(f" {row['outcome']}", "dim")]
    if row.get("impact"):
        pieces.append((f" · {row['impact']}", "magenta" if row["impact"] == "write" else "dim"))
    if row.get("finding"):
        pieces.append((f"  {row['finding']}", style))
    return Text.assemble(*pieces)


def _clipped(text: str, marks: list[tuple[int, int]], limit: int) -> tuple[str, list]:
    """At most ``limit`` characters of ``text``, keeping the first mark in view."""
    if len(text) <= limit:
        return text, marks
    start = max(0, (marks[0][0] - limit // 4) if marks else 0)
    end = min(len(text), start + limit)
    head = "… " if start else ""
    tail = f" … ({len(text) - end:,} more characters)" if end < len(text) else ""
    shift = len(head) - start
    kept = [(max(a, start) + shift, min(b, end) + shift) for a, b in marks if b > start and a < end]
    return head + text[start:end] + tail, kept


def _marked_text(text: str, marks: list[tuple[int, int]], style: str, limit: int) -> Text:
    shown, kept = _clipped(text, marks, limit)
    out = safe(shown)
    for start, end in kept:
        out.stylize(style, start, end)
    return out


MARK_STYLE = "bold black on yellow"
LABELS = {
    "request": "person",
    "assistant": "assistant",
    "call": "tool call",
    "result": "result",
    "missing": "result",
    "gap": "…",
}


def to_rich(timeline: Timeline) -> Group:
    """The timeline for the terminal: transcript text as plain ``Text``, marks as styles."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(justify="right", style="bold cyan", no_wrap=True, width=10)
    grid.add_column(overflow="fold")
    for step in timeline.steps:
        row = step.row
        if step.kind == "call" and row is not None:
            focus = row["tool_call_id"] == timeline.focus
            head = Text.assemble(
                ("▶ " if focus else "", "bold red"),
                (safe(row["tool_name"]).plain, "bold"),
                (f" [{row['tool_call_id']}]", "dim"),
                _badge(row),
            )
            body = Text("\n").join([head, _marked_text(step.text, [], "", ARGUMENT_CHARS)])
        elif step.kind == "result" and row is not None:
            where = f"  at {row['evidence_pointer']}" if row["evidence_pointer"] else ""
            head = Text.assemble(
                (f"{row['outcome']} ({row['outcome_rule']})", "bold"), (where, "dim")
            )
            marked = _marked_text(step.text, step.marks, MARK_STYLE, TEXT_CHARS)
            body = Text("\n").join([head, marked])
        elif step.kind == "missing":
            body = Text(step.text, style="bold red")
        elif step.kind == "gap":
            body = Text(step.text, style="dim")
        else:
            style = MARK_STYLE if step.kind == "assistant" else ""
            body = _marked_text(step.text, step.marks, style, TEXT_CHARS)
        grid.add_row(LABELS[step.kind], body)
    head = [Text.assemble(("Conversation ", "bold"), safe(timeline.title))]
    if timeline.note:
        head.append(Text(timeline.note, style="yellow"))
    return Group(*head, grid)


# ----------------------------------------------------------------------------- HTML
def _marked_html(text: str, marks: list[tuple[int, int]], limit: int = TEXT_CHARS) -> str:
    shown, kept = _clipped(text, marks, limit)
    out, at = [], 0
    for start, end in kept:
        out.append(html.escape(shown[at:start]))
        out.append(f"<mark>{html.escape(shown[start:end])}</mark>")
        at = end
    out.append(html.escape(shown[at:]))
    return "".join(out)


def to_html(timeline: Timeline) -> str:
    """The timeline as an HTML fragment (styles in ``TIMELINE_CSS``); all text escaped."""
    e = html.escape
    parts = [f'<div class="timeline"><div class="tl-title">{e(timeline.title)}</div>']
    if timeline.note:
        parts.append(f'<div class="tl-note">{e(timeline.note)}</div>')
    for step in timeline.steps:
        row = step.row or {}
        focus = " tl-focus" if row.get("tool_call_id") == timeline.focus and timeline.focus else ""
        label = LABELS[step.kind]
        if step.kind == "call" and row:
            badges = f'<span class="tl-badge">{e(row["outcome"])}</span>'
            if row.get("impact"):
                badges += f'<span class="tl-badge tl-{e(row["impact"])}">{e(row["impact"])}</span>'
            if row.get("finding"):
                severity = e(row["severity"] or "")
                badges += f'<span class="tl-badge tl-{severity}">{e(row["finding"])}</span>'
            call_id = f'<span class="tl-dim">[{e(row["tool_call_id"])}]</span>'
            head = f"<b>{e(row['tool_name'])}</b> {call_id} {badges}"
            body = f"<pre>{_marked_html(step.text, [], ARGUMENT_CHARS)}</pre>"
        elif step.kind == "result" and row:
            where = (
                f' <span class="tl-dim">at {e(row["evidence_pointer"])}</span>'
                if row.get("evidence_pointer")
                else ""
            )
            rule = f'<span class="tl-dim">({e(row["outcome_rule"] or "")})</span>'
            head = f"<b>{e(row['outcome'])}</b> {rule}{where}"
            body = f"<pre>{_marked_html(step.text, step.marks)}</pre>"
        elif step.kind == "missing":
            head, body = f'<b class="tl-bad">{e(step.text)}</b>', ""
        elif step.kind == "gap":
            head, body = f'<span class="tl-dim">{e(step.text)}</span>', ""
        else:
            head, body = "", f"<pre>{_marked_html(step.text, step.marks)}</pre>"
        parts.append(
            f'<div class="tl-step tl-{step.kind}{focus}"><div class="tl-label">{e(label)}</div>'
            f'<div class="tl-body">{head}{body}</div></div>'
        )
    parts.append("</div>")
    return "\n".join(parts)


TIMELINE_CSS = """
.timeline{border-left:3px solid #cbd5e1;margin:.5em 0 1.5em;padding-left:.8em}
.tl-title{font-weight:600;margin-bottom:.4em}
.tl-note{color:#92400e;background:#fef3c7;padding:.2em .5em;margin:.3em 0}
.tl-step{display:flex;gap:.8em;margin:.35em 0}
.tl-label{flex:0 0 6.5em;color:#475569;font-size:.85em;text-align:right;padding-top:.15em}
.tl-body{flex:1;min-width:0}
.tl-body pre{white-space:pre-wrap;word-break:break-word;margin:.2em 0;padding:.4em .6em;
  background:#f8fafc;border:1px solid #e2e8f0;border-radius:4px;font-size:.85em}
.tl-request .tl-body pre{background:#eff6ff}
.tl-focus .tl-body{outline:2px solid #dc2626;outline-offset:2px;border-radius:4px}
.tl-dim{color:#64748b;font-size:.85em}
.tl-bad{color:#b91c1c}
.tl-badge{display:inline-block;font-size:.75em;padding:0 .45em;margin-left:.3em;border-radius:9px;
  background:#e2e8f0;color:#1e293b}
.tl-critical{background:#dc2626;color:#fff}.tl-warning{background:#f59e0b;color:#1f2937}
.tl-write{background:#7c3aed;color:#fff}
mark{background:#fde047;color:#111;padding:0 .1em}
"""


# ----------------------------------------------------------------------------- Markdown
def _fence(text: str) -> str:
    """``text`` in a fenced block whose fence no line of it can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def _code(text: str) -> str:
    """Inline code that any backticks inside cannot break out of."""
    text = " ".join(str(text).split())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    tick = "`" * (longest + 1)
    return f"{tick} {text} {tick}"


def to_markdown(timeline: Timeline) -> str:
    """The timeline as Markdown: transcript text only inside code, marks named beside it."""
    lines = [f"**Conversation** {_code(timeline.conversation_id)} in {_code(timeline.source)}", ""]
    if timeline.note:
        lines += [f"> {_code(timeline.note)}", ""]
    for step in timeline.steps:
        row = step.row or {}
        label = LABELS[step.kind]
        if step.kind == "call" and row:
            focus = " ◀ this finding" if row.get("tool_call_id") == timeline.focus else ""
            extra = f", {row['finding']} ({row['severity']})" if row.get("finding") else ""
            lines.append(
                f"- **{label}** {_code(row['tool_name'])} {_code(row['tool_call_id'])}: "
                f"{row['outcome']}, impact {row.get('impact') or 'unknown'}{extra}{focus}"
            )
            body = _clipped(step.text, [], ARGUMENT_CHARS)[0]
        elif step.kind == "result" and row:
            lines.append(f"- **{label}** {row['outcome']} ({row['outcome_rule']})")
            body, kept = _clipped(step.text, step.marks, TEXT_CHARS)
            if kept:
                lines.append(f"  - evidence: {_code(body[kept[0][0] : kept[0][1]])}")
        elif step.kind in ("missing", "gap"):
            lines.append(f"- **{label}** {step.text}")
            continue
        else:
            lines.append(f"- **{label}**")
            body, kept = _clipped(step.text, step.marks, TEXT_CHARS)
            for start, end in kept:
                lines.append(f"  - claim: {_code(body[start:end])}")
        lines += ["", *("  " + line for line in _fence(body).split("\n")), ""]
    return "\n".join(lines)
