"""Fault injection for tests: what a nightly job meets (a kill, a full disk), at named points.

``AUDITOR_FAULT=<point>`` makes the process that reaches that point die at once by SIGKILL,
as an OOM killer or a deploy kills it; with ``AUDITOR_FAULT_ERRNO=ENOSPC`` (or another errno
name) it raises that ``OSError`` there instead, as a full disk or an unwritable folder would.
Points name a stage and a moment: ``worker:part-written`` (in a worker process, or in the one
process of a scan on one core), ``scan:part-written`` (in the scan's own process, auditing
beside its workers), ``parts:merged``, ``parts:repeats-left-out``, ``carry:part-written``,
``state:part-written``, ``state:tmp-written``, ``state:replaced``, ``output:probe``,
``output:written:<file>``, ``output:renamed:<file>`` (grep ``fault(``). Unset, a point costs
one look-up in the environment.
"""

from __future__ import annotations

import errno
import os
import signal

VARIABLE = "AUDITOR_FAULT"
ERRNO_VARIABLE = "AUDITOR_FAULT_ERRNO"


def fault(point: str) -> None:
    """Die (or raise the configured ``OSError``) here when ``AUDITOR_FAULT`` names ``point``."""
    if os.environ.get(VARIABLE) != point:
        return
    name = os.environ.get(ERRNO_VARIABLE)
    if name:
        number = getattr(errno, name)
        raise OSError(number, os.strerror(number))
    os.kill(os.getpid(), signal.SIGKILL)
