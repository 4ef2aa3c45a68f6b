"""Identity: a reply that acts as if it knows who the person is.

After an identity tool (``get_me``, ``whoami``) returned nobody, a reply that greets the person
by name, states their email or handle, or acts on their behalf claims an identity it does not
have: the ``identity`` cues of a pack say how a language does that. The identity reading is
kept apart from failure readings, so that a sentence can both greet a made-up name and report
another call's failure.
"""

from __future__ import annotations

from auditor.audit.claims.calls import CallView
from auditor.rules_loader import CuePack


def speaks_of_identity(text: str, pack: CuePack) -> bool:
    """Does the sentence speak of who the person is (a name, an email, a handle, a role)?"""
    return any(cue.regex.search(text) for cue in pack.of_kind("identity", text))


def claims_identity(call: CallView, speaks: bool) -> bool:
    """A sentence that speaks of who the person is claims the identity an identity call was to
    fetch; about any other call it claims nothing of the kind."""
    return call.identity_tool and speaks
