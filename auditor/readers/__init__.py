"""Readers, one module per transcript format, and detection of the format of each file.

Each reader module has ``NAME``, ``DESCRIPTION``, ``looks_like(record) -> int`` (how strongly one
decoded record looks like its format) and ``read(path, source) -> ReadResult``.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import orjson

from auditor.model import Reject
from auditor.readers import anthropic, claude_code, labels, openai_chat
from auditor.readers.base import ReadResult, excerpt

READERS: dict[str, ModuleType] = {
    module.NAME: module for module in (openai_chat, anthropic, claude_code, labels)
}
SAMPLE_RECORDS = 20
SAMPLE_BYTES = 4 << 20


def detect(path: Path) -> ModuleType | None:
    """The reader whose format the first records of a file match best, or None."""
    scores = dict.fromkeys(READERS, 0)
    seen = 0
    with open(path, "rb") as handle:
        budget = SAMPLE_BYTES
        for raw in handle:
            budget -= len(raw)
            if raw.strip():
                try:
                    record = orjson.loads(raw.lstrip(b"\xef\xbb\xbf"))
                except orjson.JSONDecodeError:
                    record = None
                if record is not None:
                    seen += 1
                    for name, module in READERS.items():
                        scores[name] += module.looks_like(record)
            if seen >= SAMPLE_RECORDS or budget <= 0:
                break
    best = max(scores, key=lambda name: scores[name])
    return READERS[best] if scores[best] > 0 else None


def read_file(path: Path, source: str, format_name: str | None = None) -> ReadResult:
    """Read one file with the named reader, or the detected one; never raises on bad content."""
    try:
        module = READERS[format_name] if format_name else detect(path)
    except OSError as exc:
        return ReadResult(
            rejects=[Reject(source=source, line=0, reason=f"cannot read file: {exc}")]
        )
    if module is None:
        first = b""
        try:
            with open(path, "rb") as handle:
                first = handle.readline()
        except OSError:
            pass
        return ReadResult(
            rejects=[
                Reject(
                    source=source,
                    line=1,
                    reason="no known transcript format",
                    excerpt=excerpt(first),
                )
            ]
        )
    try:
        return module.read(path, source)
    except OSError as exc:
        return ReadResult(
            rejects=[Reject(source=source, line=0, reason=f"cannot read file: {exc}")]
        )
