"""Label files of a labelled corpus (``labels.jsonl``): recognised so a scan of a corpus folder
passes over them quietly instead of reporting every line as unreadable. They hold no
conversations; ``auditor eval`` reads them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from auditor.readers.result import ReadResult

NAME = "labels"
DESCRIPTION = "labels.jsonl of a labelled corpus (skipped by scan, read by eval)"
READS_SPANS = False
sniff = None  # recognised record by record, by looks_like
LABEL_KEYS = frozenset({"file", "conversation_id", "tool_call_id", "outcome", "claim"})


def looks_like(record: Any) -> int:
    return 4 if isinstance(record, dict) and record.keys() >= LABEL_KEYS else 0


def read(path: Path, source: str) -> ReadResult:
    return ReadResult(skipped="labels of a labelled corpus")
