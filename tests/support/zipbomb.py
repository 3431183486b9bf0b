"""Build real zip bombs for the import tests: megabytes on disk, gigabytes once unpacked.

`write_bomb` streams one highly repetitive trials.jsonl (valid records of the
published layout, all alike) through zlib into a zip, a chunk at a time, so
building a 1.5 GiB bomb needs a few megabytes of memory. `write_lying_bomb`
writes the same kind of data by hand with headers that claim the member is
tiny, the trick that defeats importers trusting the declared sizes.
"""

from __future__ import annotations

import json
import struct
import zipfile
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


def write_bomb(path: Path, unpacked: int) -> int:
    """A zip whose one member unpacks to about `unpacked` bytes (its headers honest); returns the exact size."""
    chunk = _chunk()
    written = 0
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        with archive.open(MEMBER, "w", force_zip64=True) as member:
            while written + len(chunk) <= unpacked:
                member.write(chunk)
                written += len(chunk)
    return written


def write_lying_bomb(path: Path, unpacked: int, claimed: int = 64 * 1024) -> int:
    """A zip whose member unpacks to about `unpacked` bytes while its headers claim `claimed`; returns the real size."""
    chunk = _chunk()
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    crc = 0
    written = 0
    name = MEMBER.encode("ascii")
    with path.open("wb") as out:
        out.write(b"\0" * (30 + len(name)))  # the local header, filled in once the sizes are known
        compressed = 0
        while written + len(chunk) <= unpacked:
            data = compressor.compress(chunk)
            out.write(data)
            compressed += len(data)
            crc = zlib.crc32(chunk, crc)
            written += len(chunk)
        tail = compressor.flush()
        out.write(tail)
        compressed += len(tail)
        fields = (20, 0, 8, 0, 0x21, crc, compressed, claimed, len(name), 0)
        local = struct.pack("<IHHHHHIIIHH", 0x04034B50, *fields) + name
        central_start = out.tell()
        central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, *fields, 0, 0, 0, 0, 0) + name
        out.write(central)
        out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), central_start, 0))
        out.seek(0)
        out.write(local)
    return written
