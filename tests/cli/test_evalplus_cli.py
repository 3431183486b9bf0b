"""MBPP+/HumanEval+ through the CLI: `batch --benchmark mbpp-plus` graded on the plus tests (a scripted model), and
`rescore --suite plus` turning a HumanEval run's programs into the verdict set `plus` (a real store and sandbox)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from execugraph.configuration.conditions import resolve_condition
from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.store import Store
from execugraph.verdicts.verdict_sets import second_verdict_sets, store_verdict_sets
from standins.ollama_server import OllamaStandIn, scripted_responder

pytestmark = pytest.mark.integration

SIMILAR = "```python\ndef similar_elements(test_tup1, test_tup2):\n    return tuple(set(test_tup1) & set(test_tup2))\n```"
CLOSE_OK = """from typing import List
def has_close_elements(numbers: List[float], threshold: float) -> bool:
    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])
"""
CLOSE_OFF_BY_ONE = CLOSE_OK.replace("< threshold", "<= threshold")


def cli(tmp_path: Path, *args: str, host: str = "http://127.0.0.1:9") -> subprocess.CompletedProcess:
    env = os.environ | {"OLLAMA_HOST": host, "EXECUGRAPH_DB": str(tmp_path / "cli.db"),
                        "EXECUGRAPH_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-m", "execugraph", *args], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_batch_on_mbpp_plus_grades_on_the_plus_tests(tmp_path: Path) -> None:
    with OllamaStandIn(responder=scripted_responder([SIMILAR], cycle=True), models=["m"]) as server:
        result = cli(tmp_path, "batch", "--benchmark", "mbpp+", "--problems", "mbpp_2", "--conditions",
                     "single-oneshot", "--model", "ollama:m", "--wait", host=server.url)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[-1]["status"] == "done"
    assert len(list((tmp_path / "cache" / "evalplus").glob("*.json"))) == 1  # only the chosen problem's outputs
    with Store.open(str(tmp_path / "cli.db")) as store:
        (trial,) = store.trials_for_run(lines[0]["run_id"])
        assert trial.benchmark == "mbpp-plus" and trial.passed
        assert trial.tests_total == 2  # the base inputs and the 108 extra inputs, not MBPP's three asserts
        stored = store.get_problem("mbpp-plus", "mbpp_2")
        assert stored is not None and {t.get("set") for t in stored.tests} == {"original", "plus"}


def _humaneval_run(store: Store) -> int:
    config = resolve_condition("single-oneshot").model_dump()
    run_id = store.create_run("batch", "paper", {"conditions": {"single-oneshot": config}}, benchmark="humaneval",
                              status="done")
    for seed, code in enumerate([CLOSE_OK, CLOSE_OFF_BY_ONE]):
        trial = store.create_trial(run_id, "humaneval_0", "single-oneshot", seed, 0, benchmark="humaneval")
        store.finish_trial(trial, passed=True, final_code=code, error_class=None, grading_protocol="with-prompt")
    return run_id


def test_rescore_suite_plus_makes_the_plus_verdict_set(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "cli.db")) as store:
        run_id = _humaneval_run(store)
    result = cli(tmp_path, "rescore", "--run", str(run_id), "--suite", "plus", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["tests"] == "plus" and report["passed_after"] == 1
    (flip,) = report["flips"]
    assert flip["from"] == "passed" and flip["to"] == "wrong_answer"
    with Store.open(str(tmp_path / "cli.db")) as store:
        child = store.get_run(report["run_id"])
        assert child.config["verdict_set"] == "plus" and child.config["benchmark_file"]["benchmark"] == "humaneval-plus"
        assert second_verdict_sets(store, run_id) == {"plus": report["run_id"]}
        sets = store_verdict_sets(store, [run_id])
        assert sorted(r["passed"] for r in sets.records["plus"]) == [False, True]
        assert report["run_id"] not in sets.runs["with-prompt"]  # not taken for a protocol counterpart


def test_rescore_suite_plus_refuses_a_run_of_other_problems(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "cli.db")) as store:
        run_id = store.create_run("batch", "internal", {}, benchmark="internal30", status="done")
        trial = store.create_trial(run_id, "fib", "single-oneshot", 0, 0, benchmark="internal30")
        store.finish_trial(trial, passed=True, final_code="def fib(n):\n    return n\n")
    result = cli(tmp_path, "rescore", "--run", str(run_id), "--suite", "plus")
    assert result.returncode == 2
    assert "--suite plus grades HumanEval (humaneval_<n>) or MBPP (mbpp_<n>) runs" in result.stderr
