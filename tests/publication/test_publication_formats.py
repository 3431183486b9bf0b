"""The bundle's value codecs, input readers and error messages."""

from __future__ import annotations

import io
import math
import zipfile
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from execugraph.publication.export import zip_bytes
from execugraph.publication.formats import (
    BundleFormatError,
    Issue,
    IssueCollector,
    decode_datetime,
    decode_float,
    dumps,
    encode_datetime,
    encode_float,
    iter_jsonl,
)
from execugraph.publication.layout import CODECS, TRIALS, trial_verdict
from execugraph.publication.results import content_digest
from execugraph.publication.source import read_input, read_zip_bytes


def test_datetimes_round_trip_in_utc_with_microseconds() -> None:
    moment = datetime(2025, 3, 4, 5, 6, 7, tzinfo=UTC)
    assert encode_datetime(moment) == "2025-03-04T05:06:07.000000+00:00"
    plus_two = moment.astimezone(timezone(timedelta(hours=2)))
    assert encode_datetime(plus_two) == "2025-03-04T05:06:07.000000+00:00"
    assert decode_datetime(encode_datetime(moment)) == moment
    with pytest.raises(ValueError, match="no UTC offset"):
        decode_datetime("2025-03-04T05:06:07")


def test_non_finite_floats_survive_as_strings() -> None:
    for value in (math.inf, -math.inf, 0.1 + 0.2, 1e-300):
        assert decode_float(encode_float(value)) == value
    assert math.isnan(decode_float(encode_float(math.nan)))
    with pytest.raises(ValueError):
        decode_float(True)
    assert dumps({"b": 1, "a": "é"}) == '{"a":"\\u00e9","b":1}'


def test_codec_names_every_bad_field_of_a_line() -> None:
    issues = IssueCollector()
    line = {"id": 1, "run_id": "one", "problem_id": "fib", "condition": "c", "seed": True, "surprise": 0}
    CODECS[TRIALS].decode(line, 7, issues)
    found = {(i.line, i.field) for i in issues.issues}
    assert {(7, "run_id"), (7, "seed"), (7, "surprise")} <= found
    with pytest.raises(BundleFormatError) as caught:
        issues.raise_if_any()
    assert caught.value.line == 7 and "more:" in str(caught.value)


def test_jsonl_reader_reports_line_numbers_and_skips_blank_lines() -> None:
    issues = IssueCollector()
    rows = list(iter_jsonl(b'{"a": 1}\n\n[1, 2]\n{"b": 2}\n{oops\n', "f.jsonl", issues))
    assert rows == [(1, {"a": 1}), (4, {"b": 2})]
    assert [str(i) for i in issues.issues] == [
        "f.jsonl:3: expected a JSON object, got list",
        "f.jsonl:5: not valid JSON (Expecting property name enclosed in double quotes at column 2)",
    ]
    assert str(Issue("x.json", None, "format", "wrong")) == "x.json: field 'format': wrong"


def test_verdict_words() -> None:
    assert trial_verdict("done", True, None) == "passed"
    assert trial_verdict("done", False, "timeout") == "timeout"
    assert trial_verdict("done", False, None) == "failed"
    assert trial_verdict("error", False, None) == "error"
    assert trial_verdict("queued", None, None) == "queued"


def test_zips_are_deterministic_and_unsafe_members_refused(tmp_path: Path) -> None:
    files = {"b.txt": b"2", "a/x.json": b"{}"}
    assert zip_bytes(files) == zip_bytes(dict(reversed(list(files.items()))))
    assert dict(read_zip_bytes(zip_bytes(files)).under("")) == files
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("../evil.txt", b"x")
    with pytest.raises(BundleFormatError, match="unsafe path"):
        read_zip_bytes(buffer.getvalue(), name="evil")
    with pytest.raises(BundleFormatError, match="not a readable zip"):
        read_zip_bytes(b"PK not really", name="junk")
    (tmp_path / "tree" / "__MACOSX").mkdir(parents=True)
    (tmp_path / "tree" / "__MACOSX" / "x").write_text("ignored")
    (tmp_path / "tree" / "run").mkdir()
    (tmp_path / "tree" / "run" / "trials.jsonl").write_text("{}\n")
    assert dict(read_input(tmp_path / "tree").under("")) == {"run/trials.jsonl": b"{}\n"}
    with pytest.raises(FileNotFoundError):
        read_input(tmp_path / "missing")


def test_content_digest_ignores_order_but_not_names_or_bytes() -> None:
    a = content_digest({"x": b"1", "y": b"2"})
    assert a == content_digest({"y": b"2", "x": b"1"})
    assert a != content_digest({"x": b"1", "z": b"2"}) and a != content_digest({"x": b"1", "y": b"3"})
