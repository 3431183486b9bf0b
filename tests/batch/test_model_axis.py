"""A model axis: `batch --models A,B` runs every condition on each model, as arms paired by problem."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from execugraph.batch.spec import BatchSpec
from execugraph.configuration.model_axis import parse_models, split_arm
from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.stats.budgets import condition_budget
from execugraph.store import Store
from standins.ollama_server import OllamaStandIn

FIB = "```python\ndef fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n```"
WRONG = "```python\ndef fib(n):\n    return -1\n```"
ARMS = ["single-oneshot@good", "single-retry@1@good", "single-oneshot@bad", "single-retry@1@bad"]


def by_model(model: str, messages: list[dict[str, Any]], options: dict[str, Any]) -> str:
    """The model `good` solves fib; `bad` never does (neither solves anything else)."""
    return FIB if model.startswith("good") else WRONG


def cli(tmp_path, *args: str, host: str = "http://127.0.0.1:9") -> subprocess.CompletedProcess:
    env = os.environ | {"OLLAMA_HOST": host, "EXECUGRAPH_DB": str(tmp_path / "axis.db")}
    return subprocess.run([sys.executable, "-m", "execugraph", *args], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_arms_are_named_per_model_and_resolve_to_that_model():
    spec = BatchSpec(conditions=["single-oneshot", "single-retry@1"], model_axis=parse_models("ollama:good,ollama:bad"))
    assert spec.arms == ARMS
    configs = {arm: spec.run_config(arm) for arm in spec.arms}
    assert {arm: c.default_model for arm, c in configs.items()} == {
        "single-oneshot@good": "ollama:good", "single-retry@1@good": "ollama:good",
        "single-oneshot@bad": "ollama:bad", "single-retry@1@bad": "ollama:bad"}
    assert configs["single-retry@1@bad"].retry_budget == 1 and configs["single-retry@1@bad"].condition == "single-retry@1@bad"
    assert split_arm("single-retry@1@bad") == ("single-retry@1", "bad") and split_arm("single-retry@1") == ("single-retry@1", None)
    assert condition_budget("single-retry@1@bad", {}).retry_budget == 1  # the statistics read the arm's budget
    assert BatchSpec(conditions=["single-oneshot"]).arms == ["single-oneshot"]  # one model: arms are the conditions


def test_bad_model_lists_get_one_clear_error():
    with pytest.raises(ValueError, match="bad model spec 'nope:x'"):
        parse_models("ollama:a,nope:x")
    with pytest.raises(ValueError, match="listed twice"):
        parse_models("ollama:a,ollama:a")
    with pytest.raises(ValueError, match="bad label '7'"):
        parse_models("7=ollama:a,ollama:b")
    with pytest.raises(ValueError, match="at least two models"):
        BatchSpec(model_axis={"a": "ollama:a"})


@pytest.mark.integration
def test_cli_two_model_batch_runs_and_stats_pair_the_models_by_problem(tmp_path):
    refused = cli(tmp_path, "batch", "--models", "ollama:good,bogus:bad", "--problems", "fib")
    assert refused.returncode == 2 and "bogus:bad" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "axis.db").exists() or not Store.open(str(tmp_path / "axis.db")).list_runs(kind="batch")

    with OllamaStandIn(responder=by_model, models=["good", "bad"]) as server:
        result = cli(tmp_path, "batch", "--benchmark", "internal30", "--problems", "fib,climb_stairs",
                     "--conditions", "single-oneshot,single-retry@1", "--models", "ollama:good,ollama:bad",
                     "--concurrency", "2", "--wait", host=server.url)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    run_id = lines[0]["run_id"]
    assert lines[0]["trials"] == 2 * 4 and lines[-1]["status"] == "done"
    store = Store.open(str(tmp_path / "axis.db"))
    run = store.get_run(run_id)
    assert list(run.config["conditions"]) == ARMS
    assert run.config["batch"]["model_axis"] == {"good": "ollama:good", "bad": "ollama:bad"}
    trials = store.trials_for_run(run_id)
    passed = {(t.problem_id, t.condition): t.passed for t in trials}
    assert passed == {("fib", "single-oneshot@good"): True, ("fib", "single-retry@1@good"): True,
                      ("fib", "single-oneshot@bad"): False, ("fib", "single-retry@1@bad"): False,
                      ("climb_stairs", "single-oneshot@good"): False, ("climb_stairs", "single-retry@1@good"): False,
                      ("climb_stairs", "single-oneshot@bad"): False, ("climb_stairs", "single-retry@1@bad"): False}

    stats = cli(tmp_path, "stats", "--runs", str(run_id), "--json")
    assert stats.returncode == 0, stats.stderr
    report = json.loads(stats.stdout)
    pairs = {(p["a"], p["b"]): p for p in report["pairs"]}
    same_loop = pairs.get(("single-oneshot@good", "single-oneshot@bad")) or pairs[("single-oneshot@bad",
                                                                                  "single-oneshot@good")]
    assert same_loop["n"] == 2  # paired on both problems
    across = pairs.get(("single-retry@1@good", "single-oneshot@bad")) or pairs[("single-oneshot@bad",
                                                                               "single-retry@1@good")]
    assert across["n"] == 2


def test_one_model_batch_is_stored_as_before(sqlite_store):
    from execugraph.batch.control import enqueue_batch
    from tests.batch.test_runner import problems

    one = enqueue_batch(sqlite_store, BatchSpec(benchmark="toy", conditions=["single-oneshot"],
                                                default_model="ollama:m"), problems(2))
    run = sqlite_store.get_run(one)
    assert "model_axis" not in run.config["batch"] and list(run.config["conditions"]) == ["single-oneshot"]
    assert {t.condition for t in sqlite_store.trials_for_run(one)} == {"single-oneshot"}
    assert run.models["generator"] == "ollama:m"
