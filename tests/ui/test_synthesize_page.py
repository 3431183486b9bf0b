"""Synthesize: submit the form with scripted models, watch the result render, find it stored; and the errors."""

from __future__ import annotations

import json

from standins.scripted import fenced, scripted
from tests.ui.conftest import no_exception, texts
from ui.keys import TEST_CHAT_MODELS, Synthesize

WRONG = "def add(a, b):\n    return a - b\n"
GOOD = "def add(a, b):\n    return a + b\n"
REVIEW = json.dumps({"invariants": ["returns a sum"], "potential_failures": [], "severity": "low"})


def _fill(at, statement="Return the sum of a and b.", entry="add"):
    at.text_area(key=Synthesize.STATEMENT).input(statement)
    at.text_input(key=Synthesize.ENTRY_POINT).input(entry)
    return at


def test_submitting_runs_the_agents_and_stores_the_trace(app, db_store):
    at = app("synthesize")
    models = scripted(
        planner=["1. add the two numbers"],
        generator=[fenced(WRONG), fenced(GOOD)],
        reviewer=[REVIEW],
        optimizer=[fenced(GOOD)],
        explainer=["It returns a plus b."],
    )
    at.session_state[TEST_CHAT_MODELS] = models
    at.session_state[Synthesize.TEST_ROWS_DATA] = [
        {"call": "add(1, 2)", "expected": "3", "visible": True},
        {"call": "add(-1, 1)", "expected": "0", "visible": False},
    ]
    at.run()
    _fill(at).selectbox(key=Synthesize.RETRY_BUDGET).set_value("2")
    at.button(key=Synthesize.SUBMIT).click().run()
    no_exception(at)
    job = at.session_state[Synthesize.JOB]
    assert job is not None and job.wait(120), "the synthesis did not finish"
    assert job.error is None, job.error
    at.run()
    no_exception(at)

    # rendered: verdict, final code, explanation, every step, per-test results and a link to the trace
    assert any("Passed: passed, 2/2 problem tests, 1 retry" in s for s in texts(at, "success")), texts(at, "success")
    assert any(GOOD.strip() == c.value.strip() for c in at.code)
    assert "It returns a plus b." in texts(at, "markdown")
    labels = [e.label for e in at.expander]
    assert [label.split(" · ")[0] for label in labels if label.startswith("#")] == [
        "#1 planner",
        "#2 generator",
        "#3 reviewer",
        "#4 evaluator",
        "#5 generator",
        "#6 reviewer",
        "#7 evaluator",
        "#8 optimizer",
        "#9 grade",
        "#10 explainer",
    ]
    assert any("wrong_answer 0/2 -> retry" in label for label in labels)
    assert any("Verdict: wrong_answer" in c.value for c in at.code)  # the feedback sent back to the generator
    link = at.get("page_link")[0]
    assert f"trial {job.result.trial_id}" in link.proto.label

    # stored: a single run with its trial, steps, LLM calls and sandbox executions
    run = db_store.get_run(job.run_id)
    assert run.kind == "single" and run.status == "done" and run.progress_passed == 1
    trial = db_store.get_trial(job.result.trial_id)
    assert trial.passed and trial.retries_used == 1 and trial.condition == "multi-full"
    assert len(db_store.steps_for_trial(trial.id)) == 10
    assert [c.role for c in db_store.llm_calls_for_trial(trial.id)][:2] == ["planner", "generator"]
    verdicts = [e.verdict for e in db_store.executions_for_trial(trial.id) if e.purpose == "feedback"]
    assert verdicts == ["wrong_answer", "passed"]
    problem = db_store.get_problem("adhoc", trial.problem_id)
    assert problem.entry_point == "add" and [t["expr"] for t in problem.tests] == ["add(1, 2)", "add(-1, 1)"]


def test_assert_tests_and_a_single_condition(app, db_store):
    at = app("synthesize")
    at.session_state[TEST_CHAT_MODELS] = scripted(generator=[fenced(GOOD)])
    at.run()
    _fill(at).radio(key=Synthesize.TESTS_MODE).set_value("Assert source").run()
    at.text_area(key=Synthesize.ASSERT_SOURCE).input("def check(candidate):\n    assert candidate(2, 3) == 5\n")
    at.selectbox(key=Synthesize.CONDITION).set_value("single-oneshot")
    at.button(key=Synthesize.SUBMIT).click().run()
    job = at.session_state[Synthesize.JOB]
    assert job.wait(120) and job.error is None
    at.run()
    assert job.result.passed and job.result.nodes == ["generator", "evaluator", "grade"]
    assert db_store.get_trial(job.result.trial_id).test_source == "problem"


def test_bad_input_is_refused_with_the_row_and_the_fix(app, db_store):
    at = app("synthesize")
    at.session_state[TEST_CHAT_MODELS] = scripted(generator=[fenced(GOOD)])
    at.session_state[Synthesize.TEST_ROWS_DATA] = [
        {"call": "add(1, 2)", "expected": "3", "visible": True},
        {"call": "add(1,", "expected": "3", "visible": False},
    ]
    at.run()
    _fill(at).button(key=Synthesize.SUBMIT).click().run()
    assert any("test row 2, field call: not valid Python" in e for e in texts(at, "error")), texts(at, "error")
    at.text_area(key=Synthesize.STATEMENT).input("   ")
    at.button(key=Synthesize.SUBMIT).click().run()
    assert any("the problem statement is empty" in e for e in texts(at, "error")), texts(at, "error")
    _fill(at).selectbox(key=Synthesize.CONDITION).set_value("single-retry")
    at.selectbox(key=Synthesize.RETRIEVAL).set_value("on")
    at.session_state[Synthesize.TEST_ROWS_DATA] = [{"call": "add(1, 2)", "expected": "3", "visible": True}]
    at.button(key=Synthesize.SUBMIT).click().run()
    assert any("choose a multi-* condition" in e for e in texts(at, "error")), texts(at, "error")
    assert at.session_state[Synthesize.JOB] is None and db_store.list_runs() == []  # nothing was started or stored


def test_an_unreachable_ollama_model_is_named_with_the_fix(app, db_store):
    at = app("synthesize", state={Synthesize.DEFAULT_MODEL: "ollama:qwen2.5-coder:7b"})
    _fill(at).button(key=Synthesize.SUBMIT).click().run()
    errors = texts(at, "error")
    assert any(
        "Ollama not reachable at http://127.0.0.1:9 - start it (`ollama serve`) or choose the embedded model" in e
        for e in errors
    ), errors
    assert at.session_state[Synthesize.JOB] is None and db_store.list_runs() == []


def _has(at, key: str) -> bool:
    """Whether a widget with this key is on the page now."""
    return any(getattr(w, "key", None) == key for kind in ("text_area", "text_input", "radio") for w in getattr(at, kind))


def test_assert_fields_are_shown_only_in_assert_mode(app):
    at = app("synthesize")
    assert at.radio(key=Synthesize.TESTS_MODE).value == "Call / expected table"
    assert not _has(at, Synthesize.ASSERT_SOURCE) and not _has(at, Synthesize.ASSERT_CALL)
    assert len(at.dataframe) == 1  # the call / expected table (a data editor)
    at.radio(key=Synthesize.TESTS_MODE).set_value("Assert source").run()
    assert _has(at, Synthesize.ASSERT_SOURCE) and _has(at, Synthesize.ASSERT_CALL)
    at.text_area(key=Synthesize.ASSERT_SOURCE).input("def check(candidate):\n    assert candidate(1) == 1\n").run()
    at.radio(key=Synthesize.TESTS_MODE).set_value("None (the evaluator writes tests)").run()
    assert not _has(at, Synthesize.ASSERT_SOURCE) and len(at.dataframe) == 0
    assert any("The evaluator model writes the tests" in c for c in texts(at, "caption"))
    at.radio(key=Synthesize.TESTS_MODE).set_value("Assert source").run()
    assert "candidate(1) == 1" in at.text_area(key=Synthesize.ASSERT_SOURCE).value  # what was typed survived
