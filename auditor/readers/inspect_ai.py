"""Inspect AI eval logs (UK AISI's ``inspect_ai``): ``.json`` logs and ``.eval`` zip archives.

A ``.json`` log is one object ``{"version", "status", "eval", "plan", "results", "stats",
"samples": [...], "reductions"}``. A ``.eval`` log is a zip archive holding the same in
members: ``header.json`` (the log without its samples), ``samples/<id>_epoch_<n>.json`` (one
sample each), ``summaries.json``, ``reductions.json`` and ``_journal/…``. Inspect compresses
the members with zstd (zip method 93), which Python's ``zipfile`` cannot open: each member's
bytes are read through the archive's own headers and decompressed with ``zstandard``
(stored and deflated members are read by ``zipfile`` itself).

A sample is one conversation per sample and epoch: ``{"id", "epoch", "input", "target",
"messages": [...], "events", "scores", "attachments", ...}``. ``messages`` are chat messages:

- ``system``, ``user`` and ``assistant`` messages, ``content`` a string or content blocks
  (``text`` blocks are read; ``reasoning`` and images are not the reply);
- assistant ``tool_calls``: ``[{"id", "function": <name>, "arguments": {...}}]``;
- ``tool`` messages: ``{"tool_call_id", "function", "content", "error"}`` where ``error`` is
  null or a ``ToolCallError`` ``{"type", "message"}`` (``parsing``, ``timeout``,
  ``permission``, ``file_not_found``, ``limit``, ``approval``, ``output_limit``, …): the
  format's failure flag (``ToolResult.is_error``, pointer ``…/error``). A result with
  ``error: null`` is ``is_error=False``; a failure only written in its text (``Process exited
  with code 127``) is left to the outcome rules. A failed result with no text of its own
  carries the error's message (content under ``error/message``).

Long texts may be stored once in the sample's ``attachments`` and referred to as
``attachment://<hash>``: such references in messages are replaced by the text.

The person's request is the sample's input: user messages marked ``source: "input"``, or whose
text is the sample's ``input``. Other user messages come from the harness (an agent's
environment context, "please proceed" nudges) and do not start a turn; when no user message
is the input, the first one is taken as the request.

A tool message whose call is in none of the sample's assistant messages (Inspect's own schema
fixtures hold such lone tool messages) has nothing to be paired with: it is passed over and
counted, not audited as a result of an unknown call.

``samples[].events`` repeat the messages as ``model`` / ``tool`` events and are not read
again. The log's header (eval spec, plan, results, stats, reductions) and, in ``.eval``
archives, every member other than a sample, are passed over and counted.

- conversation id: ``<eval_id>/<sample id>/epoch-<n>`` (``run_id``, else the file name, when
  the log has no ``eval_id``), the same for a run's ``.json`` and ``.eval`` copies;
- ``line``: the line where the sample starts in a ``.json`` log; 1 in a ``.eval`` archive,
  whose member is named in the conversation's ``metadata["member"]``;
- a result's ``pointer``: ``/samples/<i>/messages/<j>`` in a ``.json`` log,
  ``/messages/<j>`` inside a ``.eval`` sample member.
"""

from __future__ import annotations

import json
import re
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

import orjson
import zstandard

from auditor.model import Conversation, Message, Reject, TextPart, ToolCall, ToolResult
from auditor.readers.conversations import as_text, decode_arguments, is_scalar
from auditor.readers.json_stream import array_items, parse_document
from auditor.readers.protocol import LIKELY, SURE
from auditor.readers.result import ReadResult, excerpt
from auditor.readers.sampling import Sample
from auditor.readers.stamps import moment
from auditor.readers.streams import plain_name, read_text

NAME = "inspect_ai"
DESCRIPTION = (
    "Inspect AI eval logs, .json and .eval archives (samples[].messages; tool messages with error)"
)
READS_SPANS = False
looks_like = None  # recognised from the whole sample, by sniff

ZIP_MAGIC = b"PK\x03\x04"
ZSTD_METHOD = 93  # the zip compression method number of zstd
HEADER = "inspect log header (eval spec, plan, results, stats, reductions)"
MEMBER = "inspect .eval member without a sample ({})"
NO_SAMPLES = "inspect log without samples (header only)"
NO_CALL = "inspect tool message whose call is not in the sample's messages"

_LOG_START = re.compile(
    r'^\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:\s*"[a-z_]+"\s*,\s*"eval"\s*:\s*\{'
)
_EVAL_MARKERS = ('"eval"', '"run_id"', '"task"', '"task_id"', '"dataset"', '"model"')
_EVAL_KEY = re.compile(r'"eval"\s*:\s*\{')
_DECODER = json.JSONDecoder()
_SAMPLE_MEMBER = re.compile(r"^samples/.+\.json$")
_ATTACHMENT = "attachment://"
_QUOTED_ATTACHMENT = b'"' + _ATTACHMENT.encode()  # how a reference starts in JSON
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")  # signature ... name length, extra length


# ----------------------------------------------------------------------------- detection
def sniff(sample: Sample) -> int:
    head = sample.head
    if head.startswith(ZIP_MAGIC):
        return _sniff_archive(head, sample.suffix)
    if not sample.looks_like_json_document():
        return 0
    first = sample.records[0] if sample.records else None
    if first is not None:
        return SURE if _is_log(first) else 0
    text = sample.text.lstrip("\ufeff \t\r\n")
    if _LOG_START.match(text):
        return SURE
    if text.startswith("{") and all(marker in text for marker in _EVAL_MARKERS):
        return LIKELY if '"samples"' in text or '"plan"' in text else 0
    return 0


def _sniff_archive(head: bytes, suffix: str) -> int:
    """A zip archive is an Inspect log when its first member is one Inspect writes."""
    if len(head) < _LOCAL_HEADER.size:
        return 0
    name_length = _LOCAL_HEADER.unpack_from(head)[-2]
    name = head[_LOCAL_HEADER.size : _LOCAL_HEADER.size + name_length]
    if name in (b"_journal/start.json", b"header.json") or name.startswith(b"samples/"):
        return SURE
    return LIKELY if suffix == ".eval" else 0


def _is_log(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("eval"), dict)
        and "task" in value["eval"]
        and ("samples" in value or "plan" in value or "status" in value)
    )


# ----------------------------------------------------------------------------- reading
def read(path: Path, source: str) -> ReadResult:
    with open(path, "rb") as handle:
        archive = handle.read(4) == ZIP_MAGIC
    return _read_archive(path, source) if archive else _read_json(path, source)


def _read_json(path: Path, source: str) -> ReadResult:
    result = ReadResult()
    text = read_text(path, source, result.rejects)
    if text is None:
        return result
    document = array_items(text, source, result.rejects, keys=("samples",))
    if document.malformed:
        return result
    spec = _eval_spec(text)
    if document.pointer is None:
        # No samples list: a log header alone (a run that wrote no samples), or not a log.
        if spec is None:
            result.rejects.append(
                Reject(source=source, line=1, reason="not an Inspect log (no eval object)")
            )
        else:
            result.pass_over(NO_SAMPLES)
        return result
    log = _Log({"eval": spec or {}}, plain_name(path))
    result.pass_over(HEADER)
    for index, line, value in document.records:
        where = f"{document.pointer}/{index}"
        _read_sample(value, log, source, line, where, result, {})
    return result


def _eval_spec(text: str) -> dict[str, Any] | None:
    """The log's ``eval`` object, which comes before the samples: decoded alone, without
    decoding the whole document a second time."""
    match = _EVAL_KEY.search(text)
    if match is None:
        return None
    try:
        value = _DECODER.raw_decode(text, match.end() - 1)[0]
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _read_archive(path: Path, source: str) -> ReadResult:
    result = ReadResult()
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        result.rejects.append(
            Reject(source=source, line=1, reason=f"unreadable .eval archive: {exc}")
        )
        return result
    with archive, open(path, "rb") as raw:
        members = [info for info in archive.infolist() if not info.is_dir()]
        header: dict[str, Any] = {}
        for name in ("header.json", "_journal/start.json"):
            info = next((m for m in members if m.filename == name), None)
            value = _member_json(archive, raw, info, source, result) if info else None
            if isinstance(value, dict):
                header = value
                break
        log = _Log(header, plain_name(path))
        for info in members:
            if not _SAMPLE_MEMBER.match(info.filename):
                result.pass_over(MEMBER.format(_member_kind(info.filename)))
                continue
            sample = _member_json(archive, raw, info, source, result)
            if sample is None:
                continue
            _read_sample(sample, log, source, 1, "", result, {"member": info.filename})
    return result


def _member_kind(name: str) -> str:
    if name.startswith("_journal/"):
        return "journal"
    return name.rsplit("/", 1)[-1].removesuffix(".json")


def _member_json(
    archive: zipfile.ZipFile,
    raw: Any,
    info: zipfile.ZipInfo,
    source: str,
    result: ReadResult,
) -> Any | None:
    """One member decoded as JSON, or None with a reject naming the member."""
    try:
        data = _member_bytes(archive, raw, info)
    except (zipfile.BadZipFile, zstandard.ZstdError, OSError, EOFError, ValueError) as exc:
        result.rejects.append(
            Reject(source=source, line=1, reason=f"unreadable .eval member {info.filename}: {exc}")
        )
        return None
    rejects: list[Reject] = []
    value = parse_document(data, source, rejects)
    for reject in rejects:
        reject.reason = f"{reject.reason} in .eval member {info.filename}"
    result.rejects.extend(rejects)
    return value


def _member_bytes(archive: zipfile.ZipFile, raw: Any, info: zipfile.ZipInfo) -> bytes:
    """The uncompressed bytes of a member: zstd members through the archive's local header,
    the others through ``zipfile``."""
    if info.compress_type != ZSTD_METHOD:
        return archive.read(info)
    raw.seek(info.header_offset)
    fixed = raw.read(_LOCAL_HEADER.size)
    if len(fixed) < _LOCAL_HEADER.size or not fixed.startswith(ZIP_MAGIC):
        raise zipfile.BadZipFile(f"no local header at offset {info.header_offset}")
    fields = _LOCAL_HEADER.unpack(fixed)
    raw.seek(info.header_offset + _LOCAL_HEADER.size + fields[-2] + fields[-1])
    packed = raw.read(info.compress_size)
    if len(packed) < info.compress_size:
        raise EOFError("archive ends inside the member")
    # At most the size the archive declares, and checked against its CRC: a damaged or lying
    # member is a reject, never a flood of memory.
    data = zstandard.ZstdDecompressor().decompress(packed, max_output_size=info.file_size)
    if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
        raise zipfile.BadZipFile("member does not match its size and CRC")
    return data


# ----------------------------------------------------------------------------- samples
class _Log:
    """What every sample of one log shares: the id prefix and the run's metadata."""

    def __init__(self, header: dict[str, Any], file_name: str):
        spec = header.get("eval") if isinstance(header.get("eval"), dict) else {}
        run = next(
            (str(spec[key]) for key in ("eval_id", "run_id") if is_scalar(spec.get(key))),
            file_name,
        )
        self.run = run
        self.metadata = {
            key: spec[key] for key in ("task", "model") if is_scalar(spec.get(key)) and spec[key]
        }
        self.created = moment(spec.get("created"))


def _read_sample(
    sample: Any,
    log: _Log,
    source: str,
    line: int,
    pointer: str,
    result: ReadResult,
    extra: dict[str, Any],
) -> None:
    if not isinstance(sample, dict) or not isinstance(sample.get("messages"), list):
        result.rejects.append(
            Reject(
                source=source,
                line=line,
                reason="Inspect sample without a messages list"
                + (f" at {pointer}" if pointer else f" in {extra.get('member')}"),
                excerpt=excerpt(sample),
            )
        )
        return
    sample_id = sample.get("id") if is_scalar(sample.get("id")) else "?"
    epoch = sample.get("epoch") if is_scalar(sample.get("epoch")) else 1
    metadata = {**log.metadata, "sample_id": sample_id, "epoch": epoch, **extra}
    score = _score(sample.get("scores"))
    if score is not None:
        metadata["score"] = score
    conversation = Conversation(
        id=f"{log.run}/{sample_id}/epoch-{epoch}",
        source=source,
        format=NAME,
        line=line,
        metadata=metadata,
        timestamp=moment(sample.get("started_at")) or log.created,
    )
    attachments = sample.get("attachments")
    resolve = _Attachments(attachments) if isinstance(attachments, dict) and attachments else None
    _messages(sample, conversation, f"{pointer}/messages", result, resolve)
    result.conversations.append(conversation)


def _score(scores: Any) -> Any:
    """The first scorer's value, when it is a plain value (``C``, ``I``, 0.5)."""
    if not isinstance(scores, dict) or not scores:
        return None
    first = next(iter(scores.values()))
    value = first.get("value") if isinstance(first, dict) else None
    return value if is_scalar(value) else None


class _Attachments:
    """Replaces ``attachment://<hash>`` references by the texts the sample stores."""

    def __init__(self, stored: dict[str, Any]):
        self.stored = stored

    def __call__(self, value: Any) -> Any:
        """``value`` with its references replaced; itself when its JSON holds no string that
        starts like one (most messages: they are not copied)."""
        try:
            if _QUOTED_ATTACHMENT not in orjson.dumps(value):
                return value
        except (TypeError, orjson.JSONEncodeError):  # an integer past 64 bits, say
            pass
        return self._resolve(value)

    def _resolve(self, value: Any) -> Any:
        if isinstance(value, str):
            if value.startswith(_ATTACHMENT):
                found = self.stored.get(value[len(_ATTACHMENT) :])
                return found if isinstance(found, str) else value
            return value
        if isinstance(value, list):
            return [self._resolve(item) for item in value]
        if isinstance(value, dict):
            return {key: self._resolve(item) for key, item in value.items()}
        return value


def _input_texts(sample: dict[str, Any]) -> set[str]:
    """The texts of the sample's input: a string, or the user messages of a list."""
    given = sample.get("input")
    if isinstance(given, str):
        return {given.strip()} if given.strip() else set()
    texts = set()
    if isinstance(given, list):
        for message in given:
            if isinstance(message, dict) and message.get("role") == "user":
                text = as_text(message.get("content")).strip()
                if text:
                    texts.add(text)
    return texts


def _messages(
    sample: dict[str, Any],
    conversation: Conversation,
    pointer: str,
    result: ReadResult,
    resolve: _Attachments | None,
) -> None:
    line, source = conversation.line, conversation.source
    inputs = _input_texts(sample)
    first_user: Message | None = None
    request_found = False
    called: set[str] = set()

    def reject(reason: str, value: Any, where: str) -> None:
        result.rejects.append(
            Reject(source=source, line=line, reason=f"{reason} at {where}", excerpt=excerpt(value))
        )

    for index, message in enumerate(sample["messages"]):
        where = f"{pointer}/{index}"
        if not isinstance(message, dict):
            reject("message is not an object", message, where)
            continue
        if resolve is not None:
            message = resolve(message)
        role = message.get("role")
        if role == "tool":
            tool_result = _tool_result(message, where, line)
            if tool_result is None:
                reject("tool message without a tool_call_id", message, where)
                continue
            if tool_result.call_id not in called:
                result.pass_over(NO_CALL)
                continue
            conversation.messages.append(Message(role="tool", line=line, parts=[tool_result]))
        elif role == "assistant":
            assistant = _assistant(message, where, line, reject)
            called.update(p.id for p in assistant.parts if isinstance(p, ToolCall))
            conversation.messages.append(assistant)
        elif role == "user":
            text = as_text(message.get("content"))
            request = message.get("source") == "input" or text.strip() in inputs
            request_found = request_found or request
            user = Message(
                role="user", line=line, from_person=request, parts=[TextPart(text=text, line=line)]
            )
            first_user = first_user or user
            conversation.messages.append(user)
        elif role == "system":
            text = as_text(message.get("content"))
            conversation.messages.append(
                Message(role="system", line=line, parts=[TextPart(text=text, line=line)])
            )
        else:
            reject(f"message with unknown role {role!r}", message, where)
    if not request_found and first_user is not None:
        first_user.from_person = True


def _assistant(message: dict[str, Any], where: str, line: int, reject: Any) -> Message:
    parts: list[TextPart | ToolCall] = []
    text = as_text(message.get("content"))
    if text.strip():
        parts.append(TextPart(text=text, line=line))
    calls = message.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        reject("tool_calls is not a list", calls, f"{where}/tool_calls")
        calls = None
    for position, call in enumerate(calls or []):
        call_where = f"{where}/tool_calls/{position}"
        if not isinstance(call, dict):
            reject("tool call is not an object", call, call_where)
        elif not is_scalar(call.get("id")) or str(call["id"]) == "":
            reject("tool call without an id", call, call_where)
        else:
            name = call.get("function")
            if isinstance(name, dict):  # an OpenAI-shaped call kept as it came
                name = name.get("name")
            parts.append(
                ToolCall(
                    id=str(call["id"]),
                    name=str(name or ""),
                    arguments=decode_arguments(call.get("arguments")),
                    line=line,
                )
            )
    message_id = message.get("id")
    return Message(
        role="assistant",
        line=line,
        parts=parts,
        message_id=str(message_id) if is_scalar(message_id) else None,
    )


def _tool_result(message: dict[str, Any], where: str, line: int) -> ToolResult | None:
    call_id = message.get("tool_call_id")
    if not is_scalar(call_id) or str(call_id) == "":
        return None
    error = message.get("error")
    content = message.get("content")
    content_key = "content"
    message_text = error.get("message") if isinstance(error, dict) else None
    if isinstance(message_text, str) and not as_text(content).strip():
        # A failed call with no output of its own: the error's message is what came back.
        content, content_key = message_text, "error/message"
    return ToolResult(
        call_id=str(call_id),
        line=line,
        pointer=where,
        is_error=error is not None and error is not False,
        content=content,
        content_key=content_key,
        flag_key="error",
    )
