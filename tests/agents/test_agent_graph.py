"""Every condition through the real graph, real sandbox and real SQLite store, driven by scripted models."""

from __future__ import annotations

import json

import pytest

from execugraph.configuration.conditions import resolve_condition
from execugraph.domain.problem import Problem
from execugraph.workflow.single import run_single
from execugraph.workflow.trial import TrialDeps, run_trial
from standins.scripted import ScriptedChatModel, fenced, scripted

pytestmark = pytest.mark.integration

GOOD = "def add(a, b):\n    return a + b\n"
WRONG = "def add(a, b):\n    return a - b\n"
CLEAN = "def add(a, b):\n    total = a + b\n    return total\n"
BROKEN_OPT = "def add(a, b):\n    return a * b\n"
REVIEW_LOW = json.dumps({"invariants": ["returns a sum"], "potential_failures": [], "severity": "low"})
REVIEW_HIGH = json.dumps({"invariants": [], "potential_failures": ["subtracts instead of adding"], "severity": "high"})


def call(expr: str, expected, visible: bool = False) -> dict:
    return {"kind": "call", "name": expr, "expr": expr, "expected": expected, "visible": visible}


@pytest.fixture
def problem() -> Problem:
    return Problem(
        id="add",
        benchmark="adhoc",
        category="math",
        statement="Return the sum of a and b.",
        entry_point="add",
        aliases=["plus"],
        signature="add(a: int, b: int) -> int",
        tests=[call("add(1, 2)", 3, visible=True), call("add(-1, 1)", 0), call("add(10**12, 1)", 10**12 + 1)],
    )


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=1) as shared:
        yield shared


def run(store, pool, problem, condition, models, **overrides):
    config = resolve_condition(condition, **overrides)
    events: list[dict] = []
    deps = TrialDeps(pool=pool, chat_models=models, emit=events.append)
    run_id, result = run_single(store, problem, config, deps)
    return run_id, result, events


def nodes_of(store, trial_id) -> list[str]:
    return [s.node for s in store.steps_for_trial(trial_id)]


def test_single_oneshot_passes_and_persists_a_complete_trace(sqlite_store, pool, problem):
    models = scripted(generator=[fenced(GOOD)])
    run_id, result, events = run(sqlite_store, pool, problem, "single-oneshot", models)
    assert result.nodes == ["generator", "evaluator", "grade"]
    assert nodes_of(sqlite_store, result.trial_id) == result.nodes
    assert result.passed and result.verdict == "passed" and result.tests_passed == 3
    trial = sqlite_store.get_trial(result.trial_id)
    assert trial.status == "done" and trial.passed and trial.test_source == "problem"
    assert trial.feedback_source == "grading" and trial.llm_calls == 1 and trial.retries_used == 0
    assert trial.final_code.strip() == GOOD.strip()
    calls = sqlite_store.llm_calls_for_trial(result.trial_id)
    assert [c.role for c in calls] == ["generator"] and "Return the sum" in calls[0].messages[-1]["content"]
    executions = sqlite_store.executions_for_trial(result.trial_id)
    assert len(executions) == 1 and executions[0].verdict == "passed"  # grading reused the identical run
    assert all(s.ended_at is not None for s in sqlite_store.steps_for_trial(result.trial_id))
    kinds = [e["type"] for e in events]
    assert kinds[0] == "trial_started" and kinds[-1] == "trial_finished" and kinds.count("node_finished") == 3
    assert sqlite_store.get_run(run_id).status == "done"


def test_single_retry_shows_structured_feedback_to_the_generator(sqlite_store, pool, problem):
    models = scripted(generator=[fenced(WRONG), fenced(GOOD)])
    _, result, _ = run(sqlite_store, pool, problem, "single-retry", models)
    assert result.nodes == ["generator", "evaluator", "generator", "evaluator", "grade"]
    assert result.passed and result.retries_used == 1
    retry_prompt = models["generator"].prompts[1]
    assert "add(1, 2)" in retry_prompt and "wrong_answer" in retry_prompt
    assert "3" in retry_prompt and "-1" in retry_prompt  # expected vs got
    assert WRONG.strip().splitlines()[1].strip() in retry_prompt  # previous code shown
    verdicts = [e.verdict for e in sqlite_store.executions_for_trial(result.trial_id)]
    assert verdicts == ["wrong_answer", "passed"]


def test_retry_budget_is_a_hard_bound(sqlite_store, pool, problem):
    models = scripted(generator=[fenced(WRONG)])
    _, result, _ = run(sqlite_store, pool, problem, "single-retry@2", models)
    assert result.nodes.count("generator") == 3 and result.retries_used == 2
    assert not result.passed and result.verdict == "wrong_answer"
    trial = sqlite_store.get_trial(result.trial_id)
    assert trial.error_class == "wrong_answer" and trial.llm_calls == 3


def test_multi_full_rejects_an_optimizer_regression(sqlite_store, pool, problem):
    models = scripted(
        planner=["1. add the numbers"],
        generator=[fenced(GOOD)],
        reviewer=[REVIEW_LOW],
        optimizer=[fenced(BROKEN_OPT)],
        explainer=["It adds a and b."],
    )
    _, result, _ = run(sqlite_store, pool, problem, "multi-full", models)
    assert result.nodes == ["planner", "generator", "reviewer", "evaluator", "optimizer", "grade", "explainer"]
    assert result.passed and result.final_code.strip() == GOOD.strip()
    assert result.explanation == "It adds a and b."
    steps = {s.node: s for s in sqlite_store.steps_for_trial(result.trial_id)}
    assert steps["optimizer"].output["accepted"] is False
    assert steps["optimizer"].output["reason"] == "regression rejected"
    purposes = [(e.purpose, e.verdict) for e in sqlite_store.executions_for_trial(result.trial_id)]
    assert ("optimizer", "wrong_answer") in purposes
    assert "1. add the numbers" in models["generator"].prompts[0]  # plan-conditioned
    assert steps["reviewer"].output["review"]["severity"] == "low"


def test_multi_full_accepts_an_optimizer_improvement(sqlite_store, pool, problem):
    models = scripted(
        planner=["plan"], generator=[fenced(GOOD)], reviewer=[REVIEW_LOW], optimizer=[fenced(CLEAN)], explainer=["ok"]
    )
    _, result, _ = run(sqlite_store, pool, problem, "multi-full", models)
    assert result.passed and "total = a + b" in result.final_code
    grading = [e for e in sqlite_store.executions_for_trial(result.trial_id) if e.purpose == "grading"]
    assert len(grading) == 1 and grading[0].code == result.final_code and grading[0].verdict == "passed"


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("multi-no-planner", ["generator", "reviewer", "evaluator", "optimizer", "grade", "explainer"]),
        ("multi-no-reviewer", ["planner", "generator", "evaluator", "optimizer", "grade", "explainer"]),
        ("multi-no-optimizer", ["planner", "generator", "reviewer", "evaluator", "grade", "explainer"]),
        ("multi-no-retry", ["planner", "generator", "reviewer", "evaluator", "optimizer", "grade", "explainer"]),
    ],
)
def test_ablations_drop_exactly_their_agent(sqlite_store, pool, problem, condition, expected):
    models = scripted(
        planner=["plan"], generator=[fenced(GOOD)], reviewer=[REVIEW_LOW], optimizer=[fenced(GOOD)], explainer=["ok"]
    )
    _, result, _ = run(sqlite_store, pool, problem, condition, models)
    assert result.nodes == expected and result.passed


def test_multi_no_retry_stops_after_the_first_failure(sqlite_store, pool, problem):
    models = scripted(
        planner=["plan"], generator=[fenced(WRONG), fenced(GOOD)], reviewer=[REVIEW_LOW], explainer=["ok"]
    )
    _, result, _ = run(sqlite_store, pool, problem, "multi-no-retry", models)
    assert result.nodes == ["planner", "generator", "reviewer", "evaluator", "grade", "explainer"]
    assert not result.passed and result.retries_used == 0


def test_reviewer_gate_sends_code_back_once(sqlite_store, pool, problem):
    models = scripted(
        planner=["plan"],
        generator=[fenced(WRONG), fenced(GOOD)],
        reviewer=[REVIEW_HIGH, REVIEW_HIGH],
        optimizer=[fenced(GOOD)],
        explainer=["ok"],
    )
    _, result, _ = run(sqlite_store, pool, problem, "multi-full", models, reviewer_gates=True)
    assert result.nodes == [
        "planner",
        "generator",
        "reviewer",
        "generator",
        "reviewer",
        "evaluator",
        "optimizer",
        "grade",
        "explainer",
    ]
    assert result.passed and result.retries_used == 0
    assert "subtracts instead of adding" in models["generator"].prompts[1]


def test_advisory_reviewer_never_blocks(sqlite_store, pool, problem):
    models = scripted(
        planner=["plan"], generator=[fenced(GOOD)], reviewer=[REVIEW_HIGH], optimizer=[fenced(GOOD)], explainer=["ok"]
    )
    _, result, _ = run(sqlite_store, pool, problem, "multi-full", models)
    assert result.nodes.count("generator") == 1 and result.passed


def test_visible_feedback_grades_on_held_out_tests(sqlite_store, pool, problem):
    overfit = "def add(a, b):\n    return 3\n"
    models = scripted(generator=[fenced(overfit)])
    _, result, _ = run(sqlite_store, pool, problem, "single-retry", models, feedback_tests="visible")
    assert result.nodes == ["generator", "evaluator", "grade"]  # passed the visible test, no retry
    assert not result.passed and result.tests_total == 2  # the two held-out tests
    executions = sqlite_store.executions_for_trial(result.trial_id)
    assert [(e.purpose, e.tests_total) for e in executions] == [("feedback", 1), ("grading", 2)]
    assert sqlite_store.get_trial(result.trial_id).feedback_source == "visible"


def test_generated_feedback_uses_model_tests_and_problem_tests_grade(sqlite_store, pool, problem):
    models = scripted(
        generator=[fenced(WRONG), fenced(GOOD)],
        evaluator=["assert add(2, 2) == 4\nassert add(0, 5) == 5\nthis is not a test"],
    )
    _, result, _ = run(sqlite_store, pool, problem, "single-retry", models, feedback_tests="generated")
    assert result.passed and result.retries_used == 1 and result.test_source == "problem"
    executions = sqlite_store.executions_for_trial(result.trial_id)
    assert [e.purpose for e in executions] == ["feedback", "feedback", "grading"]
    assert executions[0].tests_total == 2 and executions[-1].tests_total == 3


def test_problem_without_tests_is_graded_by_model_written_tests(sqlite_store, pool, problem):
    bare = problem.model_copy(update={"tests": [], "id": "add-bare"})
    models = scripted(generator=[fenced(GOOD)], evaluator=['[{"call": "add(2, 3)", "expected": 5}, {"oops": 1}]'])
    _, result, _ = run(sqlite_store, pool, bare, "single-oneshot", models)
    assert result.passed and result.test_source == "generated" and result.tests_total == 1
    step = next(s for s in sqlite_store.steps_for_trial(result.trial_id) if s.node == "evaluator")
    assert step.output["generated_dropped"] >= 1


def test_problem_without_any_tests_falls_back_to_a_smoke_run(sqlite_store, pool, problem):
    bare = problem.model_copy(update={"tests": [], "id": "add-smoke"})
    models = scripted(generator=[fenced("def add(a, b):\n    raise RuntimeError('boom')\n")], evaluator=["no idea"])
    _, result, _ = run(sqlite_store, pool, bare, "single-oneshot", models)
    assert result.test_source == "smoke" and result.passed, result.message  # defines add without crashing
    crashing = scripted(generator=[fenced("raise SystemExit(3)\n")], evaluator=["no idea"])
    _, result, _ = run(sqlite_store, pool, bare, "single-oneshot", crashing)
    assert result.test_source == "smoke" and not result.passed


def test_best_of_n_samples_at_an_equal_call_budget(sqlite_store, pool, problem):
    models = scripted(generator=[fenced(WRONG), fenced(WRONG), fenced(GOOD), fenced(WRONG)])
    _, result, _ = run(sqlite_store, pool, problem, "best-of-n@4", models)
    assert result.nodes == ["generator", "evaluator"] * 4 + ["grade"]
    assert result.passed  # pass@N
    grade = next(s for s in sqlite_store.steps_for_trial(result.trial_id) if s.node == "grade")
    assert grade.output["samples_total"] == 4 and grade.output["samples_passed"] == 1  # pass@1 = 1/4
    calls = sqlite_store.llm_calls_for_trial(result.trial_id)
    assert len({c.seed for c in calls}) == 4  # independent samples


def test_provider_failure_ends_the_trial_with_a_clear_error(sqlite_store, pool, problem):
    broken = {"generator": ScriptedChatModel(replies=["x"], error="Connection refused")}
    run_id, result, _ = run(sqlite_store, pool, problem, "single-oneshot", broken)
    assert result.status == "error" and "generator" in result.message and "Connection refused" in result.message
    trial = sqlite_store.get_trial(result.trial_id)
    assert trial.status == "error" and trial.error_class == "llm_error" and not trial.passed
    assert sqlite_store.get_run(run_id).status == "failed"


def test_lenient_parsing_repairs_are_recorded(sqlite_store, pool, problem):
    messy = "Sure! Here you go:\n```python\ndef add(a, b):\n    return a + b\n"  # unterminated fence
    models = scripted(generator=[messy])
    _, result, _ = run(sqlite_store, pool, problem, "single-oneshot", models)
    assert result.passed
    step = sqlite_store.steps_for_trial(result.trial_id)[0]
    assert step.output["repairs"]


def test_run_trial_reuses_a_queued_trial_row(sqlite_store, pool, problem):
    run_id = sqlite_store.create_run("batch", "t", {})
    sqlite_store.ensure_trials(
        run_id, [{"problem_id": "add", "condition": "single-oneshot", "seed": 0, "trial_index": 0}]
    )
    queued = sqlite_store.trials_for_run(run_id)[0]
    result = run_trial(
        problem,
        resolve_condition("single-oneshot"),
        sqlite_store,
        run_id=run_id,
        trial_id=queued.id,
        deps=TrialDeps(pool=pool, chat_models=scripted(generator=[fenced(GOOD)])),
    )
    assert result.trial_id == queued.id and len(sqlite_store.trials_for_run(run_id)) == 1
    assert sqlite_store.get_trial(queued.id).passed
