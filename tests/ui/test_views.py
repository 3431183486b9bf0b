"""The dashboard's view models (ui.views): form parsing, trace reading, report reshaping, SQL listings."""

from __future__ import annotations

import pytest

from execugraph.batch.spec import BatchSpec
from execugraph.benchmarks import load_benchmark
from execugraph.stats import minimum_detectable_difference
from execugraph.stats.report_model import StatsReport
from execugraph.store import run_reads, trace_reads
from ui import views


def test_test_rows_accept_json_and_python_literals_and_skip_blank_rows():
    tests = views.adhoc_tests_from_rows(
        [
            {"call": "f(1)", "expected": "[1, 2]", "visible": True},
            {"call": "", "expected": "", "visible": False},
            {"call": "f(2)", "expected": "(1, 2)"},
            {"call": "f(3)", "expected": "None"},
            {"call": "f(4)", "expected": "null"},
            {"call": "f(5)", "expected": '"text"'},
        ]
    )
    assert [t["expected"] for t in tests] == [[1, 2], (1, 2), None, None, "text"]
    assert [t["name"] for t in tests] == ["row 1", "row 3", "row 4", "row 5", "row 6"]
    assert [t["visible"] for t in tests] == [True, False, False, False, False]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            [{"call": "f(1)", "expected": "abc"}],
            "test row 1, field expected: 'abc' is neither JSON nor a Python literal",
        ),
        ([{"call": "", "expected": "1"}], "test row 1, field call: empty"),
        ([{"call": "f(1)", "expected": ""}], "test row 1, field expected: empty"),
        (
            [{"call": "ok()", "expected": "1"}, {"call": "f(", "expected": "1"}],
            "test row 2, field call: not valid Python",
        ),
    ],
)
def test_bad_test_rows_name_the_row_and_field(rows, message):
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        views.adhoc_tests_from_rows(rows)


def test_assert_tests_need_an_entry_point():
    with pytest.raises(ValueError, match="entry point: required"):
        views.adhoc_tests_from_assert("def check(c):\n    assert c(1) == 1\n")
    test = views.adhoc_tests_from_assert("def check(c):\n    assert c(1) == 1\n", "", "f")[0]
    assert test == {
        "kind": "assert",
        "name": "assert",
        "source": "def check(c):\n    assert c(1) == 1\n",
        "call": "check(candidate)",
    }
    assert views.adhoc_tests_from_assert("   ") == []


def test_synthesis_request_builds_problem_and_config():
    request = views.SynthesisRequest(
        "Add two numbers.",
        "single-retry",
        entry_point="add",
        aliases="plus, sum2",
        rows=[{"call": "add(1, 2)", "expected": "3"}],
        retry_budget="5",
        models={"generator": "ollama:x"},
        feedback_tests="visible",
        test_timeout_s=2.5,
    )
    problem, config = request.build()
    assert problem.aliases == ["plus", "sum2"] and problem.entry_point == "add" and len(problem.tests) == 1
    assert config.condition == "single-retry" and config.retry_budget == 5 and config.feedback_tests == "visible"
    assert config.test_timeout_s == 2.5 and config.model_for("generator") == "ollama:x"
    assert config.model_for("planner") == "llamacpp:default"
    assert views.models_needed(config, problem) == ["ollama:x"]
    _, default = views.SynthesisRequest("Add.", "single-retry").build()
    assert default.retry_budget == 3  # "condition default" keeps the condition's own budget
    with pytest.raises(ValueError, match="aliases need an entry point"):
        views.SynthesisRequest("Add.", aliases="plus").build()


def test_model_problems_name_the_fix(tmp_path):
    problems = views.model_problems(
        ["ollama:qwen", "llamacpp:" + str(tmp_path / "none.gguf"), "nonsense"], "http://127.0.0.1:9"
    )
    assert [p.spec for p in problems] == ["ollama:qwen", "llamacpp:" + str(tmp_path / "none.gguf"), "nonsense"]
    assert str(problems[0]) == (
        "ollama:qwen: Ollama not reachable at http://127.0.0.1:9 - start it (`ollama serve`) "
        "or choose the embedded model"
    )
    assert "GGUF file not found" in problems[1].problem
    assert views.model_choices("http://127.0.0.1:9")[0] == ["llamacpp:default"]


def _step(seq, node, **output):
    return {"seq": seq, "node": node, "attempt": 0, "output": output}


def test_first_divergence_finds_the_first_step_that_steers_differently():
    a = [
        _step(1, "generator", code="x = 1"),
        _step(2, "evaluator", verdict="wrong_answer", tests_passed=0, tests_total=2, decision="retry"),
    ]
    assert views.first_divergence(a, a) is None
    b = [_step(1, "generator", code="x = 2"), *a[1:]]
    assert views.first_divergence(a, b) == views.Divergence(0, "generator wrote different code", 1, 1)
    c = [a[0], _step(2, "evaluator", verdict="passed", tests_passed=2, tests_total=2, decision="grade")]
    found = views.first_divergence(a, c)
    assert found.index == 1 and found.reason == (
        "evaluator: wrong_answer (0/2 tests, then retry) vs passed (2/2 tests, then grade)"
    )
    d = [_step(1, "planner", plan="p"), *a]
    assert views.first_divergence(d, a).reason == "different agent: planner vs generator"
    assert (
        views.first_divergence(a, a + [_step(3, "generator", code="y")]).reason
        == "the second trial goes on with generator"
    )
    explained = [*a, _step(3, "explainer", explanation="one")]
    assert views.first_divergence(explained, [*a, _step(3, "explainer", explanation="two")]) is None


def test_code_attempts_and_diffs():
    steps = [
        _step(1, "generator", code="a\n", reason="initial"),
        _step(2, "evaluator"),
        {**_step(3, "generator", code="b\n", reason="retry"), "attempt": 1},
        _step(4, "optimizer", candidate="c\n", accepted=False),
    ]
    attempts = views.code_attempts(steps)
    assert [a["code"] for a in attempts] == ["a\n", "b\n", "c\n"]
    assert attempts[2]["label"] == "optimizer candidate (step 4, rejected)"
    assert views.code_diff("a\n", "b\n", "one", "two") == "--- one\n+++ two\n@@ -1 +1 @@\n-a\n+b\n"
    assert views.code_diff("same", "same") == ""


def test_test_result_rows_are_uniform_text():
    rows = views.test_result_rows(
        [
            {"name": "t", "passed": True, "expected": [1], "got": (1,), "extra": 3},
            {"passed": False, "expected": "x" * 400},
        ]
    )
    assert rows[0] == {"name": "t", "passed": "yes", "expected": "[1]", "got": "(1,)", "extra": "3"}
    assert rows[1]["passed"] == "no" and len(rows[1]["expected"]) == 300


REPORT = {
    "pairs": [
        {
            "a": "single-oneshot",
            "b": "multi-full",
            "delta_pp": 20.0,
            "ci_lo": 5.0,
            "ci_hi": 35.0,
            "n": 30,
            "p_holm": 0.01,
        },
        {"a": "multi-full", "b": "multi-rag", "delta_pp": 3.0, "ci_lo": -4.0, "ci_hi": 9.0, "n": 30, "p_holm": 0.5},
        {
            "a": "single-oneshot",
            "b": "multi-rag",
            "delta_pp": 23.0,
            "ci_lo": 9.0,
            "ci_hi": 37.0,
            "n": 30,
            "p_holm": 0.01,
        },
    ]
}


# what a pair needs besides the numbers these tests read
UNREAD = {"problems_differ": 0, "majority_discordant": 0, "p_wilcoxon": 1.0, "p_mcnemar": 1.0, "wilcoxon_method": "exact"}


def _report(raw: dict) -> StatsReport:
    return StatsReport.model_validate({"pairs": [UNREAD | p for p in raw["pairs"]]})


def test_deltas_are_oriented_arm_minus_reference():
    rows = views.deltas_against(_report(REPORT), "multi-full")
    assert [(r["arm"], r["delta_pp"], r["ci_lo"], r["ci_hi"]) for r in rows] == [
        ("single-oneshot", -20.0, -35.0, -5.0),
        ("multi-rag", 3.0, -4.0, 9.0),
    ]
    assert (
        views.deltas_against(
            _report({"pairs": [{**REPORT["pairs"][0], "a": "1:single-oneshot", "b": "1:multi-full"}]}), "1:multi-full"
        )[0]["arm"]
        == "1:single-oneshot"
    )


def test_plan_batch_matches_the_power_function():
    problems = load_benchmark("internal30")
    spec = BatchSpec(
        categories=["dp", "graph"], conditions=["single-oneshot", "multi-full", "multi-rag"], seeds=[0, 1], trials=2
    )
    plan = views.plan_batch(spec, problems, 0.4)
    assert (plan.problems, plan.conditions, plan.total_trials, plan.pairs) == (20, 3, 240, 3)
    assert plan.mdd_pp == minimum_detectable_difference(20, 4, 0.4).mdd_pp
    assert plan.mdd_holm_pp == minimum_detectable_difference(20, 4, 0.4, alpha=0.05 / 3).mdd_pp > plan.mdd_pp
    tiny = views.plan_batch(BatchSpec(problem_ids=["fib"], conditions=["single-oneshot"]), problems, 0.5)
    assert tiny.mdd_pp is None and "at least 2 problems" in tiny.note


def test_run_listings_count_in_sql(seeded_db, db_store):
    rows = views.run_rows(db_store)
    assert [r["id"] for r in rows] == [seeded_db.cancelled, seeded_db.running, seeded_db.single, seeded_db.batch]
    batch = rows[-1]
    progress = db_store.run_progress(seeded_db.batch)
    assert (batch["trials"], batch["finished"], batch["passed"]) == (
        progress["total"],
        progress["finished"],
        progress["passed"],
    )
    assert (batch["graded"], batch["errors"]) == (progress["done"], progress["error"])
    assert batch["pass_rate"] == progress["passed"] / progress["done"] and batch["tags"] == "paper, seeded"
    assert batch["status"] == ("done with errors" if progress["error"] else "done")
    assert [r["id"] for r in views.run_rows(db_store, kind="batch", status="done")] == [seeded_db.batch]
    assert views.filter_choices(db_store)["benchmark"] == ["internal30"]
    assert run_reads.conditions_in_order(db_store, [seeded_db.batch]) == [
        "single-oneshot",
        "single-retry",
        "multi-full",
        "multi-rag",
    ]
    assert run_reads.latest_finished_run(db_store) == seeded_db.single
    assert run_reads.latest_finished_run(db_store, "batch") == seeded_db.batch
    active = views.active_batches(db_store)
    assert [r["id"] for r in active][:2] == [seeded_db.running, seeded_db.cancelled]
    assert active[0]["done"] == 3 and active[0]["total"] == 8


def test_trial_listings_and_siblings(seeded_db, db_store):
    passed = trace_reads.trial_rows(db_store, seeded_db.batch, outcome="passed")
    failed = trace_reads.trial_rows(db_store, seeded_db.batch, outcome="failed")
    assert passed and failed and all(t["passed"] for t in passed) and not any(t["passed"] for t in failed)
    assert len(passed) + len(failed) == len(db_store.trials_for_run(seeded_db.batch))
    only = trace_reads.trial_rows(db_store, seeded_db.batch, condition="multi-rag", problem_id="fib")
    assert {(t["condition"], t["problem_id"]) for t in only} == {("multi-rag", "fib")} and len(only) == 2
    with pytest.raises(ValueError, match="outcome must be one of"):
        trace_reads.trial_rows(db_store, seeded_db.batch, outcome="maybe")
    trial = db_store.get_trial(seeded_db.failed_trial)
    siblings = views.sibling_trials(db_store, trial.id)
    assert siblings and all(s["problem_id"] == trial.problem_id and s["id"] != trial.id for s in siblings)
    outcomes = [bool(s["passed"]) for s in siblings]
    assert outcomes == sorted(outcomes, reverse=True)  # the opposite outcome (passed) first
    steps = views.step_rows(db_store, trial.id)
    assert [s["seq"] for s in steps] == list(range(1, len(steps) + 1))
    assert all(s["duration_s"] > 0 for s in steps) and steps[0]["start_s"] == 0.0
    assert steps[0]["llm_calls"] == 1 and steps[0]["tokens_in"] == 180


def test_hit_matrix_is_dense_and_can_be_cut(seeded_db, db_store):
    matrix = views.hit_matrix(db_store, seeded_db.batch)
    assert len(matrix["scores"]) == len(matrix["problems"]) == 4 and not matrix["truncated"]
    assert all(v is not None for row in matrix["scores"] for v in row)
    cut = views.hit_matrix(db_store, seeded_db.batch, max_problems=2, max_techniques=1)
    assert len(cut["problems"]) == 2 and len(cut["techniques"]) == 1 and cut["truncated"]
    assert trace_reads.runs_with_hits(db_store) == [(seeded_db.batch, "internal30 ablation (seeded)", 24)]


def test_call_tests_without_an_entry_point_ask_for_it():
    """Without an entry point the program is a stdin/stdout one, which call tests cannot test: the form says so."""
    with pytest.raises(ValueError, match="name it in Entry point"):
        views.SynthesisRequest("Add two numbers.", rows=[{"call": "add(1, 2)", "expected": "3"}]).build()
    problem, _ = views.SynthesisRequest("Read n, print 2n.", tests_mode=views.TEST_MODES[2]).build()
    assert problem.entry_point is None and problem.tests == []
