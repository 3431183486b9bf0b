"""A problem without an entry point is a stdin/stdout program end to end; a retry that changes nothing is caught.

Real graph, real sandbox, real SQLite store, scripted models.
"""

from __future__ import annotations

import pytest

from execugraph.agents.generator import UNCHANGED_NOTE
from execugraph.configuration.conditions import resolve_condition
from execugraph.workflow.single import adhoc_problem, run_single
from execugraph.workflow.trial import TrialDeps
from standins.scripted import fenced, scripted

pytestmark = pytest.mark.integration

GOOD = "def solve():\n    n = int(input())\n    print(2 * n)\n\n\nsolve()\n"
WRONG = "def solve():\n    n = int(input())\n    print(n + 2)\n\n\nsolve()\n"
TESTS = '[{"input": "3", "output": "6"}, {"input": "0\\n", "output": "0\\n"}, {"input": "7"}]'


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=1) as shared:
        yield shared


@pytest.fixture
def problem():
    return adhoc_problem("Read an integer n from standard input and print 2 * n.")


def run(store, pool, problem, condition, models):
    deps = TrialDeps(pool=pool, chat_models=models)
    return run_single(store, problem, resolve_condition(condition), deps)


def test_stdin_program_without_entry_point_passes_on_generated_stdio_tests(sqlite_store, pool, problem):
    models = scripted(generator=[fenced(GOOD)], evaluator=[TESTS])
    run_id, result = run(sqlite_store, pool, problem, "single-oneshot", models)
    assert result.passed and result.verdict == "passed", result.message
    assert result.test_source == "generated" and result.tests_total == 2 and result.message is None
    assert "call solve() at the end" in models["generator"].prompts[0]
    writer = models["evaluator"].prompts[0]
    assert "standard input" in writer and '"input"' in writer and '"args"' not in writer
    execution = sqlite_store.executions_for_trial(result.trial_id)[-1]
    assert execution.verdict == "passed" and execution.tests_total == 2
    step = next(s for s in sqlite_store.steps_for_trial(result.trial_id) if s.node == "evaluator")
    assert step.output["generated_tests"] == 2 and step.output["generated_dropped"] == 1
    assert sqlite_store.get_run(run_id).error in (None, "")


def test_wrong_stdin_program_fails_on_the_same_tests(sqlite_store, pool, problem):
    models = scripted(generator=[fenced(WRONG)], evaluator=[TESTS])
    _, result = run(sqlite_store, pool, problem, "single-oneshot", models)
    assert not result.passed and result.verdict == "wrong_answer"
    assert result.test_source == "generated" and result.tests_passed == 0 and result.tests_total == 2


def test_unchanged_retry_is_no_progress_and_the_next_prompt_says_so(sqlite_store, pool, problem):
    models = scripted(generator=[fenced(WRONG), fenced(WRONG), fenced(GOOD)], evaluator=[TESTS])
    run_id, result = run(sqlite_store, pool, problem, "single-retry", models)
    assert result.passed and result.retries_used == 2
    prompts = models["generator"].prompts
    assert UNCHANGED_NOTE not in prompts[1] and UNCHANGED_NOTE in prompts[2]
    assert "First failing test: stdin: '3'" in prompts[1] and "Expected: '6'" in prompts[1]  # stdio feedback
    steps = sqlite_store.steps_for_trial(result.trial_id)
    generators = [s.output for s in steps if s.node == "generator"]
    evaluators = [s.output for s in steps if s.node == "evaluator"]
    assert [g.get("unchanged", False) for g in generators] == [False, True, False]
    assert [e.get("no_progress", False) for e in evaluators] == [False, True, False]
    assert evaluators[1]["decision"] == "retry"
    trial = sqlite_store.get_trial(result.trial_id)
    assert trial.message and trial.message.startswith("no progress: 1 retry (attempt 1)")
    assert result.message == trial.message and trial.status == "done"
    assert sqlite_store.get_run(run_id).status == "done" and not sqlite_store.get_run(run_id).error


def test_same_program_every_time_spends_the_budget_and_says_so(sqlite_store, pool, problem):
    models = scripted(generator=[fenced(WRONG)], evaluator=[TESTS])
    _, result = run(sqlite_store, pool, problem, "single-retry@2", models)
    assert not result.passed and result.retries_used == 2 and result.verdict == "wrong_answer"
    assert all(UNCHANGED_NOTE not in p for p in models["generator"].prompts[:2])
    assert UNCHANGED_NOTE in models["generator"].prompts[2]
    assert result.message.startswith("no progress: 2 retries (attempt 1, 2)")
