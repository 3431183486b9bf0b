"""`python -m sandbox check` refuses bad input with exit status 2 and a message naming the problem (no worker starts)."""

from __future__ import annotations

import json

import pytest

from sandbox.cli import main


@pytest.fixture
def files(tmp_path):
    code = tmp_path / "code.py"
    code.write_text("def f():\n    return 1\n")
    tests = tmp_path / "tests.json"
    tests.write_text(json.dumps({"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": 1}]}))
    return code, tests


def check(capsys, *argv: str) -> tuple[int, str]:
    status = main(["check", *argv])
    captured = capsys.readouterr()
    assert captured.out == "", "nothing may be printed on stdout when refusing input"
    return status, captured.err


def test_missing_code_file(capsys, files, tmp_path):
    _, tests = files
    status, err = check(capsys, "--code", str(tmp_path / "absent.py"), "--tests", str(tests))
    assert status == 2 and "--code" in err and "absent.py: no such file" in err


def test_missing_tests_file(capsys, files, tmp_path):
    code, _ = files
    status, err = check(capsys, "--code", str(code), "--tests", str(tmp_path / "absent.json"))
    assert status == 2 and "absent.json: no such file" in err


def test_invalid_json(capsys, files):
    code, tests = files
    tests.write_text('{"tests": [\n  {"kind": }\n]}')
    status, err = check(capsys, "--code", str(code), "--tests", str(tests))
    assert status == 2 and "line 2 column" in err


def test_malformed_suite(capsys, files):
    code, tests = files
    tests.write_text(
        json.dumps({"entry_point": "f", "tests": [{"kind": "call", "args": [], "compare": "fuzzy", "expected": 1}]})
    )
    status, err = check(capsys, "--code", str(code), "--tests", str(tests))
    assert status == 2 and "tests[0].compare" in err


def test_bad_limits(capsys, files):
    code, tests = files
    status, err = check(capsys, "--code", str(code), "--tests", str(tests), "--timeout-s", "0")
    assert status == 2 and "timeout_s" in err
