"""Issue 30 point 2 (AppTest): a run rescored on stronger (amplified) tests is a verdict set on Statistics.

A real run of two arms on three internal-30 problems (references vs plausible wrong programs), a real amplified
suite built and stored with the sandbox, a real `rescore --suite amplified` child; the Statistics page then
offers "amplified" in its verdict-set select (`?verdicts=amplified`) with the engine's own numbers and
"holds under amplified", and names the programs the stronger tests caught.
"""

from __future__ import annotations

import pytest

from execugraph.amplify.build import amplify_benchmark
from execugraph.amplify.stored import resolve_suite
from execugraph.benchmarks import load_internal30
from execugraph.stats.family import Family
from execugraph.stats.sensitivity_sections import SuiteSensitivity
from execugraph.store import Store
from execugraph.verdicts import rescore_run
from execugraph.verdicts.suite_sensitivity import AMPLIFIED, suite_sensitivity
from tests.support.amplify_wrong import seed_two_arms
from tests.ui.conftest import no_exception
from ui.protocol_parts import EVERY_SET, VERDICTS

PROBLEMS = ("fib", "cycle_detect", "grid_shortest_path")  # the last two have a plausible wrong program


def _amplified_run(store: Store) -> int:
    """Arm 1 the references, arm 2 the wrong programs where we have them (all pass the original tests); then the
    suite amplified, stored, and the run rescored on it (a child run), as `amplify` + `rescore --suite` do."""
    from sandbox import SandboxPool

    problems = {p.id: p for p in load_internal30() if p.id in PROBLEMS}
    run_id = seed_two_arms(store, problems, PROBLEMS, "amplified arms")
    with SandboxPool(2) as pool:
        suite = amplify_benchmark(pool, "internal30", list(problems.values()), seed=0, per_problem=30)
        for problem in suite.stored_problems():
            store.upsert_problem(problem)
        benchmark_file, tests = resolve_suite(store, run_id, "amplified")
        rescore_run(store, run_id, pool=pool, tests=tests, benchmark_file=benchmark_file)
    return run_id


@pytest.fixture
def amplified(db_store: Store) -> tuple[int, SuiteSensitivity]:
    """The run and the engine's own suite sensitivity of its one pair (the page must show exactly this)."""
    run_id = _amplified_run(db_store)
    engine = suite_sensitivity(db_store, [run_id], family=Family())
    assert engine.available and engine.sets == ["as run", AMPLIFIED]
    return run_id, engine


def _table(at, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def test_amplified_tests_are_a_verdict_set_with_the_engines_numbers(app, amplified):
    run_id, engine = amplified
    (pair,) = engine.pairs
    at = app("statistics", runs=str(run_id))
    no_exception(at)
    picker = at.selectbox(key=VERDICTS)
    assert f"{AMPLIFIED} (beside as run)" in picker.options and picker.value == EVERY_SET  # no protocol set here
    every = _table(at, "same conclusion")
    assert list(every["delta amplified (pp)"]) == [round(pair.by_set[AMPLIFIED].delta_pp, 1)]
    assert list(every["delta as run (pp)"]) == [0.0] and list(every["programs changed"]) == [2]

    picker.set_value(AMPLIFIED).run()
    no_exception(at)
    assert at.query_params["verdicts"] == AMPLIFIED
    table = _table(at, f"holds under {AMPLIFIED}")
    assert list(table[f"holds under {AMPLIFIED}"]) == ["yes" if pair.survives[AMPLIFIED] else "NO"]
    p = pair.by_set[AMPLIFIED].p_holm
    assert list(table[f"p Holm {AMPLIFIED}"]) == [None if p is None else round(float(p), 4)]
    caught = _table(at, "problem_id")
    assert sorted(caught["problem_id"]) == ["cycle_detect", "grid_shortest_path"]
    assert any(f"#{engine.runs[AMPLIFIED][0]}" in str(c.value) for c in at.caption)  # which rescore run

    linked = app("statistics", runs=str(run_id), verdicts=AMPLIFIED)  # the copied link reopens this view
    no_exception(linked)
    assert linked.selectbox(key=VERDICTS).value == AMPLIFIED
    assert f"holds under {AMPLIFIED}" in _table(linked, "comparison").columns
    assert not [w for w in linked.warning if "Verdict set" in str(w.value)]


def test_amplified_in_a_link_without_an_amplified_rescore_is_named_and_kept(app, seeded_db):
    at = app("statistics", runs=str(seeded_db.batch), verdicts=AMPLIFIED)
    no_exception(at)
    assert any(AMPLIFIED in str(w.value) for w in at.warning)
    assert at.query_params["verdicts"] == AMPLIFIED
