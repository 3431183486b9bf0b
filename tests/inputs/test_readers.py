"""The shared readers: a capped file or stream, JSON Lines told line by line, a JSON document."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from execugraph.inputs import (
    TOO_DEEP,
    FileRefused,
    IssueCollector,
    first_json_line,
    read_capped_file,
    read_capped_stream,
    read_json_document,
    read_json_lines,
    read_json_object,
    split_lines,
)


def test_a_capped_file_is_read_only_when_it_is_a_regular_file_within_its_cap(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"x" * 10)
    assert read_capped_file(path, 10) == b"x" * 10
    with pytest.raises(FileRefused) as caught:
        read_capped_file(path, 9)
    assert (caught.value.kind, caught.value.size, caught.value.limit) == ("too-large", 10, 9)
    assert caught.value.describe("a benchmark file") == "10 bytes, more than the 9 a benchmark file may hold"
    with pytest.raises(FileRefused) as caught:
        read_capped_file(tmp_path, 100)
    assert caught.value.kind == "not-a-file" and "not a regular file" in str(caught.value)
    with pytest.raises(FileRefused) as caught:
        read_capped_file(tmp_path / "absent", 100)
    assert caught.value.kind == "missing" and caught.value.describe("x") == "cannot read: No such file or directory"
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        with pytest.raises(FileRefused, match="not a regular file"):
            read_capped_file(fifo, 100)  # refused without opening it (opening would wait forever)


def test_a_capped_stream_is_refused_as_soon_as_it_passes_its_cap() -> None:
    assert read_capped_stream(io.BytesIO(b"abc"), 3, "s") == b"abc"
    with pytest.raises(FileRefused) as caught:
        read_capped_stream(io.BytesIO(b"abcd"), 3, "s")
    assert caught.value.size is None and caught.value.describe("a file") == "more bytes, more than the 3 a file may hold"


def test_json_lines_tell_each_bad_line_in_one_issue_and_read_the_rest() -> None:
    data = (b'\xef\xbb\xbf{"a": 1}\r\n\n   \n[1]\n{oops\n\xff\xfe\n{"b": NaN}\n' + b"[" * 100_000 + b"\n"
            + '{"s": "x\u2028y"}'.encode() + b"\n")
    issues = IssueCollector()
    rows = list(read_json_lines(data, "f.jsonl", issues))
    assert rows == [(1, {"a": 1}), (7, {"b": None}), (9, {"s": "x\u2028y"})]
    told = [(i.line, i.message.split(" (")[0]) for i in issues.issues]
    assert told == [(4, "expected a JSON object, got list"), (5, "not valid JSON"), (6, "not UTF-8 text"),
                    (8, TOO_DEEP.split(" (")[0])]
    assert issues.issues[3].message == TOO_DEEP
    assert all(i.file == "f.jsonl" and i.field is None for i in issues.issues)
    assert str(issues.issues[1]) == "f.jsonl:5: not valid JSON (Expecting property name enclosed in double quotes at column 2)"


def test_json_lines_can_be_read_as_a_format_and_as_any_value() -> None:
    issues = IssueCollector()
    assert list(read_json_lines([(3, b"[1]"), (4, b"{")], "s.jsonl", issues, read_as="samples", objects=False)) == [
        (3, [1])]
    assert [str(i) for i in issues.issues] == [
        "s.jsonl:4: read as samples: not valid JSON (Expecting property name enclosed in double quotes at column 2)"]
    assert list(split_lines(b"\xef\xbb\xbfa\r\nb")) == [(1, b"a"), (2, b"b")]
    assert first_json_line(b"\n\n[2]\n{", "d.jsonl", issues) == (3, [2])
    assert first_json_line(b"\n \n", "d.jsonl", issues) is None


def test_a_json_document_names_the_line_where_it_broke() -> None:
    issues = IssueCollector()
    assert read_json_document(b'\xef\xbb\xbf{"a": [1]}', "m.json", issues) == {"a": [1]}
    assert read_json_object(b"[1]", "m.json", issues) is None
    assert read_json_document(b'{\n"a": }', "m.json", issues, read_as="results") is None
    assert read_json_document(b"\xff", "m.json", issues) is None
    assert [str(i) for i in issues.issues] == [
        "m.json: expected a JSON object, got list",
        "m.json:2: read as results: not valid JSON (Expecting value at column 6)",
        "m.json: not UTF-8 text ('utf-8' codec can't decode byte 0xff in position 0: invalid start byte)",
    ]


def test_every_capped_reader_refuses_through_the_shared_one_in_its_own_words(tmp_path: Path) -> None:
    from execugraph.benchmarks.errors import BenchmarkFormatError, read_suite_file
    from execugraph.grading.suite_files import FileTooLargeError, read_capped
    from execugraph.reproduce import ReproduceError, read_small_file

    big = tmp_path / "big.jsonl"
    big.write_bytes(b"x" * 2048)
    with pytest.raises(FileTooLargeError, match="big.jsonl is 2 KiB; a thing may be at most 1 KiB"):
        read_capped(big, 1024, "a thing")
    with pytest.raises(ValueError, match="not a regular file"):
        read_capped(tmp_path, 1024, "a thing")
    with pytest.raises(FileNotFoundError):
        read_capped(tmp_path / "absent", 1024, "a thing")
    with pytest.raises(BenchmarkFormatError, match=r"field \(file\): not a regular file"):
        read_suite_file(tmp_path)
    with pytest.raises(ReproduceError, match="families file of 2 KiB, over the limit of 1 KiB"):
        read_small_file(big, 1024, "families file")
    with pytest.raises(ReproduceError, match="no such families file"):
        read_small_file(tmp_path, 1024, "families file")
