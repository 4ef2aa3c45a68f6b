"""Offline auditor of LLM tool-call transcripts.

It replays every stored tool result through outcome rules and flags the replies that told a
person something worked when it had not. ``scan`` is the entry point for notebooks and scripts.
"""

from auditor.model import Claim, Finding, Outcome, Severity
from auditor.output.result import ScanResult
from auditor.rules_loader import RuleFileError, load_rules
from auditor.run.pipeline import scan

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
