"""tau-bench runs (sierra-research/tau-bench): results files and few-shot display files.

Results file (``historical_trajectories/*.json``, what ``run.py`` writes): one JSON array of runs
``{"task_id", "trial", "reward", "info", "traj"}``; ``traj`` holds OpenAI Chat Completions
messages (``tool_calls``, ``role: "tool"``), read with the chat reader's ``parse_messages``. The
format has no failure flag: a failed tool answers with text (``Error: ...``), which the outcome
rules read. Tool call ids are reused inside one run and kept as given (a result pairs with the
nearest open call with its id). Messages of the simulated user are a person's (they start turns).

- conversation id: ``<file name>#task-<task_id>-trial-<trial>`` (runs carry no id of their own),
  ``<file name>#<index in the array>`` when ``task_id`` is missing;
- ``line``: the line where the run's element of the array starts (the array is decoded element
  by element, so a cut-off file still yields every complete run before the break);
- a result's ``pointer``: ``/<run index>/traj/<message index>``, its content under ``content``.

Few-shot files (``few_shot_data/*.jsonl``): one ``{"messages_display": "user: ...\\nassistant:
None\\ntool: ..."}`` per line. That is display text: tool calls appear as ``assistant: None``
or not at all, with no tool name, no arguments and no call id, and message boundaries are only
line prefixes that message text can contain too. There is nothing to pair or attribute, so each
line is passed over with that reason.

``array_records`` and ``chat_messages`` are shared with the tau2-bench and SWE-agent readers.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from auditor.model import Conversation, Reject
from auditor.readers.conversations import is_scalar
from auditor.readers.json_stream import array_records
from auditor.readers.lines import json_lines
from auditor.readers.openai_chat import chat_messages, parse_messages
from auditor.readers.protocol import SURE
from auditor.readers.result import ReadResult, excerpt
from auditor.readers.sampling import Sample, take_sample
from auditor.readers.streams import plain_name

NAME = "tau_bench"
DESCRIPTION = (
    "tau-bench results (JSON array of runs with traj: chat messages); "
    "few-shot messages_display files are passed over"
)
READS_SPANS = False
looks_like = None  # recognised from the whole sample, by sniff

FEW_SHOT_REASON = (
    "tau-bench few-shot display text (messages_display): flattened messages without tool "
    "names, arguments or call ids, nothing to audit"
)

_TRAJ_KEY = re.compile(r'"traj"\s*:\s*\[')


# ----------------------------------------------------------------------------- detection
def sniff(sample: Sample) -> int:
    few_shot = sum(3 for record in sample.records if _is_few_shot(record))
    if few_shot:
        return few_shot
    if not sample.looks_like_json_document():
        return 0
    first = sample.records[0] if sample.records else None
    if first is not None:
        return SURE if _is_runs(first) else 0
    head = sample.text.lstrip("\ufeff \t\r\n")
    if head.startswith("[") and _TRAJ_KEY.search(head) and '"termination_reason"' not in head:
        return SURE
    return 0


def _is_few_shot(record: Any) -> bool:
    return (
        isinstance(record, dict)
        and isinstance(record.get("messages_display"), str)
        and "messages" not in record
    )


def _is_runs(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and isinstance(value[0], dict)
        and isinstance(value[0].get("traj"), list)
    )


# ----------------------------------------------------------------------------- reading
def read(path: Path, source: str) -> ReadResult:
    sample = take_sample(path)
    if any(_is_few_shot(record) for record in sample.records):
        return _read_few_shot(path, source)
    result = ReadResult()
    document = array_records(path, source, result.rejects)
    if document.pointer is None:
        if not document.malformed:
            result.rejects.append(
                Reject(
                    source=source,
                    line=1,
                    reason="not a tau-bench results file (expected a JSON array of runs)",
                    excerpt=excerpt(sample.head[:200]),
                )
            )
        return result
    name = plain_name(Path(source))
    for index, line, run in document.records:
        where = f"{document.pointer}/{index}"
        if not isinstance(run, dict) or not isinstance(run.get("traj"), list):
            result.rejects.append(
                Reject(
                    source=source,
                    line=line,
                    reason=f"run without a traj list at {where or '/'}",
                    excerpt=excerpt(run),
                )
            )
            continue
        conversation = Conversation(
            id=_run_id(run, name, index),
            source=source,
            format=NAME,
            line=line,
            metadata={
                key: run[key] for key in ("task_id", "trial", "reward") if is_scalar(run.get(key))
            },
        )
        messages = chat_messages(run["traj"], f"{where}/traj", source, line, result.rejects)
        parse_messages(messages, conversation, line, f"{where}/traj")
        result.conversations.append(conversation)
    return result


def _read_few_shot(path: Path, source: str) -> ReadResult:
    result = ReadResult()
    for number, record in json_lines(path, source, result.rejects):
        if _is_few_shot(record):
            result.pass_over(FEW_SHOT_REASON)
        else:
            result.rejects.append(
                Reject(
                    source=source,
                    line=number,
                    reason="not a tau-bench few-shot record (no messages_display text)",
                    excerpt=excerpt(record),
                )
            )
    return result


def _run_id(run: dict[str, Any], name: str, index: int) -> str:
    task, trial = run.get("task_id"), run.get("trial")
    if is_scalar(task) and str(task):
        return f"{name}#task-{task}" + (f"-trial-{trial}" if is_scalar(trial) else "")
    return f"{name}#{index}"
