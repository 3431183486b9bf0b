"""Length-prefixed JSON frames: the one wire format between host, worker and job processes.

Every reader enforces a size cap before allocating, and only JSON objects are
accepted, so a process that writes garbage produces a FrameError, never a
half-understood message.
"""

from __future__ import annotations

import json
import os
import socket
import struct
from typing import Any

HEADER = struct.Struct(">I")
MAX_FRAME = 1 << 30


class FrameError(Exception):
    """A frame that is oversized, truncated or not a JSON object."""


def encode_frame(obj: dict[str, Any]) -> bytes:
    data = json.dumps(obj, separators=(",", ":")).encode("utf-8")
    if len(data) > MAX_FRAME:
        raise FrameError(f"frame of {len(data)} bytes exceeds {MAX_FRAME}")
    return HEADER.pack(len(data)) + data


def parse_payload(data: bytes | bytearray) -> dict[str, Any]:
    try:
        obj = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise FrameError(f"frame is not valid JSON: {exc}") from None
    if type(obj) is not dict:
        raise FrameError(f"frame is a JSON {type(obj).__name__}, not an object")
    return obj


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def write_frame(fd: int, obj: dict[str, Any]) -> None:
    write_all(fd, encode_frame(obj))


def _read_exact(fd: int, size: int) -> bytes:
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            raise EOFError("channel closed")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int, max_bytes: int = MAX_FRAME) -> dict[str, Any]:
    """Blocking read of one frame from a pipe (used inside job processes)."""
    (size,) = HEADER.unpack(_read_exact(fd, HEADER.size))
    if size > max_bytes:
        raise FrameError(f"frame of {size} bytes exceeds the {max_bytes}-byte limit")
    return parse_payload(_read_exact(fd, size))


class FrameReader:
    """Incremental decoder for non-blocking pipes and sockets."""

    def __init__(self, max_bytes: int = MAX_FRAME) -> None:
        self.max_bytes = max_bytes
        self.buffer = bytearray()
        self.pending: list[dict[str, Any]] = []

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        self.buffer += data
        frames = []
        while len(self.buffer) >= HEADER.size:
            (size,) = HEADER.unpack_from(self.buffer)
            if size > self.max_bytes:
                raise FrameError(f"frame of {size} bytes exceeds the {self.max_bytes}-byte limit")
            if len(self.buffer) < HEADER.size + size:
                break
            payload = bytes(self.buffer[HEADER.size : HEADER.size + size])
            del self.buffer[: HEADER.size + size]
            frames.append(parse_payload(payload))
        return frames


def send_frame(sock: socket.socket, obj: dict[str, Any], fds: list[int] | tuple[int, ...] = ()) -> None:
    """Send one frame on a stream socket, passing `fds` (SCM_RIGHTS) with its first bytes."""
    data = encode_frame(obj)
    sent = socket.send_fds(sock, [data], list(fds)) if fds else sock.send(data)
    if sent < len(data):
        sock.sendall(data[sent:])


def recv_frame(sock: socket.socket, reader: FrameReader, max_fds: int = 8) -> tuple[dict[str, Any], list[int]]:
    """Receive one frame (and any descriptors sent with it) from a stream socket; EOFError at close."""
    fds: list[int] = []
    while not reader.pending:
        data, new_fds, _flags, _addr = socket.recv_fds(sock, 1 << 16, max_fds)
        fds.extend(new_fds)
        if not data:
            for fd in fds:
                os.close(fd)
            raise EOFError("peer closed the channel")
        reader.pending.extend(reader.feed(data))
    return reader.pending.pop(0), fds
