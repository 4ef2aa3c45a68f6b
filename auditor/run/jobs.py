"""Jobs: the units of work of a scan, a file or a span of a large JSONL file."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from auditor.readers import Span, span_reader

PARALLEL_MIN_BYTES = 8 << 20  # below this, starting processes costs more than it saves


SPAN_BYTES = 8 << 20  # large JSONL files are read in parts of about this size


SPANS_PER_CORE = 8  # a scan on several cores cuts its input into about this many spans a core
SHARED_SPAN_MIN = 1 << 20  # but no finer than this: each span costs a part and a round trip


def shared_span(size: int, jobs: int, span_bytes: int) -> int:
    """The span size of a scan of ``size`` bytes on ``jobs`` cores: about SPANS_PER_CORE spans
    a core, so that the last spans, taken by whichever core is free, end close together (8
    files of 6 MB on two cores left one core idle for a file's time); never larger than
    ``span_bytes``, nor smaller than SHARED_SPAN_MIN."""
    return min(span_bytes, max(SHARED_SPAN_MIN, size // (max(jobs, 1) * SPANS_PER_CORE)))


@dataclass(frozen=True)
class Job:
    """One piece of work for a worker: a file, or one span of a large one. ``path`` is None
    for a file named by a URL (the ``source``), which the worker fetches."""

    path: Path | None
    source: str
    input_format: str | None = None
    span: Span | None = None


def plan(
    inputs: Iterable[tuple[Path | None, str]],
    input_format: str | None,
    span_bytes: int,
    preset: Mapping[str, Job] | None = None,
    *,
    lines: bool = True,
) -> Iterator[Job]:
    """Jobs for the inputs, as they come: large plain files of a one-conversation-per-line
    format are cut at line boundaries into spans of about ``span_bytes``; other files are one
    job each. A source in ``preset`` gets that job (an incremental scan reads only the appended
    part of a file). Without ``lines`` the spans' first lines are not counted (0): enough to
    count the jobs and their bytes without reading every large file."""
    for path, source in inputs:
        if preset and source in preset:
            yield preset[source]
            continue
        if path is None:
            yield Job(path, source, input_format)
            continue
        try:
            reader = span_reader(path, input_format) if path.stat().st_size > span_bytes else None
        except Exception:  # the worker reports what is wrong with this file
            reader = None
        if reader is None:
            yield Job(path, source, input_format)
        else:
            for span in cut_spans(path, span_bytes, lines):
                yield Job(path, source, reader, span)


def cut_spans(path: Path, span_bytes: int, lines: bool = True) -> Iterator[Span]:
    """Spans of at most about ``span_bytes``, of equal size (a 6.5 MB file cut at 3.1 MB gave
    a last span of 0.3 MB: a job and a part for little), that start and end at line
    boundaries, with the number of the line each starts at (counted, so that rows and rejects
    keep their real line numbers; 0 without ``lines``)."""
    size = path.stat().st_size
    step = -(-size // max(1, -(-size // span_bytes)))  # the size over as many spans as needed
    start, line = 0, 1
    with open(path, "rb") as handle:
        while start < size:
            handle.seek(min(start + step, size))
            if handle.tell() < size:
                handle.readline()  # on to the end of the line the cut fell in
            end = handle.tell()
            yield Span(start, end, line if lines else 0)
            if lines:
                handle.seek(start)
                remaining = end - start
                while remaining:
                    block = handle.read(min(remaining, 8 << 20))
                    line += block.count(b"\n")
                    remaining -= len(block)
            start = end
