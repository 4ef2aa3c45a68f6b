"""The exit statuses of ``auditor scan``, defined once, and how a run's summary maps to one."""

from __future__ import annotations

from typing import Any

# 0  no finding at or above the --fail-on threshold, all input read
# 1  at least one unsuppressed finding at or above the threshold (with --fail-on-new: a new
#    finding or a new signature)
# 2  the scan did not start: bad options, a wrong rule, suppressions or settings file, an
#    unknown input format name, a baseline folder without a scan
# 3  no finding at or above the threshold, but some input could not be read (rejects.jsonl)
# 4  the run failed part way (an internal error)
EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_PARTLY_UNREADABLE, EXIT_INTERNAL = 0, 1, 2, 3, 4


LEVELS = {"critical": ("critical",), "warning": ("critical", "warning"), "never": ()}


def exit_status(summary: dict[str, Any], fail_on: str, only_new: bool = False) -> int:
    """The documented exit status of a scan (see the README's table).

    Suppressed findings never count. With ``only_new``, only new findings and new signatures
    at or above ``fail_on`` do (without a baseline every finding is new)."""
    levels = LEVELS[fail_on]
    if only_new and "baseline" in summary:
        known = summary["baseline"]
        failing = any(
            known["new_by_severity"][s] or known["new_signatures_by_severity"][s] for s in levels
        )
    else:
        failing = any(summary["severity"][s] for s in levels)
    if failing:
        return EXIT_FINDINGS
    if summary["rejects"]:
        return EXIT_PARTLY_UNREADABLE
    return EXIT_OK
