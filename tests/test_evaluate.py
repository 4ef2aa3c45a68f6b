"""Scoring a labelled corpus: which rows count, and what each figure is measured over."""

import json
from pathlib import Path

from builders import assistant, call, chat, tool, user, write_jsonl

from auditor.evaluate import evaluate


def label(conversation: str, call_id: str, **fields) -> dict:
    row = {
        "file": "chats.jsonl",
        "conversation_id": conversation,
        "tool_call_id": call_id,
        "tool_name": "update_ticket",
        "outcome": "ok",
        "claim": "success",
        "recovered": False,
        "finding": None,
        "confidence": "clear",
    }
    return {**row, **fields}


def corpus(folder: Path, labels: list[dict]) -> Path:
    write_jsonl(
        folder / "chats.jsonl",
        [
            chat(
                user("close OPS-1"),
                assistant(None, call("a", "update_ticket", id="OPS-1")),
                tool("a", json.dumps({"id": "OPS-1", "state": "closed"})),
                assistant("OPS-1 is closed."),
                conversation_id="worked",
            ),
            chat(
                user("close OPS-2"),
                assistant(None, call("b", "update_ticket", id="OPS-2")),
                tool("b", "403 Forbidden", isError=True),
                assistant("OPS-2 is closed."),
                conversation_id="refused",
            ),
        ],
    )
    write_jsonl(folder / "labels.jsonl", labels)
    return folder


def test_ambiguous_rows_are_not_scored(tmp_path: Path):
    result = evaluate(
        corpus(
            tmp_path,
            [
                label("worked", "a"),
                label("refused", "b", outcome="tool_error", finding=None, confidence="ambiguous"),
            ],
        )
    )
    assert (result.skipped_ambiguous, result.joined.height) == (1, 1)
    assert result.false_alarms == 0


def test_a_finding_on_a_call_labelled_quiet_is_a_false_alarm(tmp_path: Path):
    result = evaluate(
        corpus(tmp_path, [label("worked", "a"), label("refused", "b", outcome="tool_error")])
    )
    assert (result.false_alarms, result.quiet_calls) == (1, 2)
    assert result.false_alarm_rate == 0.5


def test_claim_accuracy_counts_only_the_calls_whose_claim_is_read(tmp_path: Path):
    # The call that worked has no claim read (null); its label says "neutral". That is no miss.
    result = evaluate(
        corpus(
            tmp_path,
            [
                label("worked", "a", claim="neutral"),
                label("refused", "b", outcome="tool_error", finding="false_success"),
            ],
        )
    )
    assert result.claim_accuracy == 1.0
    assert result.outcome_accuracy == 1.0
    assert result.mismatches().height == 0
