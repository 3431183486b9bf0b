"""`python -m sandbox` end to end: a real subprocess, real files, one JSON object on stdout."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sandbox", *args], cwd=REPO, capture_output=True, text=True, timeout=120
    )


def test_check_prints_one_json_object_and_exits_zero_whatever_the_verdict(tmp_path):
    code = tmp_path / "solution.py"
    code.write_text("def add(a, b):\n    return a + b\n")
    tests = tmp_path / "tests.json"
    tests.write_text(
        json.dumps(
            {
                "entry_point": "add",
                "aliases": [],
                "tests": [
                    {"kind": "call", "args": [1, 2], "expected": 3},
                    {"kind": "call", "expr": "add(2, 2)", "expected": 5},
                ],
            }
        )
    )
    done = run_cli("check", "--code", str(code), "--tests", str(tests), "--timeout-s", "2", "--memory-mb", "128")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["verdict"], result["tests_total"], result["tests_passed"]) == ("wrong_answer", 2, 1)
    assert [t["verdict"] for t in result["tests"]] == ["passed", "wrong_answer"]
    assert result["isolation"] and all(
        v == "active" or v.startswith("unavailable: ") for v in result["isolation"].values()
    )


def test_check_reports_timeouts_with_the_given_limit(tmp_path):
    code = tmp_path / "spin.py"
    code.write_text("def f():\n    while True:\n        pass\n")
    tests = tmp_path / "tests.json"
    tests.write_text(json.dumps({"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": 0}]}))
    done = run_cli("check", "--code", str(code), "--tests", str(tests), "--timeout-s", "0.5", "--wall-factor", "4")
    assert done.returncode == 0
    result = json.loads(done.stdout)
    assert result["verdict"] == "timeout" and result["tests"][0]["error_class"] == "CpuTimeLimit"
    assert 0.5 <= result["tests"][0]["cpu_s"] < 1.0
    assert (result["limits"]["cpu_s_per_test"], result["limits"]["wall_backstop_s_per_test"]) == (0.5, 12.0)
    assert "limits: 0.5 s CPU per test, wall-clock backstop 12 s (4 x CPU limit + 10 s)" in done.stderr


def test_check_ends_a_sleeper_by_its_blocked_time_budget(tmp_path):
    code = tmp_path / "sleep.py"
    code.write_text("import time\ndef f():\n    time.sleep(600)\n")
    tests = tmp_path / "tests.json"
    tests.write_text(json.dumps({"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": 0}]}))
    done = run_cli("check", "--code", str(code), "--tests", str(tests), "--timeout-s", "0.5", "--wall-factor", "1",
                   "--wall-grace-s", "1")
    result = json.loads(done.stdout)
    # blocked budget 0.5 s + 0.5 s, before the 1.5 s backstop
    assert result["tests"][0]["error_class"] == "BlockedTimeLimit" and 1.0 <= result["tests"][0]["duration_s"] < 1.5


def test_layers_command_lists_every_layer():
    done = run_cli("layers")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["probe_job"] == "active"
    assert all(v == "active" or v.startswith("unavailable: ") for v in report.values())
