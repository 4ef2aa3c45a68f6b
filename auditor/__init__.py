"""Offline auditor of LLM tool-call transcripts.

It replays every stored tool result through outcome rules and flags the replies that told a
person something worked when it had not. ``scan`` is the entry point for notebooks and scripts.
"""

from __future__ import annotations

import importlib
from typing import Any

from auditor.model import Claim, Finding, Outcome, Severity

# Imported when first asked for: a worker process of a scan imports ``auditor.run.worker``,
# and with it this package, and need not import the whole pipeline and its outputs too.
_LAZY = {
    "RuleFileError": "auditor.rules_loader",
    "ScanResult": "auditor.output.result",
    "load_rules": "auditor.rules_loader",
    "scan": "auditor.run.pipeline",
}

__all__ = [
    "Claim",
    "Finding",
    "Outcome",
    "RuleFileError",
    "ScanResult",
    "Severity",
    "load_rules",
    "scan",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'auditor' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value
