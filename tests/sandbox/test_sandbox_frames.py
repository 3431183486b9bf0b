"""The frame format: exact round trips, and oversized or malformed frames refused before use."""

from __future__ import annotations

import os
import socket
import struct

import pytest

from sandbox.frames import FrameError, FrameReader, encode_frame, read_frame, recv_frame, send_frame, write_frame


def test_reader_reassembles_frames_split_anywhere():
    data = encode_frame({"a": 1}) + encode_frame({"b": [2, 3]})
    for cut in range(len(data) + 1):
        reader = FrameReader()
        assert reader.feed(data[:cut]) + reader.feed(data[cut:]) == [{"a": 1}, {"b": [2, 3]}]


@pytest.mark.parametrize("payload", [b"[1, 2]", b"not json", b'"text"', b"\xff\xfe"])
def test_non_object_frames_are_errors(payload):
    with pytest.raises(FrameError):
        FrameReader().feed(struct.pack(">I", len(payload)) + payload)


def test_oversized_frames_are_refused_from_the_header_alone():
    with pytest.raises(FrameError, match="exceeds"):
        FrameReader(max_bytes=10).feed(struct.pack(">I", 11))


def test_pipe_round_trip_and_eof():
    r, w = os.pipe()
    write_frame(w, {"x": "y" * 1000})
    os.close(w)
    assert read_frame(r) == {"x": "y" * 1000}
    with pytest.raises(EOFError):
        read_frame(r)
    os.close(r)


def test_socket_frames_carry_descriptors():
    a, b = socket.socketpair()
    r, w = os.pipe()
    send_frame(a, {"job": 1}, [r])
    frame, fds = recv_frame(b, FrameReader())
    assert frame == {"job": 1} and len(fds) == 1
    os.write(w, b"ok")
    assert os.read(fds[0], 2) == b"ok"
    for fd in (r, w, *fds):
        os.close(fd)
    a.close()
    with pytest.raises(EOFError):
        recv_frame(b, FrameReader())
    b.close()
