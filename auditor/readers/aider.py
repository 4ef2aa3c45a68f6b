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
from collections.abc import Iterable, Iterator
from pathlib import Path

from auditor.model import Conversation, Message, Part, TextPart, ToolCall, ToolResult
from auditor.readers.protocol import LIKELY, SURE
from auditor.readers.result import ReadResult
from auditor.readers.sampling import Sample
from auditor.readers.streams import plain_name, read_text

NAME = "aider"
DESCRIPTION = "Aider chat history Markdown (.aider.chat.history.md): edits and shell commands"
READS_SPANS = False
looks_like = None  # recognised from the whole sample, by sniff

HISTORY_NAME = ".aider.chat.history.md"
# A session header, matched at the start of its line (``pos``), to the end of it (``endpos``).
_HEADER = re.compile(r"# aider chat started at (?P<time>\d{4}-\d\d-\d\d[ T][\d:]+)\s*$")
_HEADER_IN_TEXT = re.compile(rb"^# aider chat started at \d{4}-\d\d-\d\d", re.M)

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

# An output's first line that starts with these words and goes on names a file or a command.
_APPLIED_WORDS = "Applied edit to "
_SKIPPED_WORDS = "Skipping edits to "
_RUNNING_WORDS = "Running "
_RUN_ERROR = re.compile(r"^Error occurred while running command\b")
_OUTPUT_ADDED = re.compile(r"^Added \d+ lines? of output to the chat\.$")
_NOT_CONFORM = "The LLM did not conform to the edit format."
_EDIT_ERRORS_URL = "https://aider.chat/docs/troubleshooting/edit-errors.html"
_FAILED_MATCH = re.compile(r"^# \d+ SEARCH/REPLACE blocks? failed to match!")
# Each at the start of a line after spaces or tabs (``_line_start``): searched for by their
# words, which is much faster than trying a ``^[ \t]*`` at every offset.
_FAILED_FILE = re.compile(
    r"## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in "
    r"(?P<path>.+)$",
    re.M,
)
_OTHERS_APPLIED = re.compile(
    r"# The other (?P<count>\d+) SEARCH/REPLACE blocks? (?:were|was) applied successfully\."
)
# The output lines that can be results (the rest are status lines, passed over).
_RESULT_START = re.compile(
    r"Applied edit to |Skipping edits to |Running |Error occurred while running command"
    r"|Added \d+ lines? of output|The LLM did not conform|# \d+ SEARCH/REPLACE"
)
_GROUP_ANSWER = re.compile(r"\(Y\)es/\(N\)o.*\[(?:Yes|No)\]:\s*\S*\s*$")
_SEARCH_HEAD = re.compile(r"^<{5,9} SEARCH>?\s*$")
_SEARCH_WORDS = "<<<<< SEARCH"  # in every line _SEARCH_HEAD matches
# The line breaks of ``str.splitlines`` other than "\n" ("\r\n" is already "\n").
_OTHER_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
_THINKING = re.compile(
    r"<thinking-content-(?P<tag>[0-9a-f]+)>.*?</thinking-content-(?P=tag)>\s*", re.S
)


# ----------------------------------------------------------------------------- detection
def sniff(sample: Sample) -> int:
    if HEADER_PREFIX.encode() in sample.head and _HEADER_IN_TEXT.search(sample.head):
        return SURE
    if sample.name.endswith(HISTORY_NAME) and sample.head.lstrip()[:1] in (b"#", b">"):
        return LIKELY
    return 0


# ----------------------------------------------------------------------------- reading
HEADER_PREFIX = "# aider chat started at "
_BREAK_LINE = re.compile(r"  $", re.M)


def _tokens(strict: bool) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Two regular expressions that cut a session into blocks, in C. The first reads the
    block where it is matched: blank lines, then the person's input, an output (one line, or
    several up to aider's line break) with the lines right after it, or the start of the
    assistant's text (an empty ``text`` group). The second is searched for from there: the
    newline before the next input or output line, where the assistant's text ends. Searched
    for, the newline is found by a plain scan, and only the lines after one are tried; read
    line by line inside the first expression, the text cost the engine its repeat's work on
    each of its lines (most of a history's lines).

    The scan of a line's characters and the runs of lines that end a block are possessive
    (``*+``): nothing after them could match had they taken less, so the engine keeps no
    places to go back to."""
    end = r"(?=\n|\Z)"
    # A line read to its end by ``[^\n]*+`` needs no test that its end comes next: the
    # engine would make that test on every line.
    if strict:
        user = r"#### [^\n]*+(?<=  )"  # each input line ends with aider's break
        output = rf"(?:> [^\n]*+(?<=  )|>[ \t]*{end})"  # an output line that ends a reply
    else:  # the line breaks were stripped: markers are read by their prefix alone
        user = rf"####(?: [^\n]*+|{end})"
        output = rf"(?:> [^\n]*+|>[ \t]*{end})"
    stop = rf"(?:{output}|{user})"
    marked = rf">(?: |[ \t]*{end})"
    blank = rf"[ \t]*{end}"
    follow = rf"(?:\n(?!{blank}|{marked}|{user})[^\n]*+)*+"  # lines right after an output
    # Output lines that cannot be results (most of them: banner, tokens, questions, commits),
    # read as one run when no line follows the last of them.
    results = _RESULT_START.pattern
    status = output.replace("> [^\\n]*+", rf"> (?!{results}|https://aider\.chat/)[^\n]*+", 1)
    multi = (
        rf"> [^\n]*+(?:(?:\n(?!{stop})[^\n]*+)*?\n(?!{stop})[^\n]*+(?<=  )"
        rf"|(?:\n(?!{stop})[^\n]*+)*+)"
    )
    blocks = re.compile(
        rf"(?:[ \t]*\n)*"  # the blank lines before a block
        rf"(?:(?P<run>{status}(?:\n{status})*(?!\n(?!{blank}|{marked}|{user})))"
        rf"|(?P<user>{user}(?:\n{user})*+)"
        rf"|(?P<output>{output}{follow})"
        rf"|(?P<multi>{multi}{follow})"
        rf"|(?P<text>(?=[^\n])))",  # a text runs from a line with a character in it
        re.M,
    )
    return blocks, re.compile(rf"\n(?={stop})")


_STRICT, _LOOSE = _tokens(True), _tokens(False)
# The blocks' groups by number (``Match.lastindex``), the same in both expressions.
_RUN, _USER, _OUTPUT, _MULTI, _TEXT = (
    _STRICT[0].groupindex[kind] for kind in ("run", "user", "output", "multi", "text")
)
assert _LOOSE[0].groupindex == _STRICT[0].groupindex


def read(path: Path, source: str) -> ReadResult:
    result = ReadResult()
    text = read_text(path, source, result.rejects)
    if text is None:
        return result
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    # A history whose trailing spaces were stripped (an editor did it) loses aider's line
    # breaks; markers are then read by their prefix alone.
    blocks, text_end = _STRICT if _BREAK_LINE.search(text) is not None else _LOOSE
    block_at, text_end_from = blocks.match, text_end.search
    name = plain_name(path)
    headers = _headers(text)
    first = headers[0][0] if headers else len(text)
    preamble = sum(1 for line in text[:first].split("\n") if line.strip())
    if preamble:
        result.pass_over(PREAMBLE, preamble)
    seen_ids: set[str] = set()
    line, counted = 1, 0  # the line number at offset ``counted``
    for position, (start, stop, header) in enumerate(headers):
        end = headers[position + 1][0] if position + 1 < len(headers) else len(text)
        line += text.count("\n", counted, start)
        counted = start
        started_at = header["time"]
        conversation_id = f"{name}#{started_at}"
        if conversation_id in seen_ids:
            conversation_id = f"{conversation_id}@{line}"
        seen_ids.add(conversation_id)
        session = _Session(conversation_id, source, line, started_at, result)
        passed = session.passed
        at = min(stop + 1, end)
        # One block a pass, from ``at`` (where the last one ended) to ``at`` again; nothing
        # matches once only empty lines are left.
        while (token := block_at(text, at, end)) is not None:
            kind = token.lastindex  # the number of the block's group: no look-up by name
            begin, at = token.span(kind)  # a text's group is empty: where it starts
            if kind == _RUN:
                count = text.count("\n", begin, at) + 1
                if session.not_conform is not None:  # its first line is the pending report
                    line += text.count("\n", counted, begin)
                    counted = begin
                    newline = text.find("\n", begin, at)
                    session.output(line, text[begin : at if newline < 0 else newline])
                    count -= 1
                if count:
                    passed[STATUS] = passed.get(STATUS, 0) + count
                continue
            if kind == _TEXT:
                found = text_end_from(text, begin, end)
                at = end if found is None else found.start()
                line += text.count("\n", counted, begin)
                counted = begin
                # Its blank lines at the end left out before the text is cut: one copy.
                finish = at
                while finish > begin and text[finish - 1] in "\n \t":
                    finish -= 1
                session.assistant(line, text[begin:finish].strip())
                continue
            if (
                kind != _USER
                and session.not_conform is None
                and not _RESULT_START.match(text, begin + 2)
            ):
                passed[STATUS] = passed.get(STATUS, 0) + 1
                continue  # an output with lines after it, or a multi-line one
            line += text.count("\n", counted, begin)
            counted = begin
            if kind == _USER:
                session.user(line, text[begin:at])
            else:
                session.output(line, text[begin:at])
        session.finish()
    return result


def _headers(text: str) -> list[tuple[int, int, re.Match[str]]]:
    """``(start, end, match)`` of each session header line (found by plain search)."""
    found = []
    start = 0 if text.startswith(HEADER_PREFIX) else _next_header(text, 0)
    while start >= 0:
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        header = _HEADER.match(text, start, end)
        if header is not None:
            found.append((start, end, header))
        start = _next_header(text, end)
    return found


def _next_header(text: str, offset: int) -> int:
    """Where the next line that starts like a session header starts, or -1."""
    found = text.find("\n" + HEADER_PREFIX, offset)
    return found + 1 if found >= 0 else -1


def _user_text(raw: str) -> str:
    """The person's input without its ``####`` markers (the first line also without one the
    person typed after it) and aider's line-break spaces."""
    raw = raw[5:] if raw.startswith("#### ") else raw[4:]
    if "\n" in raw:
        if raw.startswith("####"):
            raw = raw[5:] if raw.startswith("#### ") else raw[4:]
        if "\n####\n" in raw or raw.endswith("\n####"):  # an input line of a bare "####"
            rows = [row[5:] if row.startswith("#### ") else row[4:] for row in raw.split("\n")]
            rows[0] = raw.partition("\n")[0]
        else:  # every line after the first starts with "#### "
            rows = raw.split("\n#### ")
        raw = "\n".join([row.rstrip() for row in rows])
    return raw.rstrip()


# The newline of a line that ends in white space (what ``str.rstrip`` takes; found from the
# newline, a literal start, so that the lines between are passed over in C).
_PADDED_LINE = re.compile(r"\n(?<=[^\S\n]\n)")


def _output_text(raw: str) -> str:
    """An output of aider's without its ``>`` marker and its lines' trailing spaces (the
    last line's go with the text's own)."""
    raw = raw[2:] if raw.startswith("> ") else raw[1:]
    if "\n" in raw:
        pieces = []
        start = 0
        for found in _PADDED_LINE.finditer(raw):
            newline = found.start()
            row = raw.rfind("\n", start, newline) + 1 or start  # where its line starts
            pieces.append(raw[start:row])
            pieces.append(raw[row:newline].rstrip())
            start = newline
        if pieces:
            pieces.append(raw[start:])
            raw = "".join(pieces)
    return raw.strip()


def _output_first(raw: str) -> str:
    """The first line of ``_output_text(raw)``, stripped (without making the rest)."""
    newline = raw.find("\n")
    first = (raw if newline < 0 else raw[:newline])[2 if raw.startswith("> ") else 1 :].strip()
    if first or newline < 0:
        return first
    return _output_text(raw).partition("\n")[0].strip()  # a blank first line


# ----------------------------------------------------------------------------- one session
class _Reply:
    """An assistant reply and the calls made of what aider did with it."""

    __slots__ = ("answered", "edits", "files", "last_shell", "message", "text")

    def __init__(self, message: Message, text: str):
        self.message, self.text = message, text
        self.edits: dict[str, ToolCall] = {}  # normalised path -> call
        self.answered: set[str] = set()  # ids of calls with a result
        self.last_shell: ToolResult | None = None
        self.files: list[str] | None = None  # _block_files of the text, once asked for

    def block_files(self) -> list[str]:
        """``_block_files`` of the reply's text, found once."""
        if self.files is None:
            self.files = _block_files(self.text)
        return self.files


class _Session:
    """One session's blocks read in turn; its conversation is made at its end, and only when
    the assistant spoke in it."""

    def __init__(self, id: str, source: str, line: int, started_at: str, result: ReadResult):
        self.id, self.source, self.line, self.started_at = id, source, line, started_at
        self.messages: list[Message] = []
        self.result = result
        self.reply: _Reply | None = None  # the latest reply of the current turn
        self.replies = 0
        self.passed: dict[str, int] = {}
        self.calls = 0
        self.not_conform: int | None = None  # line of a "did not conform" awaiting its report

    # -- blocks
    def finish(self) -> None:
        if self.not_conform is not None:
            self._failed_edits(self.not_conform, _NOT_CONFORM, [], 0)
        if self.replies == 0:
            self.result.pass_over(NO_ASSISTANT)
            return
        for reason, count in self.passed.items():
            self.result.pass_over(reason, count)
        metadata = {"started_at": self.started_at}
        conversation = Conversation(self.id, self.source, NAME, self.line, self.messages, metadata)
        self.result.conversations.append(conversation)

    def _pass(self, reason: str) -> None:
        self.passed[reason] = self.passed.get(reason, 0) + 1

    def user(self, line: int, raw: str) -> None:
        """The person's input at ``line``: its ``####`` lines as they are."""
        if self.not_conform is not None:
            self._settle()
        text = _user_text(raw)
        stripped = text.strip()
        if stripped == "<blank>" or not stripped:
            self._pass(BLANK_INPUT)
            return
        newline = stripped.find("\n")
        first = stripped if newline < 0 else stripped[:newline]  # the answer is on it
        if "(Y)es/(N)o" in first and _GROUP_ANSWER.search(first):
            self._pass(GROUP_ANSWER)
            return
        if stripped.startswith(("/", "!")):
            command, _, rest = stripped.partition(" ")
            if command.lower() not in MESSAGE_COMMANDS or not rest.strip():
                self._pass(COMMAND)
                return
            text = rest.strip()
        self.reply = None
        self.messages.append(Message("user", line, [TextPart(text, line)], True))

    def assistant(self, line: int, text: str) -> None:
        """The assistant's text at ``line``, stripped."""
        if self.not_conform is not None:
            self._settle()
        shown = _THINKING.sub("", text).strip() if "<thinking-content-" in text else text
        parts: list[Part] = [TextPart(shown, line)] if shown else []
        message = Message("assistant", line, parts, False, f"{self.id}@{line}")
        self.messages.append(message)
        self.reply = _Reply(message, text)
        self.replies += 1

    def output(self, line: int, raw: str) -> None:
        """An output of aider's at ``line`` that can be a result: its lines as they are."""
        first = _output_first(raw)
        if self.not_conform is not None:
            if first == _EDIT_ERRORS_URL:
                return  # part of the report
            if _FAILED_MATCH.match(first):
                self._failed_match(line, _output_text(raw))
            else:
                self._failed_edits(line, f"{_NOT_CONFORM}\n{_output_text(raw)}", [], 0)
            self.not_conform = None
            return
        if first == _NOT_CONFORM:
            if self.reply is None:
                self._pass(UNPLACED)
            else:
                self.not_conform = line
            return
        reply = self.reply
        if first[:1] == "#" and reply is not None and _FAILED_MATCH.match(first):
            self._failed_match(line, _output_text(raw))
            return
        # What _APPLIED, _SKIPPED and _RUNNING match, by plain tests (``first`` is one line).
        path = skipped = command = None
        if first.startswith(_APPLIED_WORDS) and len(first) > len(_APPLIED_WORDS):
            path, skipped = first[len(_APPLIED_WORDS) :], False
        elif first.startswith(_SKIPPED_WORDS) and len(first) > len(_SKIPPED_WORDS):
            path, skipped = first[len(_SKIPPED_WORDS) :], True
        elif first.startswith(_RUNNING_WORDS) and len(first) > len(_RUNNING_WORDS):
            command = first[len(_RUNNING_WORDS) :]
        if reply is None:
            self._pass(UNPLACED if path is not None or command is not None else STATUS)
        elif path is not None:
            self._edit_result(path, line, first, bool(skipped))
        elif command is not None:
            self._shell(command, line, first)
        elif (shell := reply.last_shell) is not None and (
            _RUN_ERROR.match(first) or _OUTPUT_ADDED.match(first)
        ):
            shell.content = f"{shell.content}\n{_output_text(raw)}"
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
        return f"{self.id}:{line}:{self.calls}"

    def _edit_call(self, path: str | None) -> ToolCall:
        """The reply's call that edits ``path`` (made on first use)."""
        assert self.reply is not None
        key = _norm(path) if path is not None else ""
        call = self.reply.edits.get(key)
        if call is None:
            line = self.reply.message.line
            arguments = {"path": key} if path is not None else {}
            call = ToolCall(self._new_id(line), EDIT_TOOL, line, arguments)
            self.reply.edits[key] = call
            self.reply.message.parts.append(call)
        return call

    def _result(self, call: ToolCall, line: int, content: str, is_error: bool | None) -> ToolResult:
        assert self.reply is not None
        result = ToolResult(call.id, line, "", True, None, is_error, content)
        self.reply.answered.add(call.id)
        self.messages.append(Message("tool", line, [result]))
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
        call = ToolCall(self._new_id(line), SHELL_TOOL, line, {"command": command})
        self.reply.message.parts.append(call)
        self.reply.last_shell = self._result(call, line, text, None)

    def _failed_match(self, line: int, text: str) -> None:
        failed: list[str] = []
        for found in _FAILED_FILE.finditer(text):
            path = found["path"].strip()
            if _line_start(text, found.start()) and path not in failed:
                failed.append(path)
        others = 0
        for count in _OTHERS_APPLIED.finditer(text):
            if _line_start(text, count.start()):
                others = int(count["count"])
                break
        self._failed_edits(line, f"{_NOT_CONFORM}\n{text}", failed, others)

    def _failed_edits(self, line: int, report: str, failed: list[str], others: int) -> None:
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
                paths: list[str | None] = [*reply.block_files()] or [None]
                targets = [self._edit_call(path) for path in paths]
        for call in targets:
            if call.id not in reply.answered:
                self._result(call, line, report, True)
        if others:
            failed_keys = {_norm(path) for path in failed}
            note = f"The other {others} SEARCH/REPLACE block(s) were applied successfully."
            for path in reply.block_files():
                if _norm(path) in failed_keys:
                    continue
                call = self._edit_call(path)
                if call.id not in reply.answered:
                    self._result(call, line, note, False)


def _line_start(text: str, offset: int) -> bool:
    """Whether only spaces and tabs come before ``offset`` on its line."""
    return not text[text.rfind("\n", 0, offset) + 1 : offset].strip(" \t")


def _norm(path: str) -> str:
    return path.strip().strip("`").replace("\\", "/")


def _block_files(text: str) -> list[str]:
    """The files a reply's SEARCH/REPLACE blocks name, in order (aider's own rule: the
    nearest of the three lines before ``<<<<<<< SEARCH`` that is not a fence, else the file
    of the block before).

    Only the lines that hold a SEARCH head and the three before each are cut out, found by
    plain search for newlines; a reply with a line break other than ``\n`` (which
    ``str.splitlines`` also breaks at) is split into all its lines instead."""
    files: list[str] = []
    at = text.find(_SEARCH_WORDS)
    if at < 0:
        return files
    for other in _OTHER_BREAKS:
        if other in text:  # one plain search each: much faster than a character class
            return _block_files_by_lines(text)
    current: str | None = None
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        if end < 0:
            end = len(text)
        if _SEARCH_HEAD.match(text[start:end].strip()):
            current = _file_above(_lines_before(text, start)) or current
            _remember(files, current)
        at = text.find(_SEARCH_WORDS, end)
    return files


def _lines_before(text: str, start: int) -> Iterator[str]:
    """The (up to three) lines of ``text`` before the line that begins at ``start``, nearest
    first."""
    before = start - 1  # the newline that ends the line before, -1 for none
    for _ in range(3):
        if before < 0:
            return
        begin = text.rfind("\n", 0, before) + 1
        yield text[begin:before]
        before = begin - 1


def _file_above(lines: Iterable[str]) -> str:
    """The file a SEARCH head's lines above name: the nearest that is not blank, a fence or a
    conflict marker, as a name ("" when it names none)."""
    for line in lines:
        line = line.strip()
        if line and not line.startswith(("```", ">>>>>>>")):
            return line.rstrip(":").strip("*").strip("#").strip().strip("`")
    return ""


def _remember(files: list[str], name: str | None) -> None:
    """Add a file a reply edits, once (names compared as ``_norm`` makes them)."""
    if name is not None and _norm(name) not in {_norm(f) for f in files}:
        files.append(name)


def _block_files_by_lines(text: str) -> list[str]:
    """``_block_files`` over all the lines of a reply, as ``str.splitlines`` cuts them."""
    files: list[str] = []
    lines = text.splitlines()
    current: str | None = None
    for index in [at for at, line in enumerate(lines) if _SEARCH_WORDS in line]:
        if not _SEARCH_HEAD.match(lines[index].strip()):
            continue
        above = (lines[back] for back in range(index - 1, max(index - 4, -1), -1))
        current = _file_above(above) or current
        _remember(files, current)
    return files
