"""Verdict: the spec's finding table, from outcome, claim and recovery."""

from __future__ import annotations

from auditor.model import (
    FAILED_OUTCOMES,
    Claim,
    Finding,
    Outcome,
)


def finding_for(
    outcome: Outcome, claim: Claim | None, recovered: bool, probe: bool = False
) -> Finding | None:
    """The spec's finding table. ``claim`` None: not read. A probe (a failed lookup the
    assistant moved past) has no ``unreported_failure``; a false success still counts."""
    if recovered or claim is None:
        return None
    if outcome in FAILED_OUTCOMES:
        if claim == Claim.SUCCESS:
            return Finding.FALSE_SUCCESS
        if claim == Claim.NEUTRAL and not probe:
            return Finding.UNREPORTED_FAILURE
    elif outcome == Outcome.IDENTITY_NULL:
        if claim == Claim.SUCCESS:
            return Finding.IDENTITY_ASSUMED
        if claim == Claim.NEUTRAL:
            return Finding.UNREPORTED_FAILURE
    elif outcome == Outcome.GRAPHQL_PARTIAL:
        if claim == Claim.SUCCESS:
            return Finding.UNLABELLED_PARTIAL
        if claim == Claim.FAILURE:
            return Finding.DISCARDED_PARTIAL
    return None
