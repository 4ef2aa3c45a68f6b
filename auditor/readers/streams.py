"""Opening transcript files: plain, gzip or zstd (recognised by their magic bytes), read whole
or as a stream, and the errors a damaged compressed stream raises."""

from __future__ import annotations

import io
import zlib
from pathlib import Path
from typing import IO, Any

import zstandard

from auditor.model import Reject

COMPRESSED = {".gz": "gzip", ".zst": "zstd"}
GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def plain_name(path: Path) -> str:
    """The file name without a compression suffix (``a.jsonl.gz`` -> ``a.jsonl``)."""
    name = path.name
    for suffix in COMPRESSED:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


# Read buffer: a transcript's lines are often longer than the default 8 KB, and iterating
# over lines longer than the buffer reads and joins each in pieces (5 times slower).
BUFFER_BYTES = 1 << 20


def open_bytes(path: Path) -> IO[bytes]:
    """The decompressed bytes of a file: gzip and zstd are recognised by their magic bytes
    (so compressed standard input works too), other files are read as they are."""
    # Returned to the caller, or closed with its reader.
    raw = open(path, "rb", buffering=BUFFER_BYTES)  # noqa: SIM115
    magic = _magic(raw) if isinstance(raw, io.BufferedReader) else b""
    if magic.startswith(GZIP_MAGIC):
        return io.BufferedReader(_GzipStream(raw), BUFFER_BYTES)
    if magic.startswith(ZSTD_MAGIC):
        stream = zstandard.ZstdDecompressor().stream_reader(raw, closefd=True)
        return io.BufferedReader(stream, BUFFER_BYTES)
    return raw


def _magic(raw: io.BufferedReader) -> bytes:
    """The first four bytes of a stream, which is left where it was. ``peek`` hands out all the
    buffered bytes as a copy, a megabyte of them for 4 (the most of a small read's cost): a
    file that can seek is read and sought back to its start, inside the buffer; a pipe is
    peeked at."""
    if not raw.seekable():
        return raw.peek(4)[:4]
    magic = raw.read(4)
    raw.seek(0)
    return magic


class _GzipStream(io.RawIOBase):
    """Gzip decompression that hands out everything a damaged or cut-off file still holds
    before it raises ``EOFError`` (the standard ``gzip`` module raises before handing out the
    last part). Concatenated gzip members are read one after another."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._pending:
            chunk = self._inflate.unused_data or self._raw.read(64 << 10)
            if self._inflate.eof:
                if not chunk:
                    return 0
                self._inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
            elif not chunk:
                raise EOFError("compressed file ended before the end-of-stream marker")
            self._pending = self._inflate.decompress(chunk)
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size

    def close(self) -> None:
        self._raw.close()
        super().close()


# Errors a damaged compressed stream raises part way through.
STREAM_ERRORS = (EOFError, OSError, zlib.error, zstandard.ZstdError)


def broken_stream(source: str, line: int, error: Exception, offset: int | None = None) -> Reject:
    """The reject of a compressed file that cannot be read on from ``line`` (where the stream
    broke)."""
    return Reject(
        source=source, line=line, offset=offset, reason=f"unreadable compressed stream: {error}"
    )


def read_bytes(path: Path, source: str, rejects: list[Reject]) -> bytes | None:
    """A whole (decompressed) file, or None with a reject when it cannot be read."""
    try:
        with open_bytes(path) as handle:
            return handle.read()
    except STREAM_ERRORS as exc:
        rejects.append(broken_stream(source, 1, exc))
        return None


def read_text(path: Path, source: str, rejects: list[Reject]) -> str | None:
    """A whole (decompressed) file as text, or None with a reject when it cannot be read."""
    data = read_bytes(path, source, rejects)
    return None if data is None else data.decode("utf-8", "replace").lstrip("\ufeff")
