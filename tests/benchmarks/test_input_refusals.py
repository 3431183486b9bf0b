"""Inputs that used to hang, explode or crash are refused in one line: FIFOs, devices, deep JSON, huge grids.

Each case runs the real CLI in a subprocess with a deadline, as a user (or a hostile bundle) meets it:
a FIFO would make `import` wait forever, `/dev/zero` grew to 20 GB, a line nesting 100,000 lists
ended in a RecursionError traceback, seeds `0-20000000` built 20 M ints on every form rerun.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from execugraph.batch.spec import MAX_SEEDS, MAX_TRIALS, BatchSpec, check_grid, parse_seeds
from execugraph.configuration.settings import PROJECT_ROOT

pytestmark = pytest.mark.integration

DEEP = "[" * 100_000 + "]" * 100_000


def cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "execugraph", "--db", str(tmp_path / "runs.db"), *args]
    env = os.environ | {"OLLAMA_HOST": "http://127.0.0.1:9"}
    return subprocess.run(argv, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300)


def assert_refused(done: subprocess.CompletedProcess, *words: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    for word in words:
        assert word in done.stderr, (word, done.stderr)


def test_import_of_a_fifo_and_of_dev_zero_is_refused_before_any_read(tmp_path: Path) -> None:
    fifo = tmp_path / "results.zip"
    os.mkfifo(fifo)  # nobody ever writes it: opening it for reading would block forever
    assert_refused(cli(tmp_path, "import", str(fifo)), "not a regular file")
    began = time.monotonic()
    assert_refused(cli(tmp_path, "import", "/dev/zero"), "not a regular file")
    assert time.monotonic() - began < 120


def test_a_benchmark_path_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "suite.jsonl"
    os.mkfifo(fifo)
    done = cli(tmp_path, "batch", "--benchmark", "user", "--benchmark-path", str(fifo), "--conditions",
               "single-oneshot")
    assert done.returncode != 0 and "not a regular file" in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_line_nesting_100000_lists_is_one_located_issue(tmp_path: Path) -> None:
    from execugraph.benchmarks.errors import BenchmarkFormatError
    from execugraph.benchmarks.user import parse_user_jsonl

    good = json.dumps({"id": "d", "statement": "Double x.", "entry_point": "double",
                       "tests": [{"kind": "call", "expr": "double(2)", "expected": 4}]})
    with pytest.raises(BenchmarkFormatError, match="line 2.*nested too deeply"):
        parse_user_jsonl(f"{good}\n{DEEP}\n".encode(), source="suite.jsonl")
    folder = tmp_path / "study" / "e1_so"
    folder.mkdir(parents=True)
    (folder / "trials.jsonl").write_text(DEEP + "\n")
    done = cli(tmp_path, "import", str(tmp_path / "study"))
    assert_refused(done, "nested too deeply")


def test_seeds_and_grids_are_capped_without_building_them() -> None:
    began = time.monotonic()
    with pytest.raises(ValueError, match=f"more than {MAX_SEEDS:,} seeds"):
        parse_seeds("0-20000000")
    with pytest.raises(ValueError, match=f"more than {MAX_SEEDS:,} seeds"):
        parse_seeds(f"0-{MAX_SEEDS // 2},{MAX_SEEDS}-{MAX_SEEDS * 2}")
    assert time.monotonic() - began < 1.0  # nothing was expanded
    assert parse_seeds(f"0-{MAX_SEEDS - 1}") == list(range(MAX_SEEDS))
    with pytest.raises(ValueError, match="at most"):
        BatchSpec(seeds=list(range(MAX_SEEDS + 1)))
    assert check_grid(30, 3, 5, 1) == 450
    with pytest.raises(ValueError, match=f"more than the {MAX_TRIALS:,}"):
        check_grid(164, 10, MAX_SEEDS, 100)


def test_the_batch_form_refuses_a_huge_seed_range_at_once(tmp_path: Path, monkeypatch) -> None:
    from streamlit.testing.v1 import AppTest

    from tests.ui.conftest import APP, APP_TIMEOUT_S, texts
    from ui.keys import Batch

    monkeypatch.setattr("ui.resources.start_worker", lambda url: True)
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT_S)
    at.run()
    at.switch_page("pages/batch.py").run()
    began = time.monotonic()
    at.text_input(key=Batch.SEEDS).input("0-20000000").run()
    assert any(f"more than {MAX_SEEDS:,} seeds" in e for e in texts(at, "error")), texts(at, "error")
    assert at.button(key=Batch.LAUNCH).disabled
    assert time.monotonic() - began < 60


def test_a_benchmark_files_own_timeouts_are_capped_with_a_warning_naming_the_problems() -> None:
    from execugraph.benchmarks.errors import BenchmarkFormatError
    from execugraph.benchmarks.published import parse_published_jsonl, published_warnings
    from execugraph.grading.rules import GradingSettings, cpu_floor, max_test_timeout_s

    def record(pid: str, timeout: object) -> str:
        return json.dumps({"id": pid, "statement": "Double x.", "primary_function": "double", "timeout_s": timeout,
                           "tests": [{"input": [2], "expected": 4}]})

    data = "\n".join([record("slow_one", 2_000_000), record("fine", 3)]) + "\n"
    (slow, fine) = parse_published_jsonl(data, source="benchmark.jsonl")
    assert cpu_floor(slow, GradingSettings()) == max_test_timeout_s() == 60.0
    assert cpu_floor(fine, GradingSettings()) == 3.0
    (warning,) = [w for w in published_warnings(data, "benchmark.jsonl") if "per test" in w]
    assert "slow_one (2e+06 s)" in warning and "fine" not in warning and "EXECUGRAPH_MAX_TEST_TIMEOUT_S" in warning
    with pytest.raises(BenchmarkFormatError, match="finite"):
        parse_published_jsonl(record("endless", "Infinity").replace('"Infinity"', "Infinity") + "\n")
