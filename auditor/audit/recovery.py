"""Recovery: a failed call whose purpose a later (or parallel) call achieved."""

from __future__ import annotations

import re
from typing import Any

from auditor.audit.pairing import CallSlot
from auditor.audit.words import words
from auditor.model import (
    FAILED_OUTCOMES,
    Outcome,
)
from auditor.rules_loader import RuleSet

_HELP = re.compile(r"(?:^|\s)(?:--help|-h|help)(?:\s|$)")


COMPLAINT_CHARS = 2000  # the part of a failed result that says what was wrong


SAME_COMMAND_SHARE = 0.5  # share of its words a rerun keeps, changing only what the error named


SAME_COMMAND_CLOSE = 0.7  # share of its words a rerun keeps to be the same command whatever changed


def recover(slots: list[CallSlot], rules: RuleSet) -> None:
    """Mark failed calls that a later (or parallel) call of the same tool, same purpose, fixed."""
    general = rules.outcomes.general_tools_re
    noise = rules.outcomes.command_noise_re
    for slot in slots:
        if slot.outcome not in FAILED_OUTCOMES and slot.outcome != Outcome.IDENTITY_NULL:
            continue
        complaint = _complaint(slot)
        for other in slots:
            if (
                other is slot
                or other.call.name != slot.call.name
                or other.turn != slot.turn
                or other.outcome != Outcome.OK
                or not (other.position > slot.position or other.group == slot.group)
            ):
                continue
            if same_purpose(
                _without_noise(slot.call.arguments, noise),
                _without_noise(other.call.arguments, noise),
                complaint,
                general=bool(general.search(slot.call.name)),
            ):
                slot.recovered_by = other.call.id
                break


def _without_noise(arguments: Any, noise: Any) -> Any:
    """Arguments with the parts of a command that only trim its output (``| tail -20``) removed,
    and the free-text ``description`` some hosts add beside a command."""
    if isinstance(arguments, str):
        return noise.sub("", arguments).strip()
    if isinstance(arguments, dict):
        return {
            key: _without_noise(value, noise)
            for key, value in arguments.items()
            if key not in ("description", "timeout")
        }
    return arguments


def _complaint(slot: CallSlot) -> str:
    """What the failed result said (its start), lower-cased, to find what the error named."""
    pieces = [slot.decision.evidence if slot.decision else ""]
    if slot.payload is not None:
        pieces.extend(t.text for t in slot.payload.texts)
    if slot.result is not None and slot.result.rpc_error:
        pieces.append(str(slot.result.rpc_error))
    return " ".join(pieces)[:COMPLAINT_CHARS].lower()


def same_purpose(before: Any, after: Any, complaint: str, *, general: bool) -> bool:
    """Same arguments, or the same with only the values the error complained about corrected.

    For a tool that runs arbitrary commands (``general``), only the same command counts: run
    again as it was, or with the words the error named corrected (``_corrected_text``).
    """
    if before == after:
        return True
    if not isinstance(before, dict) or not isinstance(after, dict):
        return _corrected_text(before, after, complaint) if general else False
    for key in set(before) | set(after):
        old, new = before.get(key), after.get(key)
        if (
            old == new
            or (old is None and isinstance(new, bool))
            or (new is None and isinstance(old, bool))
        ):
            continue  # the same, or an output option (a flag) switched on or off
        if isinstance(old, str) and isinstance(new, str) and _corrected_text(old, new, complaint):
            continue
        if (
            isinstance(old, list)
            and isinstance(new, list)
            and _named_items_dropped(old, new, complaint)
        ):
            continue
        if not general and (_named_key(key, complaint) or _quoted_value(old, complaint)):
            continue
        return False
    return True


def _named_items_dropped(old: list[Any], new: list[Any], complaint: str) -> bool:
    """A list argument that only lost the items the error named (a flight the error said was
    full), keeping the rest."""
    dropped = [item for item in old if item not in new]
    added = [item for item in new if item not in old]
    if not dropped or added:
        return False
    return all(
        any(any(ch.isdigit() for ch in word) and word in complaint for word in words(str(item)))
        for item in dropped
    )


def _named_key(key: str, complaint: str) -> bool:
    """The error names this argument ("payment" for payment_methods)."""
    lowered = key.lower()
    return lowered in complaint or any(
        len(word) >= 4 and word in complaint for word in re.split(r"[_\W]+", lowered)
    )


def _quoted_value(value: Any, complaint: str) -> bool:
    """The error names this value: as a whole, or by its words ("gift card" for gift_card_5)."""
    if value is None or isinstance(value, (dict, list)):
        return False
    text = str(value).lower()
    if text in complaint:
        return True
    return any(len(w) >= 4 and w.isalpha() and w in complaint for w in re.split(r"[_\W]+", text))


def _corrected_text(before: Any, after: Any, complaint: str) -> bool:
    """A command or query run again: nearly all of its words kept, or most of them with the
    words it dropped named by the error (``orders_2023`` after ``relation "orders_2023" does not
    exist``)."""
    if not isinstance(before, str) or not isinstance(after, str):
        return False
    if _HELP.search(after) and not _HELP.search(before):
        return False  # looking up how a command is used is not running it
    if before.strip() and before.strip() in after:
        return True  # the same command, run again after others (``git add … && <it>``)
    if len(after.split()) >= 2 and after.strip() in before:
        return True  # the same command without what ran before it (``sleep 60 && <it>``)
    old, new = set(words(before)), set(words(after))
    share = len(old & new) / len(old | new) if old else 0.0
    if share >= SAME_COMMAND_CLOSE:
        return True  # a corrected query or a rerun with a changed flag: nearly all of it kept
    return share >= SAME_COMMAND_SHARE and all(word in complaint for word in old - new)
