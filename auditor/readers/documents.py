"""Files that travel with transcripts but are not transcripts: licences, READMEs, notes.

Recognised by name so that a scan of a folder accounts for them (skipped, with the reason
counted in the summary) instead of reporting them as unreadable.
"""

from __future__ import annotations

import re
from pathlib import Path

from auditor.readers.result import ReadResult
from auditor.readers.sampling import Sample

NAME = "documents"
DESCRIPTION = "licences, READMEs and other documentation beside transcripts (skipped by scan)"
READS_SPANS = False
looks_like = None  # recognised from the whole sample, by sniff

_NAMES = re.compile(
    r"^(?:licen[cs]e|copying|notice|authors|readme|changelog|contributing)(?:[._-].*)?$", re.I
)
# A corpus's own description of its files (``SOURCE-manifest.json``): a transcript with such a
# name still goes to its reader, whose score is higher.
_MANIFEST = re.compile(r"(?:^|[._-])manifest\.json$", re.I)
_SUFFIXES = {".md", ".rst", ".adoc", ".pdf", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".html"}


def sniff(sample: Sample) -> int:
    name = sample.name
    if _NAMES.match(name) or _MANIFEST.search(name) or Path(name).suffix.lower() in _SUFFIXES:
        return 1
    return 0


def read(path: Path, source: str) -> ReadResult:
    return ReadResult(skipped="not a transcript (documentation or licence)")
