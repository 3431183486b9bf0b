"""Issue 41, first bullet, on Synthesize: a benchmark-problem picker fills the form (and the run records the
benchmark problem while the form is as filled), placeholders read as examples, an assert check is counted with its
asserts, and the live view names the problem and the attempt."""

from __future__ import annotations

import pytest

from standins.scripted import fenced, scripted
from tests.ui.conftest import no_exception, texts
from ui.keys import TEST_CHAT_MODELS, Synthesize
from ui.views import problem_pick
from ui.views.form_input import TESTS_FROM_ASSERT, SynthesisRequest

CLIMB = "def climbStairs(n):\n    a, b = 1, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n"
SEVEN = "def check(candidate):\n" + "".join(f"    assert candidate({i}, 1) == {i + 1}\n" for i in range(7))


def _pick(at, benchmark: str, problem_id: str):
    at.selectbox(key=Synthesize.PICK_BENCHMARK).set_value(benchmark).run()
    at.selectbox(key=Synthesize.PICK_PROBLEM).set_value(problem_id).run()
    no_exception(at)
    return at


def test_picking_internal30_climb_stairs_fills_every_field(app):
    at = app("synthesize")
    assert at.selectbox(key=Synthesize.PICK_BENCHMARK).value == "none: write your own"
    assert {"internal30", "humaneval"} <= set(at.selectbox(key=Synthesize.PICK_BENCHMARK).options)
    _pick(at, "internal30", "climb_stairs")
    assert at.text_area(key=Synthesize.STATEMENT).value.startswith("A staircase has n steps.")
    assert at.text_input(key=Synthesize.ENTRY_POINT).value == "climbStairs"
    assert at.text_input(key=Synthesize.ALIASES).value == "climb_stairs, climbingStairs, climbing_stairs"
    assert at.text_input(key=Synthesize.SIGNATURE).value == "def climbStairs(n: int) -> int"
    assert at.radio(key=Synthesize.TESTS_MODE).value == "Call / expected table"
    table = at.dataframe[0].value  # the call / expected editor shows the seven tests, the first two visible
    assert list(table["call"]) == ["climbStairs(2)", "climbStairs(3)", "climbStairs(0)", "climbStairs(1)",
                                   "climbStairs(5)", "climbStairs(45)", "climbStairs(100)"]
    assert list(table["expected"])[-1] == "573147844013817084101" and list(table["visible"])[:3] == [True, True, False]
    assert any("Filled from internal30/climb" in c for c in texts(at, "caption")), texts(at, "caption")

    at.text_input(key=Synthesize.ENTRY_POINT).input("climb").run()  # editable
    assert at.text_input(key=Synthesize.ENTRY_POINT).value == "climb"
    _pick(at, "internal30", "fib")  # another pick replaces the table, not only the text fields
    assert list(at.dataframe[0].value["call"])[0].startswith("fib(")
    assert at.text_input(key=Synthesize.ENTRY_POINT).value == "fib"


def test_picking_a_humaneval_problem_fills_its_assert_check(app):
    at = _pick(app("synthesize"), "humaneval", "humaneval_0")
    assert at.text_input(key=Synthesize.ENTRY_POINT).value == "has_close_elements"
    assert at.radio(key=Synthesize.TESTS_MODE).value == TESTS_FROM_ASSERT
    assert "def check(candidate):" in at.text_area(key=Synthesize.ASSERT_SOURCE).value
    assert at.text_input(key=Synthesize.ASSERT_CALL).value == "check(candidate)"
    assert any("leaves out 2 of its tests" in c for c in texts(at, "caption")), texts(at, "caption")


def test_an_unchanged_pick_runs_as_the_benchmark_problem(app, db_store):
    at = app("synthesize")
    at.session_state[TEST_CHAT_MODELS] = scripted(generator=[fenced(CLIMB)])
    _pick(at, "internal30", "climb_stairs")
    at.selectbox(key=Synthesize.CONDITION).set_value("single-oneshot")
    at.button(key=Synthesize.SUBMIT).click().run()
    no_exception(at)
    job = at.session_state[Synthesize.JOB]
    assert job is not None and job.wait(120) and job.error is None, job and job.error
    at.run()
    assert job.problem.benchmark == "internal30" and job.problem.id == "climb_stairs"
    assert job.result.passed and job.result.tests_total == 7
    run = db_store.get_run(job.run_id)
    assert run.benchmark == "internal30"
    assert db_store.get_trial(job.result.trial_id).problem_id == "climb_stairs"


def _request(**changes) -> SynthesisRequest:
    """The form as the climb_stairs pick filled it, with `changes` typed over it."""
    problem = problem_pick.picked_problem("internal30", "climb_stairs")
    fields = {**problem_pick.fields_of(problem_pick.form_fields(problem)), **changes}
    return SynthesisRequest(condition="single-oneshot", picked=problem, **fields)


def test_an_edited_pick_runs_as_an_ad_hoc_problem_with_the_forms_content():
    problem, _ = _request().build()
    assert (problem.benchmark, problem.id) == ("internal30", "climb_stairs")
    assert len(problem.tests) == 7 and problem.aliases == ["climb_stairs", "climbingStairs", "climbing_stairs"]
    edited, _ = _request(statement=problem.statement + "\nBe quick.").build()
    assert edited.benchmark == "adhoc" and edited.statement.endswith("Be quick.")
    assert edited.entry_point == "climbStairs" and [t["expr"] for t in edited.tests] == [t["expr"] for t in problem.tests]
    assert [t["expected"] for t in edited.tests] == [t["expected"] for t in problem.tests]
    assert _request(signature="def climbStairs(n)").build()[0].benchmark == "adhoc"


def test_placeholders_read_as_examples(app):
    at = app("synthesize")
    at.radio(key=Synthesize.TESTS_MODE).set_value(TESTS_FROM_ASSERT).run()
    boxes = [at.text_area(key=Synthesize.STATEMENT), at.text_input(key=Synthesize.ENTRY_POINT),
             at.text_input(key=Synthesize.ALIASES), at.text_input(key=Synthesize.SIGNATURE),
             at.text_area(key=Synthesize.ASSERT_SOURCE)]
    for box in boxes:
        assert box.placeholder.startswith("e.g."), (box.key, box.placeholder)


def test_seven_asserts_are_counted_as_one_check_with_seven_asserts(app):
    at = app("synthesize")
    at.session_state[TEST_CHAT_MODELS] = scripted(generator=[fenced("def add(a, b):\n    return a - b\n")])
    at.run()
    at.text_area(key=Synthesize.STATEMENT).input("Return the sum of a and b.")
    at.text_input(key=Synthesize.ENTRY_POINT).input("add")
    at.radio(key=Synthesize.TESTS_MODE).set_value(TESTS_FROM_ASSERT).run()
    at.text_area(key=Synthesize.ASSERT_SOURCE).input(SEVEN)
    at.selectbox(key=Synthesize.CONDITION).set_value("single-oneshot")
    at.button(key=Synthesize.SUBMIT).click().run()
    job = at.session_state[Synthesize.JOB]
    assert job is not None and job.wait(120) and job.error is None
    at.run()
    warnings = texts(at, "warning")
    assert any("0/1 problem tests (1 check with 7 asserts" in w for w in warnings), warnings


@pytest.mark.parametrize(
    ("seen", "budget", "line"),
    [([], 3, "attempt 1 of 4 (retry budget 3)"), ([0, 0, 1], 2, "attempt 2 of 3 (retry budget 2)"),
     ([0], 0, "attempt 1 of 1")],
)
def test_the_attempt_line(seen, budget, line):
    assert problem_pick.attempt_line(seen, budget) == line


def test_a_problem_is_named_by_its_benchmark_id_or_entry_point():
    assert problem_pick.problem_name(problem_pick.picked_problem("internal30", "climb_stairs")) == (
        "internal30/climb_stairs")
    adhoc, _ = SynthesisRequest(statement="Add.", entry_point="add").build()
    assert problem_pick.problem_name(adhoc) == "add"


def test_the_live_view_names_the_problem_and_the_attempt(app, db_store):
    from execugraph.configuration.conditions import resolve_condition
    from ui.jobs import SynthesisJob

    problem = problem_pick.picked_problem("internal30", "climb_stairs")
    job = SynthesisJob(db_store, problem, resolve_condition("single-retry", retry_budget=2))  # never started
    for seq, (node, attempt) in enumerate([("generator", 0), ("evaluator", 0), ("generator", 1)], start=1):
        job._emit({"type": "node_started", "node": node, "attempt": attempt, "trial_id": 1})
        job._emit({"type": "node_finished", "node": node, "attempt": attempt, "trial_id": 1, "step_id": seq,
                   "output": {}})
    at = app("synthesize", state={Synthesize.JOB: job})
    no_exception(at)
    headers = [h.value for h in at.subheader]
    assert any(h.startswith("Running single-retry on internal30/climb") and "adhoc" not in h for h in headers), headers
    assert any("attempt 2 of 3 (retry budget 2)" in c for c in texts(at, "caption")), texts(at, "caption")
