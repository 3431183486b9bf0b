"""What Trace's Compare shows, on a real SQLite store: the final programs and their diff, attempts paired by number
(never empty code because the trials parted at a reviewer), imported trials' recorded code, and each trial's verdict
under the published set and under every rescore of its run."""

from __future__ import annotations

from execugraph.domain.steps import RECORD_NODE
from execugraph.store import Store
from tests.support import diverging_trials as dt
from tests.support.trace_rows import add_step, finish_step
from ui.views import first_divergence, step_rows
from ui.views import trial_compare as tc

IMPORTED_CODE = "def fib(n):\n    return 0\n"


def _imported(store: Store) -> tuple[int, int]:
    """An import run with one fib trial (code, a record step, no generator steps): (run id, trial id)."""
    run_id = store.create_run("import", "published/e1_so", {}, benchmark="internal30", status="done")
    trial_id = store.create_trial(run_id, "fib", "single-oneshot", 0, 0, category="dp", benchmark="internal30")
    step = add_step(store, trial_id, RECORD_NODE)
    finish_step(store, step, output={"line": 1, "source": "trials.jsonl"})
    store.finish_trial(trial_id, passed=False, error_class="AssertionError", final_code=IMPORTED_CODE)
    return run_id, trial_id


def _rescore(store: Store, parent: int, protocol: str | None, verdicts: dict[int, bool], **summary: object) -> int:
    """A rescore child of `parent` (config as `verdicts.rescore` stores it) holding the given trials' new verdicts."""
    config = {"rescore": {"grading_protocol": protocol, "tests": "recorded", **summary}}
    child = store.create_run("rescore", f"rescore of run {parent}", config, parent_run_id=parent, status="done")
    for trial_id, passed in verdicts.items():
        t = store.get_trial(trial_id)
        assert t is not None
        copy = store.create_trial(child, t.problem_id, t.condition, t.seed, t.trial_index, benchmark=t.benchmark)
        store.finish_trial(copy, passed=passed, error_class=None if passed else "NameError", final_code=t.final_code)
    return child


def test_final_code_and_attempts_come_from_generator_steps_not_the_divergence(sqlite_store: Store) -> None:
    pair = dt.seed_pair(sqlite_store)
    a, b = sqlite_store.get_trial(pair.reviewed), sqlite_store.get_trial(pair.retried)
    steps_a, steps_b = step_rows(sqlite_store, pair.reviewed), step_rows(sqlite_store, pair.retried)
    divergence = first_divergence(steps_a, steps_b)
    assert divergence is not None and divergence.reason == "different agent: reviewer vs evaluator"

    assert tc.final_code(a, steps_a) == dt.REVISED and tc.final_code(b, steps_b) == dt.LAST
    assert [(x.number, x.reason, x.code) for x in tc.attempts(b, steps_b)] == [
        (1, "initial", dt.FIRST), (2, "retry", dt.RETRIED), (3, "retry", dt.LAST)]
    shown = tc.compare(sqlite_store, a, steps_a, b, steps_b)
    assert f"--- trial {a.id} (final)" in shown.final_diff and f"+++ trial {b.id} (final)" in shown.final_diff
    assert "-    a, b = 0, 1\n" in shown.final_diff and "+    return [0, 1, 1, 2, 3, 5][n]\n" in shown.final_diff
    assert [p.number for p in shown.attempts] == [1, 2, 3]
    first, second, third = shown.attempts
    assert first.diff() == ""  # both started from the same program
    assert "-    a, b = 0, 1\n" in second.diff("x", "y") and "+++ y attempt 2" in second.diff("x", "y")
    assert third.a is None and third.b is not None and third.b.code == dt.LAST and third.diff() == ""


def test_without_a_recorded_final_program_the_last_generator_code_is_final(sqlite_store: Store) -> None:
    pair = dt.seed_pair(sqlite_store)
    sqlite_store.update_trial(pair.retried, final_code=None)
    trial = sqlite_store.get_trial(pair.retried)
    assert tc.final_code(trial, step_rows(sqlite_store, pair.retried)) == dt.LAST
    empty = sqlite_store.create_trial(pair.run_id, "fib", "single-oneshot", 0, 0, benchmark="internal30")
    assert tc.final_code(sqlite_store.get_trial(empty), []) == "" and tc.attempts(sqlite_store.get_trial(empty), []) == []


def test_an_imported_trial_compares_by_its_recorded_code_on_either_side(sqlite_store: Store) -> None:
    pair = dt.seed_pair(sqlite_store)
    _, imported_id = _imported(sqlite_store)
    imported, steps = sqlite_store.get_trial(imported_id), step_rows(sqlite_store, imported_id)
    assert not tc.has_agent_steps(steps) and tc.has_agent_steps(step_rows(sqlite_store, pair.retried))
    assert tc.attempts(imported, steps) == [tc.Attempt(1, tc.RECORDED, IMPORTED_CODE)]
    agent, agent_steps = sqlite_store.get_trial(pair.retried), step_rows(sqlite_store, pair.retried)

    as_current = tc.compare(sqlite_store, imported, steps, agent, agent_steps)
    assert as_current.final_a == IMPORTED_CODE and "-    return 0\n" in as_current.final_diff
    assert [(p.number, p.a is not None, p.b is not None) for p in as_current.attempts] == [
        (1, True, True), (2, False, True), (3, False, True)]
    as_sibling = tc.compare(sqlite_store, agent, agent_steps, imported, steps)
    assert as_sibling.final_b == IMPORTED_CODE and "+    return 0\n" in as_sibling.final_diff
    assert as_sibling.attempts[0].b == tc.Attempt(1, tc.RECORDED, IMPORTED_CODE) and as_sibling.attempts[2].b is None


def test_verdicts_under_the_published_set_and_each_rescore_from_any_member_of_the_family(sqlite_store: Store) -> None:
    run_id, imported_id = _imported(sqlite_store)
    other = sqlite_store.create_trial(run_id, "fib", "single-oneshot", 1, 0, benchmark="internal30")
    sqlite_store.finish_trial(other, passed=True, final_code=IMPORTED_CODE)
    standalone = _rescore(sqlite_store, run_id, "standalone", {imported_id: False})
    with_prompt = _rescore(sqlite_store, run_id, "with-prompt", {imported_id: True})
    current = _rescore(sqlite_store, run_id, "with-prompt", {other: True}, tests="current")
    again = _rescore(sqlite_store, run_id, "standalone", {imported_id: True})

    verdicts = tc.verdict_sets(sqlite_store, sqlite_store.get_trial(imported_id))
    assert [(v.label, v.text, v.run_id) for v in verdicts] == [
        ("published", "failed (AssertionError)", run_id),
        ("standalone", "failed (NameError)", standalone),
        ("with-prompt", "passed", with_prompt),
        ("with-prompt (current tests)", "not rescored", current),
        (f"standalone (run {again})", "passed", again),
    ]
    assert verdicts[0].trial_id == imported_id and verdicts[3].trial_id is None
    assert tc.verdict_line(verdicts[:3]) == (
        "published: failed (AssertionError) · standalone: failed (NameError) · with-prompt: passed")

    rescored = sqlite_store.find_trial(with_prompt, "fib", "single-oneshot", 0, 0)
    assert tc.verdict_sets(sqlite_store, rescored) == verdicts  # the same family, seen from the child


def test_a_run_without_rescores_has_its_verdict_as_run(sqlite_store: Store) -> None:
    pair = dt.seed_pair(sqlite_store)
    (only,) = tc.verdict_sets(sqlite_store, sqlite_store.get_trial(pair.retried))
    assert (only.label, only.text, only.trial_id) == ("as run", "failed (AssertionError)", pair.retried)
    protocol_less = _rescore(sqlite_store, pair.run_id, None, {pair.retried: True})
    labels = [v.label for v in tc.verdict_sets(sqlite_store, sqlite_store.get_trial(pair.retried))]
    assert labels == ["as run", "rescore"] and protocol_less


def test_verdict_text() -> None:
    assert tc.verdict_text(True, "none") == "passed"
    assert tc.verdict_text(False, "wrong_answer") == "failed (wrong_answer)"
    assert tc.verdict_text(False, "none") == tc.verdict_text(False, None) == "failed"
    assert tc.verdict_text(None, None, "error") == "error" and tc.verdict_text(None, None) == "not graded"
