"""Grading protocols end to end: trials and batches record them, rescoring under the other one makes a child run,
and `stats` shows each comparison under both protocols with the programs that changed verdict."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from execugraph.batch.control import enqueue_batch
from execugraph.batch.runner import Worker
from execugraph.batch.spec import BatchSpec
from execugraph.benchmarks import load_humaneval, load_internal30
from execugraph.configuration.conditions import resolve_condition
from execugraph.store import Store
from execugraph.verdicts import rescore_run
from execugraph.verdicts.sensitivity import protocol_sensitivity
from execugraph.verdicts.verdict_sets import counterparts, run_protocols
from execugraph.workflow.trial import TrialDeps, run_trial
from standins.scripted import ScriptedChatModel, fenced
from tests.support.protocol_runs import TASKS, seed_two_arms
from tests.support.protocol_runs import canonical as _canonical
from tests.support.protocol_runs import without_imports as _without_imports

pytestmark = pytest.mark.integration

PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=2) as shared:
        yield shared


@pytest.fixture
def store(tmp_path: Path):
    with Store.open(str(tmp_path / "protocols.db")) as opened:
        yield opened


@pytest.fixture(scope="module")
def humaneval():
    return {p.id: p for p in load_humaneval()}


def _trial(store, pool, problem, code: str, protocol: str):
    config = resolve_condition("single-oneshot", grading_protocol=protocol)
    run_id = store.create_run("single", problem.id, {"conditions": {config.condition: config.model_dump()}})
    deps = TrialDeps(pool=pool, chat_models={"generator": ScriptedChatModel(replies=[fenced(code)])})
    return run_trial(problem, config, store, run_id=run_id, deps=deps)


def test_a_with_prompt_trial_runs_the_prompt_in_the_programs_module(store, pool, humaneval) -> None:
    problem, code = humaneval["humaneval_0"], _without_imports(0)
    standalone = _trial(store, pool, problem, code, "standalone")
    assert (standalone.passed, standalone.verdict) == (False, "runtime_error")
    with_prompt = _trial(store, pool, problem, code, "with-prompt")
    assert (with_prompt.passed, with_prompt.verdict) == (True, "passed")
    trial = store.get_trial(with_prompt.trial_id)
    assert trial.grading_protocol == "with-prompt" and len(trial.suite_digest) == 64
    grade = next(s for s in store.steps_for_trial(trial.id) if s.node == "grade")
    assert grade.output["grading_protocol"] == "with-prompt" and "protocol_note" not in grade.output
    assert grade.output["suite_digest"] == trial.suite_digest
    (execution,) = [e for e in store.executions_for_trial(trial.id) if e.purpose == "feedback"]
    assert execution.code.strip() == code.strip()  # the program as generated is stored, not the prompt with it


def test_without_a_prompt_with_prompt_coincides_and_the_grade_step_says_so(store, pool) -> None:
    fib = next(p for p in load_internal30() if p.id == "fib")
    code = "def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n"
    result = _trial(store, pool, fib, code, "with-prompt")
    assert result.passed
    grade = next(s for s in store.steps_for_trial(result.trial_id) if s.node == "grade")
    assert grade.output["protocol_note"] == "same as standalone: internal30/fib has no prompt preamble"


def test_a_batch_records_its_protocol_in_the_run_and_every_trial(store, pool) -> None:
    spec = BatchSpec(benchmark="humaneval", problem_ids=["humaneval_0", "humaneval_2"], conditions=["single-oneshot"],
                     grading_protocol="with-prompt")
    run_id = enqueue_batch(store, spec)
    assert store.get_run(run_id).config["conditions"]["single-oneshot"]["grading_protocol"] == "with-prompt"
    assert store.get_problem("humaneval", "humaneval_0").preamble.startswith("from typing import List")
    replies = [fenced(_without_imports(0)), fenced(_canonical(2))]
    worker = Worker(store, deps_factory=lambda: TrialDeps(
        pool=pool, chat_models={"generator": ScriptedChatModel(replies=[replies.pop(0)])}))
    assert worker.run_here(run_id) == "done"  # claims the run, then runs it here
    trials = store.trials_for_run(run_id)
    assert [(t.problem_id, t.passed, t.grading_protocol) for t in trials] == [
        ("humaneval_0", True, "with-prompt"), ("humaneval_2", True, "with-prompt")]
    assert run_protocols(store, [run_id]) == {run_id: "with-prompt"}
    same = rescore_run(store, run_id, pool=pool)  # its own protocol, its own suite: the same verdicts
    assert (same.agree, same.flips, same.origins) == (2, [], {"store": 2})
    other = rescore_run(store, run_id, pool=pool, protocol="standalone")
    assert [f.problem_id for f in other.flips] == ["humaneval_0"]
    assert counterparts(store, run_id) == {"with-prompt": run_id, "standalone": other.run_id}


def test_stats_shows_a_family_under_both_protocols_with_the_programs_that_changed(store, pool, tmp_path) -> None:
    run_id = seed_two_arms(store)
    missing = protocol_sensitivity(store, [run_id])
    assert not missing.available
    assert [m.to_json_dict() for m in missing.missing] == [{"run": run_id, "protocol": "with-prompt",
                                   "command": f"python -m execugraph rescore --run {run_id} --grading-protocol "
                                   "with-prompt"}]
    standalone = rescore_run(store, run_id, pool=pool, protocol="standalone")
    with_prompt = rescore_run(store, run_id, pool=pool, protocol="with-prompt")
    assert standalone.passed_after == len(TASKS) and with_prompt.passed_after == 2 * len(TASKS)
    for chosen in (run_id, standalone.run_id, with_prompt.run_id):  # any member of the family finds the others
        sensitivity = protocol_sensitivity(store, [chosen], n_boot=2000)
        assert sensitivity.available
        (pair,) = sensitivity.pairs
        assert pair.by_protocol is not None
        assert (pair.a, pair.b) == ("single-oneshot", "single-retry")
        assert pair.by_protocol["standalone"].delta_pp == -100.0
        assert pair.by_protocol["with-prompt"].delta_pp == 0.0
        assert pair.by_protocol["standalone"].problems_differ == len(TASKS)
        assert pair.same_conclusion is False
        assert sorted(c.problem_id for c in pair.changed) == sorted(f"humaneval_{n}" for n in TASKS)
        assert all(c.verdicts == {"standalone": "runtime_error", "with-prompt": "passed"} for c in pair.changed)
    db = str(tmp_path / "protocols.db")
    text = subprocess.run([sys.executable, "-m", "execugraph", "--db", db, "stats", "--runs", str(run_id)],
                          capture_output=True, text=True, timeout=300, cwd=PROJECT)
    assert text.returncode == 0, text.stderr
    assert "Grading protocol sensitivity" in text.stdout and "problems that differ" in text.stdout
    row = next(line for line in text.stdout.splitlines() if line.startswith("single-oneshot  single-retry  -100.0"))
    assert row.split()[-2:] == ["NO", str(len(TASKS))]
    as_json = subprocess.run([sys.executable, "-m", "execugraph", "--db", db, "stats", "--runs", str(run_id), "--json"],
                             capture_output=True, text=True, timeout=300, cwd=PROJECT)
    report = json.loads(as_json.stdout)
    assert report["protocol_sensitivity"]["runs"] == {"standalone": [run_id], "with-prompt": [with_prompt.run_id]}
    assert {"problems_differ", "majority_discordant"} <= set(report["pairs"][0])
