"""Rescoring stored programs in the real sandbox: flips, agreement, unresolved problems, grading-test choice."""

from __future__ import annotations

from pathlib import Path

import pytest

from execugraph.configuration.conditions import resolve_condition
from execugraph.configuration.settings import DATA_DIR
from execugraph.domain.problem import Problem
from execugraph.publication import import_path
from execugraph.stats import build_report
from execugraph.store import Store
from execugraph.verdicts import rescore_run

pytestmark = pytest.mark.integration

FIXTURE = DATA_DIR / "fixtures" / "reference_layout" / "grid-demo"


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=2) as shared:
        yield shared


@pytest.fixture
def store(tmp_path: Path):
    with Store.open(str(tmp_path / "rescore.db")) as opened:
        yield opened


def _imported(store: Store) -> dict[str, int]:
    return {r.name.split("/")[-1]: r.id for r in import_path(store, FIXTURE).runs}


def test_a_mis_scored_sandbox_violation_flips_to_passed(store: Store, pool) -> None:
    runs = _imported(store)
    report = rescore_run(store, runs["e1_so"], pool=pool)
    assert (report.trials, report.rescored, report.agree) == (5, 5, 4)
    assert (report.passed_before, report.passed_after) == (2, 3)
    (flip,) = report.flips
    assert flip.problem_id == "climb_stairs" and (flip.was, flip.now) == ("sandbox_violation", "passed")
    assert flip.error_class == "sandbox_violation" and flip.condition == "single-oneshot"
    assert report.origins == {"internal30": 5}
    out = report.to_dict()
    assert out["agreement"]["rate"] == pytest.approx(0.8) and out["unresolved"] == 0
    assert out["by_condition"]["single-oneshot"] == {"rescored": 5, "passed_before": 2, "passed_after": 3, "flips": 1}
    child = store.get_run(report.run_id)
    assert (child.kind, child.parent_run_id, child.progress_passed) == ("rescore", runs["e1_so"], 3)
    assert child.config["retry_budget_by_condition"] == {"single-oneshot": 2}  # the budget, as published
    stats = build_report(store, [str(report.run_id)])
    assert (stats.runs[0].trials, stats.runs[0].passed) == (5, 3)
    climb = next(t for t in store.trials_for_run(report.run_id) if t.problem_id == "climb_stairs")
    assert climb.passed and climb.error_class is None and climb.tests_total == 7  # our suite, not the published 5
    (execution,) = store.executions_for_trial(climb.id)
    assert execution.verdict == "passed" and all(r["passed"] for r in execution.results)


def test_other_runs_agree_and_humaneval_resolves_to_the_official_tests(store: Store, pool) -> None:
    runs = _imported(store)
    retry = rescore_run(store, runs["e1_sr"], pool=pool)
    assert (retry.rescored, retry.agree, retry.flips) == (5, 5, [])
    humaneval = rescore_run(store, runs["e2_he_mf"], pool=pool)
    assert (humaneval.rescored, humaneval.agree, humaneval.origins) == (3, 3, {"humaneval": 3})
    failed = next(t for t in store.trials_for_run(humaneval.run_id) if not t.passed)
    assert failed.problem_id == "humaneval_4" and failed.error_class == "runtime_error"


def test_problems_without_tests_are_unresolved_never_failed(store: Store, pool) -> None:
    runs = _imported(store)
    report = rescore_run(store, runs["e3_apps_so"], pool=pool)
    assert (report.rescored, report.unresolved_trials, report.flips) == (0, 2, [])
    assert [u.problem_id for u in report.unresolved] == ["apps_intro_000", "apps_intro_012"]
    assert "APPS" in report.unresolved[0].reason
    assert store.trials_for_run(report.run_id) == []  # nothing counted as a failure
    assert store.get_run(report.run_id).config["rescore"]["unresolved"] == 2


def _run_with(store: Store, condition: str, trials: list[tuple[Problem, str | None, bool]], **overrides) -> int:
    config = resolve_condition(condition, **overrides).model_dump()
    run_id = store.create_run("batch", "hand-made", {"conditions": {condition: config}}, status="done")
    for index, (problem, code, passed) in enumerate(trials):
        store.upsert_problem(problem)
        trial = store.create_trial(run_id, problem.id, condition, 0, index, benchmark=problem.benchmark)
        store.finish_trial(trial, passed=passed, final_code=code, error_class=None if passed else "wrong_answer")
    return run_id


def _call(expr: str, expected, visible: bool = False) -> dict:
    return {"kind": "call", "expr": expr, "expected": expected, "visible": visible}


def test_visible_feedback_runs_are_regraded_on_their_held_out_tests_only(store: Store, pool) -> None:
    # The program only handles the visible example; graded on held-out tests it fails, as it did originally.
    problem = Problem(
        id="sq",
        benchmark="adhoc",
        statement="Square x.",
        entry_point="sq",
        tests=[_call("sq(2)", 4, visible=True), _call("sq(3)", 9), _call("sq(5)", 25)],
    )
    overfit = "def sq(x):\n    return 4\n"
    visible_run = _run_with(store, "single-retry", [(problem, overfit, False)], feedback_tests="visible")
    report = rescore_run(store, visible_run, pool=pool)
    (trial,) = store.trials_for_run(report.run_id)
    assert (trial.tests_total, trial.tests_passed, trial.passed) == (2, 0, False)
    assert report.agree == 1 and report.origins == {"store": 1}
    grading_run = _run_with(store, "single-retry", [(problem, overfit, False)])
    (trial,) = store.trials_for_run(rescore_run(store, grading_run, pool=pool).run_id)
    assert (trial.tests_total, trial.tests_passed) == (3, 1)


def test_trials_without_code_are_skipped_and_bad_suites_unresolved(store: Store, pool) -> None:
    good = Problem(id="one", benchmark="adhoc", statement="Return 1.", entry_point="one", tests=[_call("one()", 1)])
    broken = Problem(id="broken", benchmark="adhoc", statement="?", entry_point="f", tests=[{"kind": "teleport"}])
    untested = Problem(id="untested", benchmark="adhoc", statement="?", entry_point="f", tests=[])
    run_id = _run_with(
        store,
        "single-oneshot",
        [
            (good, "def one():\n    return 1\n", False),  # stored as failed: flips
            (good, None, False),
            (good, "   \n", False),
            (broken, "def f():\n    return 1\n", True),
            (untested, "def f():\n    return 1\n", True),
        ],
    )
    report = rescore_run(store, run_id, pool=pool)
    assert report.skipped == {"no_code": 2}
    assert (report.rescored, report.agree, len(report.flips)) == (1, 0, 1)
    reasons = {u.problem_id: u.reason for u in report.unresolved}
    assert "malformed" in reasons["broken"] and "no tests" in reasons["untested"]


def test_an_unknown_run_is_refused(store: Store, pool) -> None:
    with pytest.raises(LookupError, match="run 404 does not exist"):
        rescore_run(store, 404, pool=pool)
