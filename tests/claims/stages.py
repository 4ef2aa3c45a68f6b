"""Builders for testing one stage of the claim reader at a time: a cue pack, and the calls of a
turn as the claim reader sees them."""

from __future__ import annotations

from typing import Any

from builders import rules

from auditor.audit.claims.attribution import attribute, set_reply_windows
from auditor.audit.claims.calls import CallView, prepare_call
from auditor.audit.claims.units import Unit, split_units
from auditor.audit.tools import call_actions
from auditor.rules_loader import CuePack


def pack(language: str = "en") -> CuePack:
    return rules().packs[language]


def lookup(index: int, name: str, error: str = "", **arguments: Any) -> CallView:
    """A call that was to fetch information; it failed when ``error`` is given."""
    return _view(index, name, arguments, error, reads=True, result=None)


def action(
    index: int, name: str, error: str = "", result: Any = None, **arguments: Any
) -> CallView:
    """A call that was to change something; it failed when ``error`` is given."""
    return _view(index, name, arguments, error, reads=False, result=result)


def _view(
    index: int, name: str, arguments: dict, error: str, *, reads: bool, result: Any
) -> CallView:
    view = CallView(
        index=index,
        name=name,
        arguments=arguments,
        server=None,
        identity_tool=name in ("get_me", "whoami"),
        ready_at=index + 1,
        position=index,
        succeeded=not error,
        failed=bool(error),
        reads=reads,
        error_text=error,
        result_values=[result] if result is not None else [],
    )
    if not reads:
        view.actions = call_actions(name, arguments, None, rules().actions)
    prepare_call(view, pack().stopwords)
    return view


def reply(text: str, calls: list[CallView], language: str = "en") -> list[Unit]:
    """The units of a reply written after every call, tied to the calls they speak of."""
    position = 100
    units = split_units(text, position, 0, pack(language))
    set_reply_windows(calls, [position])
    attribute(units, calls, pack(language))
    return units


def unit_saying(units: list[Unit], words: str) -> Unit:
    return next(u for u in units if words in u.text)
