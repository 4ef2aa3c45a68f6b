"""Where a scan's time goes: seconds per stage, added up by the process that does the work.

``auditor bench`` reads them after a one-core scan, so that a user can see what their nightly
run spends its time on. Taking the time costs a few ``perf_counter`` calls per conversation.
"""

from __future__ import annotations

from time import perf_counter

STAGES = ("read", "outcomes", "recovery", "claims", "rows", "write", "tables")
SECONDS: dict[str, float] = dict.fromkeys(STAGES, 0.0)


def lap(stage: str, since: float) -> float:
    """Add the time since ``since`` to ``stage``; returns now, the start of the next lap."""
    now = perf_counter()
    SECONDS[stage] += now - since
    return now
