"""The start of a file, decoded once, that readers recognise their format from."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from auditor.readers.streams import STREAM_ERRORS, open_bytes, plain_name

SAMPLE_BYTES = 256 << 10
SAMPLE_LINES = 60


@dataclass
class Sample:
    """The start of a file, for readers to recognise their format from."""

    path: Path
    name: str  # file name without compression suffix
    head: bytes  # the first SAMPLE_BYTES of decompressed content
    lines: list[bytes]  # the first non-blank lines of ``head``
    records: list[Any]  # each of ``lines`` decoded as JSON (None where it is not)
    parsed: list[bool] = field(default_factory=list)  # which of ``lines`` are JSON values

    @property
    def suffix(self) -> str:
        return Path(self.name).suffix.lower()

    @property
    def text(self) -> str:
        return self.head.decode("utf-8", "replace")

    def looks_like_json_document(self) -> bool:
        """The file is one JSON value spread over lines (pretty-printed or a single big line)."""
        stripped = self.head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if stripped[:1] not in (b"{", b"["):
            return False
        if len(self.lines) <= 1:
            return True
        # Pretty-printed: the first line is no JSON value of its own and few others are. A JSONL
        # file whose first line is broken still has whole values on most of its lines.
        parsed = self.parsed or [record is not None for record in self.records]
        return not parsed[0] and sum(parsed) < len(self.lines) // 2


def take_sample(path: Path) -> Sample:
    """The first ``SAMPLE_BYTES`` of a file (decompressed) and its first lines, decoded."""
    chunks: list[bytes] = []
    with open_bytes(path) as handle:
        try:  # read in pieces, so a damaged compressed stream still yields its sound start
            while sum(map(len, chunks)) < SAMPLE_BYTES and (chunk := handle.read(16 << 10)):
                chunks.append(chunk)
        except STREAM_ERRORS:
            pass
    head = b"".join(chunks)[:SAMPLE_BYTES]
    lines = [line for line in head.splitlines() if line.strip()][:SAMPLE_LINES]
    if len(head) == SAMPLE_BYTES and lines and not head.endswith(b"\n"):
        # The last line may be cut by the sample's end; a single long line is read whole.
        lines = lines[:-1] if len(lines) > 1 else [_first_line(path) or lines[0]]
    records: list[Any] = []
    parsed: list[bool] = []
    for line in lines:
        try:
            records.append(orjson.loads(line.lstrip(b"\xef\xbb\xbf")))
            parsed.append(True)
        except orjson.JSONDecodeError:
            records.append(None)
            parsed.append(False)
    return Sample(
        path=path, name=plain_name(path), head=head, lines=lines, records=records, parsed=parsed
    )


def _first_line(path: Path) -> bytes:
    """The first non-blank line of a file however long it is (one conversation of many MB)."""
    with open_bytes(path) as handle:
        try:
            for line in handle:
                if line.strip():
                    return line.rstrip(b"\r\n")
        except STREAM_ERRORS:
            pass
    return b""
