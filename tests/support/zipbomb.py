"""Build real zip bombs for the import tests: megabytes on disk, gigabytes once unpacked.

`write_bomb` writes one highly repetitive trials.jsonl (valid records of the
published layout, all alike), deflated, into a zip with honest headers, a chunk
at a time, so building a 1.5 GiB bomb needs a few megabytes of memory and
seconds. `write_lying_bomb` writes the same data with headers that claim the
member is tiny, the trick that defeats importers trusting the declared sizes.
"""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

RECORD = (
    json.dumps(
        {
            "problem_id": "p0",
            "condition": "single-oneshot",
            "seed": 0,
            "trial": 0,
            "passed": True,
            "code": "def f(x):\n    return x\n" + "#" * 200,
        }
    )
    + "\n"
).encode("ascii")
MEMBER = "results/run-1/trials.jsonl"


def _chunk(size: int = 1024**2) -> bytes:
    return RECORD * (size // len(RECORD))


def _repeated_deflate(chunk: bytes, count: int) -> tuple[bytes, bytes, int]:
    """One raw-deflate block for `chunk`, the stream's end, and the CRC-32 of `count` chunks in a row.

    A full flush resets the compressor, so every chunk compresses to the same bytes: the stream is that block
    `count` times and then the end, and a 1.5 GiB bomb costs one compression instead of 1,536 (a minute under load).
    """
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    tail = compressor.flush()
    crc = 0
    for _ in range(count):
        crc = zlib.crc32(chunk, crc)
    return block, tail, crc


def _write_zip(path: Path, unpacked: int, claimed: int | None) -> int:
    """One deflated member of about `unpacked` bytes whose headers claim `claimed` (None: the truth)."""
    chunk = _chunk()
    count = unpacked // len(chunk)
    written = count * len(chunk)
    block, tail, crc = _repeated_deflate(chunk, count)
    name = MEMBER.encode("ascii")
    compressed = count * len(block) + len(tail)
    fields = (20, 0, 8, 0, 0x21, crc, compressed, written if claimed is None else claimed, len(name), 0)
    with path.open("wb") as out:
        out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, *fields) + name)
        for _ in range(count):
            out.write(block)
        out.write(tail)
        central_start = out.tell()
        central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, *fields, 0, 0, 0, 0, 0) + name
        out.write(central)
        out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), central_start, 0))
    return written


def write_bomb(path: Path, unpacked: int) -> int:
    """A zip whose one member unpacks to about `unpacked` bytes (its headers honest); returns the exact size."""
    return _write_zip(path, unpacked, None)


def write_lying_bomb(path: Path, unpacked: int, claimed: int = 64 * 1024) -> int:
    """A zip whose member unpacks to about `unpacked` bytes while its headers claim `claimed`; returns the real size."""
    return _write_zip(path, unpacked, claimed)
