"""Aider chat history: the ``.aider.chat.history.md`` file aider appends to in a project.

Markdown written by aider's own ``InputOutput`` as the chat goes on:

- ``# aider chat started at 2025-07-15 14:53:34`` opens a session (local time, no zone): one
  conversation per session, id ``<file name>#<start time>``;
- ``#### text`` lines are what the person typed, one input per run of such lines (each line
  ends with two spaces, aider's Markdown line break);
- ``> text`` lines are aider's own output: the startup banner, token and cost reports,
  questions with their answers, commits, warnings, and the results of what the assistant
  asked for. Only the first line of a multi-line output carries ``>``; the output ends at the
  first line that ends with two spaces, and a padded list of shell commands goes on over the
  lines right after it;
- everything else is the assistant's text, written after a blank line.

Tool calls. Aider's model does not call tools: aider applies the SEARCH/REPLACE blocks of a
reply and runs the shell commands it proposes, after asking the person. A call is made of what
aider reports it did, attached to the reply it came from:

- **edits**: one call ``edit`` per file a reply edits, ``{"path": F}`` (written with ``/``
  whatever the system's separator, so that a retry on Windows names the same file). ``Applied
  edit to F`` is its result (``is_error`` false); ``Skipping edits to F`` (the person declined
  to create or edit the file) is a failed one. A reply whose edits did not apply shows ``The LLM
  did not conform to the edit format.`` and ``# N SEARCH/REPLACE block(s) failed to match!``:
  each file named in a ``SearchReplaceNoExactMatch ... in F`` section gets a failed result (the
  whole report is its content); the files of the reply's other blocks, which ``The other N
  SEARCH/REPLACE blocks were applied successfully`` covers, get a successful one. Aider sends
  the report back to the model, whose next reply (the retry) is a reply of its own; the same
  failure reported again is a failure of that retry. A non-conforming reply whose report names
  no file fails the reply's edit calls (one ``edit`` call without a path when it has none);
- **shell commands**: each ``Running CMD`` line is a call ``shell`` ``{"command": CMD}``. The
  history does not keep a command's output or exit status (only ``Added N lines of output to
  the chat.``), so its result carries no failure flag (``is_error`` None); ``Error occurred
  while running command`` (aider could not start it) is a failure.

Calls exist only where aider reported a result: a reply that shows SEARCH/REPLACE blocks aider
never applied (``/ask`` mode, an interrupted session) has no call.

Passed over and counted: aider's other output lines (one count per output), commands the
person gave aider itself (``/add``, ``/run``, ``!cmd``; ``/ask``, ``/code``, ``/architect`` and
``/context`` carry a message to the model and are read as one), confirmations answered for a
group of files (aider echoes them as ``####`` lines), and whole sessions without any assistant
text (interrupted at once, commands only, the model never answered): one count per session.
``<thinking-content-…>`` blocks are the model's reasoning and are left out of its text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from auditor.model import Conversation, Message, TextPart, ToolCall, ToolResult
from auditor.readers.protocol import LIKELY, SURE
from auditor.readers.result import ReadResult
from auditor.readers.sampling import Sample
from auditor.readers.streams import plain_name, read_text

NAME = "aider"
DESCRIPTION = "Aider chat history Markdown (.aider.chat.history.md): edits and shell commands"
READS_SPANS = False
looks_like = None  # recognised from the whole sample, by sniff

HISTORY_NAME = ".aider.chat.history.md"
_HEADER = re.compile(r"^# aider chat started at (?P<time>\d{4}-\d\d-\d\d[ T][\d:]+)\s*$")
_HEADER_IN_TEXT = re.compile(r"^# aider chat started at \d{4}-\d\d-\d\d", re.M)

STATUS = "aider output line (banner, tokens and cost, question and answer, commit, warning)"
COMMAND = "aider command the person typed (/add, /run, !cmd …): for aider, not for the model"
GROUP_ANSWER = "aider confirmation answered for a group of files (echoed as a #### line)"
BLANK_INPUT = "aider empty input (<blank>)"
NO_ASSISTANT = "aider session with no assistant turn (interrupted, commands only, no answer)"
PREAMBLE = "text before the first aider session header"
UNPLACED = "aider result line with no assistant reply to attach it to"

EDIT_TOOL = "edit"
SHELL_TOOL = "shell"
# Commands whose argument is a message to the model.
MESSAGE_COMMANDS = ("/ask", "/code", "/architect", "/context")

_APPLIED = re.compile(r"^Applied edit to (?P<path>.+)$")
_SKIPPED = re.compile(r"^Skipping edits to (?P<path>.+)$")
_RUNNING = re.compile(r"^Running (?P<command>.+)$")
_RUN_ERROR = re.compile(r"^Error occurred while running command\b")
_OUTPUT_ADDED = re.compile(r"^Added \d+ lines? of output to the chat\.$")
_NOT_CONFORM = "The LLM did not conform to the edit format."
_EDIT_ERRORS_URL = re.compile(r"^https://aider\.chat/docs/troubleshooting/edit-errors\.html$")
_FAILED_MATCH = re.compile(r"^# \d+ SEARCH/REPLACE blocks? failed to match!")
_FAILED_FILE = re.compile(
    r"^## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in "
    r"(?P<path>.+)$"
)
_OTHERS_APPLIED = re.compile(
    r"^# The other (?P<count>\d+) SEARCH/REPLACE blocks? (?:were|was) applied successfully\."
)
_GROUP_ANSWER = re.compile(r"\(Y\)es/\(N\)o.*\[(?:Yes|No)\]:\s*\S*\s*$")
_SEARCH_HEAD = re.compile(r"^<{5,9} SEARCH>?\s*$")
_THINKING = re.compile(
    r"<thinking-content-(?P<tag>[0-9a-f]+)>.*?</thinking-content-(?P=tag)>\s*", re.S
)


# ----------------------------------------------------------------------------- detection
def sniff(sample: Sample) -> int:
    if _HEADER_IN_TEXT.search(sample.text):
        return SURE
    if sample.name.endswith(HISTORY_NAME) and sample.text.lstrip().startswith(("#", ">")):
        return LIKELY
    return 0


# ----------------------------------------------------------------------------- reading
def read(path: Path, source: str) -> ReadResult:
    result = ReadResult()
    text = read_text(path, source, result.rejects)
    if text is None:
        return result
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line.rstrip("\r") for line in lines]
    # A history whose trailing spaces were stripped (an editor did it) loses aider's line
    # breaks; markers are then read by their prefix alone.
    strict = any(line.endswith("  ") for line in lines)
    name = plain_name(path)
    starts = [index for index, line in enumerate(lines) if _HEADER.match(line)]
    first = starts[0] if starts else len(lines)
    preamble = sum(1 for line in lines[:first] if line.strip())
    if preamble:
        result.pass_over(PREAMBLE, preamble)
    seen_ids: set[str] = set()
    for position, start in enumerate(starts):
        end = starts[position + 1] if position + 1 < len(starts) else len(lines)
        header = _HEADER.match(lines[start])
        assert header is not None
        conversation_id = f"{name}#{header['time']}"
        if conversation_id in seen_ids:
            conversation_id = f"{conversation_id}@{start + 1}"
        seen_ids.add(conversation_id)
        conversation = Conversation(
            id=conversation_id,
            source=source,
            format=NAME,
            line=start + 1,
            metadata={"started_at": header["time"]},
        )
        session = _Session(conversation, result)
        for block in _blocks(lines, start + 1, end, strict):
            session.take(block)
        session.finish()
    return result


@dataclass
class _Block:
    kind: str  # "user", "assistant" or "output"
    line: int  # 1-based line of its first line
    lines: list[str]

    @property
    def text(self) -> str:
        """The block's text without its markers and aider's trailing line-break spaces."""
        if self.kind == "user":
            return "\n".join(_unmark(line, "####") for line in self.lines)
        if self.kind == "output":
            first = _unmark(self.lines[0], ">")
            return "\n".join([first, *(line.rstrip() for line in self.lines[1:])]).strip()
        return "\n".join(self.lines).strip()


def _unmark(line: str, marker: str) -> str:
    text = line[len(marker) :] if line.startswith(marker) else line
    return text[1:].rstrip() if text.startswith(" ") else text.rstrip()


def _marked(line: str) -> bool:
    """Starts like one of aider's output lines (not ``>>>>>>> REPLACE``)."""
    return line.startswith("> ") or line.rstrip() == ">"


def _breaks(line: str) -> bool:
    """Ends with aider's Markdown line break (two spaces)."""
    return line.endswith("  ")


def _blocks(lines: list[str], start: int, end: int, strict: bool) -> list[_Block]:
    """The person's inputs, aider's outputs and the assistant's texts of one session."""

    def is_user(line: str) -> bool:
        return (line == "####" or line.startswith("#### ")) and (_breaks(line) or not strict)

    def is_output(line: str) -> bool:
        return _marked(line) and (_breaks(line) or not strict or line.rstrip() == ">")

    blocks: list[_Block] = []
    index = start
    while index < end:
        line = lines[index]
        if not line.strip():
            index += 1
            continue
        first = index
        if is_user(line):
            while index < end and is_user(lines[index]):
                index += 1
            blocks.append(_Block("user", first + 1, lines[first:index]))
        elif _marked(line):
            index += 1
            if strict and not _breaks(line) and line.rstrip() != ">":
                # A multi-line output: it ends at the first line with aider's line break.
                while index < end and not is_output(lines[index]) and not is_user(lines[index]):
                    index += 1
                    if _breaks(lines[index - 1]):
                        break
            # Lines right after an output (no blank line between) continue it: a padded list
            # of shell commands puts only its first line after ``>``.
            while (
                index < end
                and lines[index].strip()
                and not _marked(lines[index])
                and not is_user(lines[index])
            ):
                index += 1
            blocks.append(_Block("output", first + 1, lines[first:index]))
        else:
            while index < end and not is_user(lines[index]) and not is_output(lines[index]):
                index += 1
            body = lines[first:index]
            while body and not body[-1].strip():
                body.pop()
            blocks.append(_Block("assistant", first + 1, body))
    return blocks


# ----------------------------------------------------------------------------- one session
@dataclass
class _Reply:
    """An assistant reply and the calls made of what aider did with it."""

    message: Message
    text: str
    edits: dict[str, ToolCall] = field(default_factory=dict)  # normalised path -> call
    answered: set[str] = field(default_factory=set)  # ids of calls with a result
    last_shell: ToolResult | None = None


class _Session:
    def __init__(self, conversation: Conversation, result: ReadResult):
        self.conversation = conversation
        self.result = result
        self.reply: _Reply | None = None  # the latest reply of the current turn
        self.replies = 0
        self.passed: dict[str, int] = {}
        self.calls = 0
        self.not_conform: _Block | None = None  # "did not conform" awaiting its report

    # -- blocks
    def take(self, block: _Block) -> None:
        if block.kind == "user":
            self._user(block)
        elif block.kind == "assistant":
            self._assistant(block)
        else:
            self._output(block)

    def finish(self) -> None:
        if self.not_conform is not None:
            self._failed_edits(self.not_conform, _NOT_CONFORM, [], 0)
        if self.replies == 0:
            self.result.pass_over(NO_ASSISTANT)
            return
        for reason, count in self.passed.items():
            self.result.pass_over(reason, count)
        self.result.conversations.append(self.conversation)

    def _pass(self, reason: str) -> None:
        self.passed[reason] = self.passed.get(reason, 0) + 1

    def _add(self, message: Message) -> None:
        self.conversation.messages.append(message)

    def _user(self, block: _Block) -> None:
        self._settle()
        text = block.text
        stripped = text.strip()
        if stripped == "<blank>" or not stripped:
            self._pass(BLANK_INPUT)
            return
        if _GROUP_ANSWER.search(stripped.splitlines()[0]):
            self._pass(GROUP_ANSWER)
            return
        if stripped.startswith(("/", "!")):
            command, _, rest = stripped.partition(" ")
            if command.lower() not in MESSAGE_COMMANDS or not rest.strip():
                self._pass(COMMAND)
                return
            text = rest.strip()
        self.reply = None
        self._add(
            Message(
                role="user",
                line=block.line,
                from_person=True,
                parts=[TextPart(text=text, line=block.line)],
            )
        )

    def _assistant(self, block: _Block) -> None:
        self._settle()
        text = _THINKING.sub("", block.text).strip()
        message = Message(
            role="assistant",
            line=block.line,
            message_id=f"{self.conversation.id}@{block.line}",
            parts=[TextPart(text=text, line=block.line)] if text else [],
        )
        self._add(message)
        self.reply = _Reply(message=message, text=block.text)
        self.replies += 1

    def _output(self, block: _Block) -> None:
        text = block.text
        first = text.splitlines()[0].strip() if text else ""
        if self.not_conform is not None:
            if _EDIT_ERRORS_URL.match(first):
                return  # part of the report
            if _FAILED_MATCH.match(first):
                self._failed_match(block)
            else:
                self._failed_edits(block, f"{_NOT_CONFORM}\n{text}", [], 0)
            self.not_conform = None
            return
        if first == _NOT_CONFORM:
            if self.reply is None:
                self._pass(UNPLACED)
            else:
                self.not_conform = block
            return
        if _FAILED_MATCH.match(first) and self.reply is not None:
            self._failed_match(block)
            return
        edit = _APPLIED.match(first) or _SKIPPED.match(first)
        running = _RUNNING.match(first)
        shell = self.reply.last_shell if self.reply is not None else None
        if self.reply is None:
            self._pass(UNPLACED if edit or running else STATUS)
        elif edit:
            self._edit_result(edit["path"], block.line, first, first.startswith("Skipping"))
        elif running:
            self._shell(running["command"], block.line, first)
        elif shell is not None and (_RUN_ERROR.match(first) or _OUTPUT_ADDED.match(first)):
            shell.content = f"{shell.content}\n{text}"
            if _RUN_ERROR.match(first):
                shell.is_error = True
        else:
            self._pass(STATUS)

    def _settle(self) -> None:
        """A "did not conform" line whose report never came: the reply's edits failed."""
        if self.not_conform is not None:
            self._failed_edits(self.not_conform, _NOT_CONFORM, [], 0)
            self.not_conform = None

    # -- calls and results
    def _new_id(self, line: int) -> str:
        self.calls += 1
        return f"{self.conversation.id}:{line}:{self.calls}"

    def _edit_call(self, path: str | None) -> ToolCall:
        """The reply's call that edits ``path`` (made on first use)."""
        assert self.reply is not None
        key = _norm(path) if path is not None else ""
        call = self.reply.edits.get(key)
        if call is None:
            line = self.reply.message.line
            call = ToolCall(
                id=self._new_id(line),
                name=EDIT_TOOL,
                arguments={"path": _norm(path)} if path is not None else {},
                line=line,
            )
            self.reply.edits[key] = call
            self.reply.message.parts.append(call)
        return call

    def _result(self, call: ToolCall, line: int, content: str, is_error: bool | None) -> ToolResult:
        assert self.reply is not None
        result = ToolResult(call_id=call.id, line=line, content=content, is_error=is_error)
        self.reply.answered.add(call.id)
        self._add(Message(role="tool", line=line, parts=[result]))
        return result

    def _edit_result(self, path: str, line: int, text: str, failed: bool) -> None:
        call = self._edit_call(path)
        assert self.reply is not None
        if call.id in self.reply.answered:
            self._pass(STATUS)
            return
        self._result(call, line, text, failed)

    def _shell(self, command: str, line: int, text: str) -> None:
        assert self.reply is not None
        call = ToolCall(
            id=self._new_id(line), name=SHELL_TOOL, arguments={"command": command}, line=line
        )
        self.reply.message.parts.append(call)
        self.reply.last_shell = self._result(call, line, text, None)

    def _failed_match(self, block: _Block) -> None:
        text = block.text
        failed: list[str] = []
        others = 0
        for line in text.splitlines():
            found = _FAILED_FILE.match(line.strip())
            if found and found["path"].strip() not in failed:
                failed.append(found["path"].strip())
            count = _OTHERS_APPLIED.match(line.strip())
            if count:
                others = int(count["count"])
        self._failed_edits(block, f"{_NOT_CONFORM}\n{text}", failed, others)

    def _failed_edits(self, block: _Block, report: str, failed: list[str], others: int) -> None:
        """The reply's edits did not all apply: ``failed`` files failed (or, when the report
        names none, every edit of the reply without a result); the files of its other blocks
        applied when ``others`` says some did."""
        if self.reply is None:
            self._pass(UNPLACED)
            return
        reply = self.reply
        if failed:
            targets = [self._edit_call(path) for path in failed]
        else:
            targets = [c for c in reply.edits.values() if c.id not in reply.answered]
            if not targets:
                paths: list[str | None] = [*_block_files(reply.text)] or [None]
                targets = [self._edit_call(path) for path in paths]
        for call in targets:
            if call.id not in reply.answered:
                self._result(call, block.line, report, True)
        if others:
            failed_keys = {_norm(path) for path in failed}
            note = f"The other {others} SEARCH/REPLACE block(s) were applied successfully."
            for path in _block_files(reply.text):
                if _norm(path) in failed_keys:
                    continue
                call = self._edit_call(path)
                if call.id not in reply.answered:
                    self._result(call, block.line, note, False)


def _norm(path: str) -> str:
    return path.strip().strip("`").replace("\\", "/")


def _block_files(text: str) -> list[str]:
    """The files a reply's SEARCH/REPLACE blocks name, in order (aider's own rule: the
    nearest of the three lines before ``<<<<<<< SEARCH`` that is not a fence, else the file
    of the block before)."""
    lines = text.splitlines()
    files: list[str] = []
    current: str | None = None
    for index, line in enumerate(lines):
        if not _SEARCH_HEAD.match(line.strip()):
            continue
        for back in range(index - 1, max(index - 4, -1), -1):
            candidate = lines[back].strip()
            if not candidate or candidate.startswith("```") or candidate.startswith(">>>>>>>"):
                continue
            candidate = candidate.rstrip(":").strip("*").strip("#").strip().strip("`")
            if candidate:
                current = candidate
            break
        if current is not None and _norm(current) not in {_norm(f) for f in files}:
            files.append(current)
    return files
