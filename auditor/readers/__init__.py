"""Readers, one module per transcript format, and detection of the format of each file.

Every reader module satisfies the ``Reader`` protocol (``protocol.py``): ``NAME``,
``DESCRIPTION``, ``read(path, source) -> ReadResult``, and a way to recognise its format from the
start of a file: ``sniff(sample) -> int`` (how strongly a ``Sample`` looks like its format, 0 = not
at all), or for one-record-per-line formats ``looks_like(record) -> int``, summed over the first
records. A module declares the one it lacks as None; ``sniff`` is used when it has both. The
highest score wins. A reader of one-conversation-per-line files sets ``READS_SPANS = True`` (the
others False) and takes ``read(path, source, span)``: large files are then read in parts, by
several workers.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeGuard

from auditor.model import Reject
from auditor.readers import (
    aider,
    anthropic,
    claude_code,
    codex_exec,
    codex_rollout,
    codex_tui,
    documents,
    gemini_cli,
    inspect_ai,
    labels,
    langfuse,
    log_lines,
    mcp_wire,
    openai_chat,
    openai_responses,
    openclaw,
    openhands,
    openhands_sdk,
    otel_genai,
    runner_steps,
    swe_agent,
    tau2_bench,
    tau_bench,
)
from auditor.readers.lines import Span
from auditor.readers.protocol import Reader, SpanReader
from auditor.readers.result import ReadResult, excerpt
from auditor.readers.sampling import Sample, take_sample
from auditor.readers.streams import GZIP_MAGIC, STREAM_ERRORS, ZSTD_MAGIC

__all__ = [
    "MODULES",
    "READERS",
    "ReadResult",
    "Reader",
    "Sample",
    "Span",
    "SpanReader",
    "detect",
    "detect_sample",
    "read_file",
    "reads_spans",
    "score",
    "span_reader",
]

# Order matters only for ties: the more specific format first.
MODULES: tuple[Reader, ...] = (
    labels,
    claude_code,
    openclaw,
    codex_rollout,
    codex_tui,
    codex_exec,
    runner_steps,
    mcp_wire,
    otel_genai,
    openai_responses,
    inspect_ai,
    gemini_cli,
    tau_bench,
    tau2_bench,
    langfuse,
    swe_agent,
    openhands,
    openhands_sdk,
    log_lines,
    aider,
    openai_chat,
    anthropic,
    documents,
)
READERS: dict[str, Reader] = {module.NAME: module for module in MODULES}


def score(reader: Reader, sample: Sample) -> int:
    """How strongly a sample looks like the reader's format; a reader that cannot even look at
    the sample (JSON nested too deeply, say) is not the reader for it."""
    try:
        if reader.sniff is not None:
            return int(reader.sniff(sample))
        if reader.looks_like is not None:
            looks_like = reader.looks_like
            return sum(looks_like(record) for record in sample.records if record is not None)
        return 0
    except (RecursionError, ValueError, TypeError, KeyError, AttributeError, IndexError):
        return 0


def detect(path: Path) -> Reader | None:
    """The reader whose format the start of a file matches best, or None."""
    return detect_sample(take_sample(path))


def detect_sample(sample: Sample) -> Reader | None:
    """The reader whose format a file's sample matches best, or None."""
    scores = {name: score(module, sample) for name, module in READERS.items()}
    best = max(scores, key=lambda name: scores[name])
    return READERS[best] if scores[best] > 0 else None


def reads_spans(reader: Reader | None) -> TypeGuard[SpanReader]:
    """Can this reader read a file in parts (one conversation per line)?"""
    return reader is not None and reader.READS_SPANS


def span_reader(path: Path, format_name: str | None = None) -> str | None:
    """The name of the reader that can read this file in spans (uncompressed, one
    conversation per line, not one JSON document over many lines), or None."""
    with open(path, "rb") as handle:
        if handle.read(4).startswith((GZIP_MAGIC, ZSTD_MAGIC)):
            return None
    sample = take_sample(path)
    module = READERS[format_name] if format_name else detect_sample(sample)
    if not reads_spans(module) or sample.looks_like_json_document():
        return None
    assert module is not None
    return module.NAME


def read_file(
    path: Path, source: str, format_name: str | None = None, span: Span | None = None
) -> ReadResult:
    """Read one file (or one ``span`` of it) with the named reader, or the detected one; never
    raises: a file that breaks a reader is one reject, and the scan goes on with the next."""
    with _collector_paused():
        return _read(path, source, format_name, span)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The garbage collector held off while a file is read: a reader builds a tree of
    decoded records and conversations, which holds no cycles for it to find, and its passes
    over that growing tree cost up to a quarter of the reading (the objects are still freed as
    soon as nothing holds them)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _read(path: Path, source: str, format_name: str | None, span: Span | None) -> ReadResult:
    try:
        module = READERS[format_name] if format_name else detect(path)
        if span is not None and module is not None and reads_spans(module):
            return module.read(path, source, span)
        if module is None:
            sample = take_sample(path)
            first = sample.lines[0] if sample.lines else b"(empty file)"
            reason = "empty file" if not sample.head.strip() else "no known transcript format"
            return ReadResult(
                rejects=[Reject(source=source, line=1, reason=reason, excerpt=excerpt(first))]
            )
        return module.read(path, source)
    except (OSError, *STREAM_ERRORS) as exc:
        return ReadResult(
            rejects=[Reject(source=source, line=0, reason=f"cannot read file: {exc}")]
        )
    except RecursionError:
        reason = "JSON nested too deeply to read"
        return ReadResult(rejects=[Reject(source=source, line=0, reason=reason)])
    except Exception as exc:
        reason = f"reader failed: {type(exc).__name__}: {exc}"
        return ReadResult(rejects=[Reject(source=source, line=0, reason=reason)])
