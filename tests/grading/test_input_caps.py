"""Files handed over by path have documented size caps, refused with one clear line before they are read.

`run --tests` (16 MiB) and `run --statement @FILE` (1 MiB) through
`python -m execugraph`, and the sandbox's own `python -m sandbox check`
(program 1 MiB, suite 16 MiB), each as a real subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.grading.suite_files import SUITE_FILE_MAX_BYTES, TEXT_FILE_MAX_BYTES, FileTooLargeError, read_capped
from sandbox.limits import CODE_FILE_MAX_BYTES
from sandbox.limits import SUITE_FILE_MAX_BYTES as SANDBOX_SUITE_MAX_BYTES
from ui.views import parse_upload

pytestmark = pytest.mark.integration

SUITE = {"entry_point": "f", "tests": [{"kind": "call", "expr": "f(1)", "expected": 1}]}


def _run(*argv: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = os.environ | {"EXECUGRAPH_DB": str(tmp_path / "runs.db"), "OLLAMA_HOST": "http://127.0.0.1:9"}
    return subprocess.run(list(argv), cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300)


def _padded_json(path: Path, size: int) -> Path:
    """A valid suite JSON file of about `size` bytes (whitespace padding), so only its size is wrong."""
    text = json.dumps(SUITE)
    path.write_text(text[:-1] + " " * max(0, size - len(text)) + "}")
    return path


def test_run_refuses_a_suite_or_statement_file_over_its_cap(tmp_path: Path) -> None:
    big_suite = _padded_json(tmp_path / "suite.json", SUITE_FILE_MAX_BYTES + 10)
    done = _run(sys.executable, "-m", "execugraph", "run", "--statement", "x", "--tests", str(big_suite),
                tmp_path=tmp_path)
    assert done.returncode == 2
    size = big_suite.stat().st_size
    expected = f"run: {big_suite} is {size} bytes; a test suite may be at most {SUITE_FILE_MAX_BYTES} bytes"
    assert done.stderr.strip() == expected, done.stderr
    statement = tmp_path / "statement.txt"
    statement.write_text("Add two numbers. " * (TEXT_FILE_MAX_BYTES // 10))
    done = _run(sys.executable, "-m", "execugraph", "run", "--statement", f"@{statement}", tmp_path=tmp_path)
    assert done.returncode == 2 and "a problem statement may be at most 1 MiB" in done.stderr
    assert "\n" not in done.stderr.strip() and not (tmp_path / "runs.db").exists()


def test_sandbox_check_refuses_a_program_or_suite_over_its_cap(tmp_path: Path) -> None:
    code = tmp_path / "big.py"
    code.write_text("def f(x):\n    return x\n" + "#" * CODE_FILE_MAX_BYTES + "\n")
    suite = _padded_json(tmp_path / "suite.json", 100)
    done = _run(sys.executable, "-m", "sandbox", "check", "--code", str(code), "--tests", str(suite), tmp_path=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().startswith(f"error: --code {code}: 1.0 MiB; a program may be at most 1 MiB")
    small = tmp_path / "ok.py"
    small.write_text("def f(x):\n    return x\n")
    big_suite = _padded_json(tmp_path / "big.json", SANDBOX_SUITE_MAX_BYTES + 1)
    done = _run(sys.executable, "-m", "sandbox", "check", "--code", str(small), "--tests", str(big_suite),
                tmp_path=tmp_path)
    assert done.returncode == 2 and "a suite file may be at most 16 MiB" in done.stderr, done.stderr


def test_uploaded_suites_and_capped_reads_name_the_file_and_the_cap(tmp_path: Path, monkeypatch) -> None:
    line = json.dumps({"id": "a", "statement": "s", "entry_point": "f", "tests": SUITE["tests"]}) + "\n"
    assert [p.id for p in parse_upload("user", line.encode(), "mine.jsonl")] == ["a"]
    monkeypatch.setenv("EXECUGRAPH_UPLOAD_MAX_BYTES", "64")
    with pytest.raises(FileTooLargeError, match="mine.jsonl is .* an uploaded suite may be at most .*UPLOAD_MAX_BYTES"):
        parse_upload("user", line.encode(), "mine.jsonl")
    path = tmp_path / "f.txt"
    path.write_bytes(b"x" * 2048)
    assert read_capped(path, 4096, "a thing") == b"x" * 2048
    with pytest.raises(FileTooLargeError, match="f.txt is 2 KiB; a thing may be at most 1 KiB"):
        read_capped(path, 1024, "a thing")
