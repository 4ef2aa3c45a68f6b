"""Placeholder while this reader is being written (recognises nothing yet)."""

from __future__ import annotations

from pathlib import Path

from auditor.readers.base import ReadResult, Sample

NAME = "swe_agent"
DESCRIPTION = "(being written)"


def sniff(sample: Sample) -> int:
    return 0


def read(path: Path, source: str) -> ReadResult:
    return ReadResult()
