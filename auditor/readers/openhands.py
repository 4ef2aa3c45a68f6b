"""OpenHands (V0) event streams: evaluation ``output.jsonl`` records and saved trajectories.

Where they are found: an evaluation writes one record per line, ``{instance_id, instruction,
metadata, history, metrics, error, test_result, ...}``, whose ``history`` is the run's event
stream (a record pretty-printed on its own, or an array of records, is read the same way); a
trajectory saved from a session is the bare event array (``[{id, ...}, ...]``). Three
generations of events are read:

- events with ids (2024-06 on): ``{id, timestamp, source, message, action, args, ...}`` and
  ``{id, timestamp, source, message, observation, content, extras, cause, ...}``. An
  observation's ``cause`` is the id of the action it answers; with function calling both carry
  ``tool_call_metadata`` (``function_name``, ``tool_call_id``, the LLM's ``model_response``);
- the 2024-11 resolver's flattened history: the same actions and observations with their ``args``
  / ``extras`` spread into the event and no ``id``, ``source`` or ``cause``: an observation
  answers the action just before it (``exit_code`` at the top);
- the 2024-05 history of ``[action, observation]`` pairs, ``observation: "null"`` when the
  action got none.

What each event becomes:

- a tool call: an action with ``tool_call_metadata``, or one of ``TOOL_ACTIONS`` (``run``,
  ``run_ipython``, ``read``, ``edit``, ``browse``, ``think``, ...). Its name is the function the
  model called (``execute_bash``, ``str_replace_editor``), else the action's (``run`` and
  ``run_ipython`` as the ``execute_bash`` / ``execute_ipython_cell`` tools they were); its
  arguments those the model sent (from ``model_response``), else the action's ``args`` without
  OpenHands' bookkeeping. Its id is the ``tool_call_id``, else ``event-<id>``, else
  ``history-<index>``. The text that came with the call (``thought``, or the model response's
  text for ``think``, whose thought is its argument) is the assistant's, in the same message;
  calls of one model response share ``message_id``;
- a tool result: the observation that answers a call (by ``cause``, by ``tool_call_id``, or, for
  events without ids, by position), content ``content`` with terminal codes removed. Failure
  (``is_error``): ``observation: "error"`` or ``"user_rejected"``, ``extras.metadata.exit_code``
  (``extras.exit_code``, or ``exit_code`` at the top, in older events) other than 0 — read by
  ``shell_exits.command_failed``, so that ``grep`` finding nothing (exit 1) is no failure and
  ``-1`` (the command still running when OpenHands stopped waiting, a server say) no verdict —
  and a browser observation's ``extras.error``. The flag's pointer names the field;
- an ``error`` observation that answers no action (OpenHands could not turn the model's tool
  call into an action: a bad argument, an unknown tool) is a call of its own, ``invalid_tool_call``
  with id ``error-<id>``, that failed: the model asked for something that did not run;
- ``message`` actions: the person's text (``source: user``; without a source, a message that
  does not wait for a response) or the assistant's; ``system`` the system prompt; ``finish`` and
  ``reject`` the assistant's closing text (``thought``, ``final_thought``): they end the run and
  never get an observation, so they are not calls;
- other events carry no conversation (``recall`` and its workspace context,
  ``change_agent_state``, ``agent_state_changed``, ``null`` observations, ...): passed over and
  counted by kind.

An evaluation's ``instruction`` is the person's request when the history holds no user message
before the agent's first step. The OpenHands evaluation's automatic "Please continue working on
the task ..." replies are the host's (``rules/turns.toml``), not the person's.

- conversation id: ``instance_id``, else the record's ``id``, else the resolver's
  ``owner/repo#number``, else ``<file name>:<line>``; a bare event array is one conversation named
  after its file. The same run in two files (an evaluation's output and its critic's copy) has
  the same ids, and its calls are audited once;
- ``line``: the record's line (an event's own line in a bare array);
- pointers start at the record: ``/history/<i>`` (``/history/<i>/1`` for a pair's observation,
  ``/<n>/history/<i>`` in an array of records, ``/<i>`` in a bare event array).

``read_evaluations`` (the files, records and arrays) is shared with ``openhands_sdk``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, Protocol

from auditor.model import Conversation, Message, Reject, TextPart, ToolCall, ToolResult
from auditor.readers.conversations import as_text, decode_arguments
from auditor.readers.json_stream import array_records, load_document
from auditor.readers.lines import Span, json_lines
from auditor.readers.protocol import LIKELY, SURE
from auditor.readers.result import ReadResult, excerpt
from auditor.readers.sampling import Sample
from auditor.readers.shell_exits import command_failed, without_terminal_codes
from auditor.readers.stamps import record_moment
from auditor.readers.streams import STREAM_ERRORS, open_bytes, plain_name

NAME = "openhands"
DESCRIPTION = (
    "OpenHands (V0) event streams: evaluation output.jsonl records (history) and saved "
    "event arrays; 2024 histories paired by position"
)
READS_SPANS = True  # one evaluation record per line: large files are read in parts
looks_like = None  # recognised from the whole sample, by sniff

# Actions that run a tool even without function-calling metadata (older CodeAct agents).
TOOL_ACTIONS = frozenset(
    {
        "run", "run_ipython", "read", "write", "edit", "browse", "browse_interactive", "mcp",
        "call_tool_mcp", "delegate", "think", "task_tracking",
    }
)  # fmt: skip
# The tool an action without function-calling metadata was called through.
ACTION_TOOLS = {"run": "execute_bash", "run_ipython": "execute_ipython_cell"}
CLOSING_ACTIONS = frozenset({"finish", "reject"})
# Observations that answer a tool's action; any other unlinked observation carries no result.
RESULT_OBSERVATIONS = frozenset(TOOL_ACTIONS | {"error", "user_rejected", "success"})
FAILED_OBSERVATIONS = frozenset({"error", "user_rejected"})
# Keys of an action's args that are OpenHands' bookkeeping, not the tool's arguments.
BOOKKEEPING = frozenset(
    {
        "thought", "action", "action_risk", "security_risk", "is_confirmed", "confirmation_state",
        "keep_prompt", "kernel_init_code", "impl_source", "translated_ipython_code", "hidden",
        "blocking", "is_static", "cwd", "is_input", "include_extra", "wait_for_response",
        "image_urls", "images_urls", "llm_metrics", "tool_call_metadata", "timeout",
    }
)  # fmt: skip
INVALID_CALL = "invalid_tool_call"
NO_CONTENT = "openhands event without conversation content: {}"
EMPTY_HISTORY = "openhands evaluation record with an empty history (the run has no events)"
RECORD_SCORE = 5  # per evaluation record in a JSONL sample: above a chat line's at most 3

_EVENT_HEAD = re.compile(r'"(?:action|observation)"\s*:\s*"[a-z_]+"')
_SOURCE_HEAD = re.compile(r'"source"\s*:\s*"(?:agent|user|environment)"')
_HISTORY_HEAD = re.compile(r'"history"\s*:\s*\[')


# ----------------------------------------------------------------------------- detection
def is_event(value: Any) -> bool:
    return isinstance(value, dict) and (
        isinstance(value.get("action"), str) or isinstance(value.get("observation"), str)
    )


def _is_history(history: Any) -> bool:
    if not isinstance(history, list) or not history:
        return False
    return all(
        is_event(item) or (isinstance(item, list) and bool(item) and all(is_event(e) for e in item))
        for item in history[:5]
    )


def is_record(record: Any) -> bool:
    """An evaluation record whose history is OpenHands V0 events."""
    return isinstance(record, dict) and _is_history(record.get("history"))


def sniff(sample: Sample) -> int:
    if not sample.looks_like_json_document():
        return sum(RECORD_SCORE for record in sample.records if is_record(record))
    first = sample.records[0] if sample.records else None
    if first is not None:
        if isinstance(first, list):
            return SURE if first and (is_event(first[0]) or is_record(first[0])) else 0
        return SURE if is_record(first) else 0
    head = sample.text.lstrip("\ufeff \t\r\n")
    if not _EVENT_HEAD.search(head):
        return 0
    if head.startswith("[") and _SOURCE_HEAD.search(head):
        return SURE
    if head.startswith("{") and _HISTORY_HEAD.search(head):
        return LIKELY
    return 0


# ----------------------------------------------------------------------------- records
def conversation_id(record: dict[str, Any], name: str, line: int) -> str:
    for key in ("instance_id", "id"):
        value = record.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
            return str(value)
    issue = record.get("issue")
    if isinstance(issue, dict) and all(k in issue for k in ("owner", "repo", "number")):
        return f"{issue['owner']}/{issue['repo']}#{issue['number']}"
    return f"{name}:{line}"


def record_metadata(record: dict[str, Any]) -> dict[str, Any]:
    """What an evaluation record says about its run: the model, the agent, the outcome."""
    found: dict[str, Any] = {}
    metadata = record.get("metadata") if isinstance(record.get("metadata"), dict) else {}
    llm = metadata.get("llm_config") or metadata.get("llm")
    model = llm.get("model") if isinstance(llm, dict) else metadata.get("model_name")
    if isinstance(model, str):
        found["model"] = model
    if isinstance(metadata.get("agent_class"), str):
        found["agent_class"] = metadata["agent_class"]
    for key in ("instance_id", "success"):
        if isinstance(record.get(key), (str, int, bool)):
            found[key] = record[key]
    if isinstance(record.get("error"), str) and record["error"]:
        found["error"] = record["error"][:500]
    return found


def add_instruction(conversation: Conversation, record: dict[str, Any], line: int) -> None:
    """The evaluation's ``instruction`` as the person's request, when the history holds none
    before the agent's first step."""
    instruction = record.get("instruction")
    if not isinstance(instruction, str) or not instruction.strip():
        return
    for message in conversation.messages:
        if message.role == "user" and message.from_person:
            return
        if message.role in ("assistant", "tool"):
            break
    conversation.messages.insert(
        0,
        Message(
            role="user",
            line=line,
            from_person=True,
            parts=[TextPart(text=instruction, line=line)],
        ),
    )


def add_message(
    conversation: Conversation,
    role: Literal["user", "assistant", "system", "tool"],
    parts: list[Any],
    line: int,
    *,
    from_person: bool = False,
    message_id: str | None = None,
    moment: Any = None,
) -> None:
    """Append one message to an OpenHands conversation (V0 and V1 events alike)."""
    conversation.messages.append(
        Message(
            role=role,
            line=line,
            parts=parts,
            from_person=from_person,
            message_id=message_id,
            timestamp=moment,
        )
    )


def reject(result: ReadResult, source: str, line: int, reason: str, value: Any) -> None:
    result.rejects.append(Reject(source=source, line=line, reason=reason, excerpt=excerpt(value)))


# ----------------------------------------------------------------------------- reading
class HistoryReader(Protocol):
    """Fills one conversation from the events of a history (each reader has its own)."""

    first_moment: datetime | None

    def feed(self, event: Any, where: str, index: int, line: int) -> None: ...


Reader = Callable[[Conversation, ReadResult], HistoryReader]


def read(path: Path, source: str, span: Span | None = None) -> ReadResult:
    return read_evaluations(path, source, span, NAME, _History)


def read_evaluations(
    path: Path, source: str, span: Span | None, format_name: str, reader: Reader
) -> ReadResult:
    """The conversations of an evaluation file (one record per line, or a pretty-printed
    record), of an array of records, or of a bare event array (one conversation named after
    the file); ``reader`` reads each history."""
    files = _File(source, format_name, reader)
    shape = "lines" if span is not None else _shape(path)
    if shape == "array":
        files.array(path)
        return files.result
    if shape == "document":
        document = load_document(path, source, files.result.rejects)
        if document is not None:
            files.record(document, "", 1)
        return files.result
    for line, record in json_lines(path, source, files.result.rejects, span):
        files.record(record, "", line)
    return files.result


def _shape(path: Path) -> str:
    """How a file holds its records: ``array`` (a JSON array), ``lines`` (one record per line,
    however long: its first line ends its first value) or ``document`` (one pretty-printed
    record). Read from the file's first line, without decoding it."""
    with open_bytes(path) as handle:
        try:
            first = b""
            while not first.strip():
                first = handle.readline()
                if not first:
                    return "lines"
        except STREAM_ERRORS:
            return "lines"  # json_lines reports the damage
    first = first.lstrip(b"\xef\xbb\xbf \t\r")
    if first.startswith(b"["):
        return "array"
    return "lines" if first.rstrip().endswith(b"}") else "document"


class _File:
    """The conversations of one file, record by record."""

    def __init__(self, source: str, format_name: str, reader: Reader):
        self.source = source
        self.name = plain_name(Path(source))
        self.format = format_name
        self.reader = reader
        self.result = ReadResult()

    def record(self, record: Any, base: str, line: int) -> None:
        """One evaluation record ``{instance_id, instruction, history, ...}``; ``base`` is its
        pointer in the document."""
        if not isinstance(record, dict) or not isinstance(record.get("history"), list):
            reason = "not an OpenHands evaluation record (no history)"
            reject(self.result, self.source, line, reason, record)
            return
        if not record["history"]:
            self.result.pass_over(EMPTY_HISTORY)
            return
        conversation = self._conversation(conversation_id(record, self.name, line), line)
        conversation.metadata = record_metadata(record)
        events = self.reader(conversation, self.result)
        for index, item in enumerate(record["history"]):
            events.feed(item, f"{base}/history/{index}", index, line)
        add_instruction(conversation, record, line)
        conversation.timestamp = events.first_moment

    def array(self, path: Path) -> None:
        """A JSON array: of evaluation records, or the events of one conversation."""
        document = array_records(path, self.source, self.result.rejects)
        if document.pointer != "" or not document.records:
            return
        if isinstance(document.records[0][2], dict) and "history" in document.records[0][2]:
            for index, line, record in document.records:
                self.record(record, f"/{index}", line)
            return
        conversation = self._conversation(Path(self.name).stem, document.records[0][1])
        events = self.reader(conversation, self.result)
        for index, line, event in document.records:
            events.feed(event, f"/{index}", index, line)
        conversation.timestamp = events.first_moment

    def _conversation(self, conversation_id: str, line: int) -> Conversation:
        conversation = Conversation(
            id=conversation_id, source=self.source, format=self.format, line=line
        )
        self.result.conversations.append(conversation)
        return conversation


class _History:
    """The events of one history, fed in order, into one conversation."""

    def __init__(self, conversation: Conversation, result: ReadResult):
        self.conversation = conversation
        self.result = result
        self.source = conversation.source
        self.calls: dict[Any, str] = {}  # action id -> call id
        self.not_calls: set[Any] = set()  # ids of actions that are no tool call
        self.arguments: dict[str, Any] = {}  # call id -> arguments (for its command)
        self.answered: set[str] = set()  # call ids that have their result
        self.pending: str | None = None  # the call made by the event just before
        self.responses: set[str] = set()  # model responses whose text is already read
        self.first_moment: datetime | None = None

    # -- feeding
    def feed(self, event: Any, where: str, index: int, line: int) -> None:
        if isinstance(event, list):  # a 2024-05 ``[action, observation]`` pair
            for position, half in enumerate(event[:2]):
                self._event(half, f"{where}/{position}", index, line)
            if len(event) > 2:
                self._reject(line, f"more than two events in the pair at {where}", event)
        else:
            self._event(event, where, index, line)

    def _event(self, event: Any, where: str, index: int, line: int) -> None:
        pending, self.pending = self.pending, None
        if not isinstance(event, dict):
            self._reject(line, f"event is not an object at {where}", event)
            return
        moment = record_moment(event)
        if self.first_moment is None:
            self.first_moment = moment
        if isinstance(event.get("action"), str):
            self._action(event, index, line, moment)
        elif isinstance(event.get("observation"), str):
            self._observation(event, pending, where, line, moment)
        else:
            self._reject(line, f"event is neither an action nor an observation at {where}", event)

    # -- actions
    def _action(self, event: dict[str, Any], index: int, line: int, moment: Any) -> None:
        kind = event["action"]
        args = event.get("args") if isinstance(event.get("args"), dict) else event
        metadata = event.get("tool_call_metadata")
        metadata = metadata if isinstance(metadata, dict) else None
        if kind not in CLOSING_ACTIONS and (metadata is not None or kind in TOOL_ACTIONS):
            self._call(event, kind, args, metadata, index, line, moment)
            return
        if "id" in event:
            self.not_calls.add(event["id"])
        if kind == "message":
            self._message(event, args, line, moment)
        elif kind == "system":
            self._add("system", [TextPart(text=_text(args.get("content")), line=line)], line)
        elif kind in CLOSING_ACTIONS:
            self._closing(kind, args, metadata, line, moment)
        else:
            self.result.pass_over(NO_CONTENT.format(f"action {kind}"))

    def _message(self, event: dict[str, Any], args: dict[str, Any], line: int, moment: Any) -> None:
        text = _text(args.get("content"))
        source = event.get("source")
        if source is None:  # the resolver's flattened events: the agent waits for an answer
            source = "agent" if args.get("wait_for_response") is True else "user"
        parts = [TextPart(text=text, line=line)]
        if source == "agent":
            self._add("assistant", parts, line, moment=moment)
        else:
            self._add("user", parts, line, from_person=source == "user", moment=moment)

    def _closing(
        self,
        kind: str,
        args: dict[str, Any],
        metadata: dict[str, Any] | None,
        line: int,
        moment: Any,
    ) -> None:
        """``finish`` / ``reject``: what the agent said as it ended the run."""
        texts = [_text(args.get("thought")), _text(args.get("final_thought"))]
        called = _called(metadata)
        if called is not None and isinstance(called[1], dict):
            texts.append(_text(called[1].get("message")))
        outputs = args.get("outputs")
        if kind == "reject" and isinstance(outputs, dict):
            texts.append(_text(outputs.get("reason")))
        kept: list[str] = []
        for text in texts:
            if text.strip() and text.strip() not in kept:
                kept.append(text.strip())
        if not kept:
            self.result.pass_over(NO_CONTENT.format(f"action {kind} without text"))
            return
        parts = [TextPart(text=text, line=line) for text in kept]
        self._add("assistant", parts, line, message_id=_response_id(metadata), moment=moment)

    def _call(
        self,
        event: dict[str, Any],
        kind: str,
        args: dict[str, Any],
        metadata: dict[str, Any] | None,
        index: int,
        line: int,
        moment: Any,
    ) -> None:
        name = ACTION_TOOLS.get(kind, kind)
        call_id = f"event-{event['id']}" if _is_id(event.get("id")) else f"history-{index}"
        if metadata is not None:
            if isinstance(metadata.get("function_name"), str) and metadata["function_name"]:
                name = metadata["function_name"]
            if _is_id(metadata.get("tool_call_id")):
                call_id = str(metadata["tool_call_id"])
        called = _called(metadata)
        response = _response_id(metadata)
        if called is not None:
            text, arguments = called
            if response is not None and response in self.responses:
                text = ""  # the response's text came with its first call
        else:
            arguments = {k: v for k, v in args.items() if k not in BOOKKEEPING}
            thought = _text(args.get("thought"))
            text = "" if kind == "think" else thought
            if kind == "think":
                arguments["thought"] = thought
        if response is not None:
            self.responses.add(response)
        parts: list[TextPart | ToolCall] = []
        if text.strip():
            parts.append(TextPart(text=text, line=line))
        parts.append(ToolCall(id=call_id, name=name, arguments=arguments, line=line))
        self._add("assistant", parts, line, message_id=response, moment=moment)
        if "id" in event:
            self.calls[event["id"]] = call_id
        self.arguments[call_id] = arguments
        self.pending = call_id

    # -- observations
    def _observation(
        self, event: dict[str, Any], pending: str | None, where: str, line: int, moment: Any
    ) -> None:
        kind = event["observation"]
        cause = event.get("cause")
        call_id = self._answered_call(event, kind, cause, pending)
        if call_id is None:
            if cause is None and kind == "error":
                # No action: OpenHands could not make one of the model's tool call.
                label = event["id"] if _is_id(event.get("id")) else where.strip("/")
                call_id = f"error-{label}"
                call = ToolCall(id=call_id, name=INVALID_CALL, arguments={}, line=line)
                self._add("assistant", [call], line, moment=moment)
            elif kind in RESULT_OBSERVATIONS and cause not in self.not_calls:
                self._reject(line, f"observation {kind} answers no known action at {where}", event)
                return
            else:
                self.result.pass_over(NO_CONTENT.format(f"observation {kind}"))
                return
        if kind == "null":  # the action got no observation: its call has no result
            self.result.pass_over(NO_CONTENT.format(f"observation {kind}"))
            return
        self.answered.add(call_id)
        result = self._result(event, kind, call_id, where, line)
        self._add("tool", [result], line, moment=moment)

    def _answered_call(
        self, event: dict[str, Any], kind: str, cause: Any, pending: str | None
    ) -> str | None:
        """The call an observation answers: by ``cause``, by ``tool_call_id``, or, when it has
        no cause, the call made by the event just before it."""
        if cause is not None:
            return self.calls.get(cause)
        metadata = event.get("tool_call_metadata")
        if isinstance(metadata, dict) and _is_id(metadata.get("tool_call_id")):
            known = str(metadata["tool_call_id"])
            if known in self.arguments and known not in self.answered:
                return known
        if pending is not None and (kind in RESULT_OBSERVATIONS or kind == "null"):
            return pending
        return None

    def _result(
        self, event: dict[str, Any], kind: str, call_id: str, where: str, line: int
    ) -> ToolResult:
        extras = event.get("extras") if isinstance(event.get("extras"), dict) else event
        content = event.get("content")
        if isinstance(content, str):
            content = without_terminal_codes(content)
        is_error: bool | None = None
        flag_key = "observation"
        if kind in FAILED_OBSERVATIONS:
            is_error = True
        else:
            code, code_key = _exit_code(event, extras)
            if code is not None:
                command = extras.get("command")
                if not isinstance(command, str):
                    arguments = self.arguments.get(call_id)
                    command = arguments.get("command") if isinstance(arguments, dict) else None
                is_error, flag_key = command_failed(code, command), code_key
            elif extras.get("error") is True:
                is_error, flag_key = True, "extras/error" if extras is not event else "error"
        return ToolResult(
            call_id=call_id,
            line=line,
            pointer=where,
            is_error=is_error,
            content=content,
            content_key="content",
            flag_key=flag_key,
        )

    # -- messages
    def _add(
        self,
        role: Literal["user", "assistant", "system", "tool"],
        parts: list[Any],
        line: int,
        **details: Any,
    ) -> None:
        """``add_message`` to this conversation (``from_person``, ``message_id``, ``moment``)."""
        add_message(self.conversation, role, parts, line, **details)

    def _reject(self, line: int, reason: str, value: Any) -> None:
        reject(self.result, self.source, line, reason, value)


def _exit_code(event: dict[str, Any], extras: dict[str, Any]) -> tuple[Any, str]:
    """An observation's exit status, and the pointer (from the event) of the field holding it:
    ``extras.metadata.exit_code``, ``extras.exit_code``, or ``exit_code`` at the top."""
    prefix = "extras/" if extras is not event else ""
    metadata = extras.get("metadata")
    if isinstance(metadata, dict) and metadata.get("exit_code") is not None:
        return metadata["exit_code"], f"{prefix}metadata/exit_code"
    if extras.get("exit_code") is not None:
        return extras["exit_code"], f"{prefix}exit_code"
    if event.get("exit_code") is not None:
        return event["exit_code"], "exit_code"
    return None, "observation"


def _called(metadata: dict[str, Any] | None) -> tuple[str, Any] | None:
    """(the model response's text, the arguments the model sent) of a function call, from
    ``tool_call_metadata.model_response``; None when it is not there."""
    if metadata is None:
        return None
    response = metadata.get("model_response")
    if not isinstance(response, dict):
        return None
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    message = choices[0].get("message")
    if not isinstance(message, dict):
        return None
    for call in message.get("tool_calls") or []:
        if isinstance(call, dict) and call.get("id") == metadata.get("tool_call_id"):
            function = call.get("function") if isinstance(call.get("function"), dict) else {}
            return _text(message.get("content")), decode_arguments(function.get("arguments"))
    return None


def _response_id(metadata: dict[str, Any] | None) -> str | None:
    response = metadata.get("model_response") if metadata is not None else None
    value = response.get("id") if isinstance(response, dict) else None
    return value if isinstance(value, str) and value else None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else as_text(value)


def _is_id(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool) and str(value) != ""
