"""Writing ``.eval`` archives as Inspect does: a zip whose members are zstd-compressed (method
93), which Python's ``zipfile`` cannot write."""

from __future__ import annotations

import struct
import zlib

import zstandard

ZSTD_METHOD = 93
VERSION = 63  # zip 6.3, the first to name zstd


def eval_archive(members: dict[str, bytes], method: int = ZSTD_METHOD) -> bytes:
    """A zip archive of ``members`` (name -> bytes), zstd-compressed unless ``method`` is 0."""
    local, central = bytearray(), bytearray()
    for name, data in members.items():
        packed = zstandard.ZstdCompressor().compress(data) if method == ZSTD_METHOD else data
        crc = zlib.crc32(data)
        encoded = name.encode()
        offset = len(local)
        local += struct.pack(
            "<4s5H3L2H", b"PK\x03\x04", VERSION, 0, method, 0, 0x21,
            crc, len(packed), len(data), len(encoded), 0,
        )  # fmt: skip
        local += encoded + packed
        central += struct.pack(
            "<4s6H3L5H2L", b"PK\x01\x02", VERSION, VERSION, 0, method, 0, 0x21,
            crc, len(packed), len(data), len(encoded), 0, 0, 0, 0, 0, offset,
        )  # fmt: skip
        central += encoded
    end = struct.pack(
        "<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members),
        len(central), len(local), 0,
    )  # fmt: skip
    return bytes(local + central + end)
