"""The Tests page on a real stored amplified suite: counts, provenance, mutation scores, a stored program it catches."""

from __future__ import annotations

import pytest

from execugraph.amplify.build import GENERATOR_VERSION, amplify_benchmark
from execugraph.amplify.references import reference_for
from execugraph.benchmarks import load_internal30
from execugraph.grading.rules import problem_grading_tests
from execugraph.store import Trial, utcnow
from execugraph.store.bulk_insert import bulk_writes
from tests.support.amplify_wrong import WRONG_PLAUSIBLE
from tests.ui.conftest import no_exception
from ui.views.amplified_tests import suite_tests

PID = "cycle_detect"


@pytest.fixture
def stored(db_store):
    """cycle_detect amplified (10 inputs) and stored, with two stored passing programs: the reference and a wrong one."""
    from sandbox import SandboxPool

    problem = next(p for p in load_internal30() if p.id == PID)
    with SandboxPool(workers=2) as pool:
        suite = amplify_benchmark(pool, "internal30", [problem], seed=0, per_problem=10)
    for amplified in suite.stored_problems():
        db_store.upsert_problem(amplified)
    run_id = db_store.create_run("batch", "tests page", {}, benchmark="internal30", status="done")
    rows = [{"run_id": run_id, "problem_id": PID, "benchmark": "internal30", "category": "x", "condition": "c",
             "seed": 0, "trial_index": i, "status": "done", "passed": True, "tests_passed": 1, "tests_total": 1,
             "test_source": "problem", "error_class": None, "final_code": code, "finished_at": utcnow()}
            for i, code in enumerate([reference_for(problem), WRONG_PLAUSIBLE[PID]])]
    with bulk_writes(db_store) as bulk:
        bulk.insert(Trial, rows)
    return problem, suite


def test_the_view_counts_scores_and_catches_the_wrong_stored_program(db_store, stored) -> None:
    from sandbox import SandboxPool

    problem, suite = stored
    with SandboxPool(workers=2) as pool:
        view = suite_tests(db_store, suite.name, pool)
    assert view.base == "internal30"
    assert view.provenance["generator"] == GENERATOR_VERSION and view.provenance["seed"] == "0"
    assert suite.provenance["reference_digest"].startswith(view.provenance["reference digest"])
    (row,) = view.problems
    assert (row.original, row.amplified) == (len(problem_grading_tests(problem)), suite.problems[0].added)
    assert row.amplified == 10
    assert row.mutants > 0 and row.amplified_score >= row.original_score
    assert (row.programs, row.programs_failing) == (2, 1)
    assert row.failing_input  # the call the wrong program got wrong


def test_the_tests_page_shows_the_suite_and_computes_on_demand(app, stored) -> None:
    problem, suite = stored
    at = app("tests")
    no_exception(at)
    assert at.title[0].value == "Tests"
    frame = at.dataframe[0].value
    assert list(frame["problem"]) == [PID]
    assert int(frame["original tests"][0]) == len(problem_grading_tests(problem))
    assert int(frame["amplified inputs"][0]) == 10
    assert frame["mutation score (original)"][0] == ""
    assert any(GENERATOR_VERSION in m.value and suite.provenance["reference_digest"][:12] in m.value for m in at.markdown)
    at.button(key="tests_compute").click().run()
    no_exception(at)
    frame = at.dataframe[0].value
    assert frame["mutation score (amplified)"][0].endswith("%")
    assert int(frame["fail amplified"][0]) == 1 and int(frame["stored passing programs"][0]) == 2
    assert frame["failing input"][0]
