"""Readers, one module per transcript format, and detection of the format of each file.

A reader module has ``NAME``, ``DESCRIPTION``, ``read(path, source) -> ReadResult``, and a way to
recognise its format from the start of a file: ``sniff(sample) -> int`` (how strongly a
``Sample`` looks like its format, 0 = not at all), or for one-record-per-line formats
``looks_like(record) -> int``, summed over the first records. The highest score wins. A reader
of one-conversation-per-line files sets ``READS_SPANS = True`` and takes ``read(path, source,
span)``: large files are then read in parts, by several workers.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from auditor.model import Reject
from auditor.readers import (
    anthropic,
    claude_code,
    documents,
    labels,
    log_lines,
    mcp_wire,
    openai_chat,
    openai_responses,
    otel_genai,
    runner_steps,
    swe_agent,
    tau2_bench,
    tau_bench,
)
from auditor.readers.base import (
    GZIP_MAGIC,
    STREAM_ERRORS,
    ZSTD_MAGIC,
    ReadResult,
    Sample,
    Span,
    excerpt,
    take_sample,
)

# Order matters only for ties: the more specific format first.
MODULES: tuple[ModuleType, ...] = (
    labels,
    claude_code,
    runner_steps,
    mcp_wire,
    otel_genai,
    openai_responses,
    tau_bench,
    tau2_bench,
    swe_agent,
    log_lines,
    openai_chat,
    anthropic,
    documents,
)
READERS: dict[str, ModuleType] = {module.NAME: module for module in MODULES}


def score(module: ModuleType, sample: Sample) -> int:
    """How strongly a sample looks like the module's format; a reader that cannot even look at
    the sample (JSON nested too deeply, say) is not the reader for it."""
    try:
        if hasattr(module, "sniff"):
            return int(module.sniff(sample))
        return sum(module.looks_like(record) for record in sample.records if record is not None)
    except (RecursionError, ValueError, TypeError, KeyError, AttributeError, IndexError):
        return 0


def detect(path: Path) -> ModuleType | None:
    """The reader whose format the start of a file matches best, or None."""
    return detect_sample(take_sample(path))


def detect_sample(sample: Sample) -> ModuleType | None:
    """The reader whose format a file's sample matches best, or None."""
    scores = {name: score(module, sample) for name, module in READERS.items()}
    best = max(scores, key=lambda name: scores[name])
    return READERS[best] if scores[best] > 0 else None


def reads_spans(module: ModuleType | None) -> bool:
    """Can this reader read a file in parts (one conversation per line)?"""
    return bool(getattr(module, "READS_SPANS", False))


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
