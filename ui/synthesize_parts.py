"""The Synthesize page's pieces: the problem inputs, the run settings, the live view and the final result."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st

from execugraph.benchmarks import BenchmarkError
from execugraph.configuration.conditions import condition_description, condition_names
from execugraph.safety.inert_text import md_text, one_line
from ui import keys, protocol_parts, views
from ui.jobs import SynthesisJob
from ui.keys import Synthesize
from ui.views import problem_pick
from ui.views.explanation_gap import trial_gap
from ui.widgets import model_pickers

if TYPE_CHECKING:
    from execugraph.store import Store


def _clear_pick() -> None:
    """A new benchmark: no problem of it is picked yet (the fields keep what they hold)."""
    st.session_state[Synthesize.PICK_PROBLEM] = None


def _fill_from_pick() -> None:
    """Fill the problem fields from the picked benchmark problem (they stay editable)."""
    s = st.session_state
    benchmark, problem_id = s.get(Synthesize.PICK_BENCHMARK), s.get(Synthesize.PICK_PROBLEM)
    if benchmark not in problem_pick.pickable() or not problem_id:
        return
    fields = problem_pick.form_fields(problem_pick.picked_problem(benchmark, problem_id))
    s[Synthesize.STATEMENT], s[Synthesize.ENTRY_POINT] = fields.statement, fields.entry_point
    s[Synthesize.ALIASES], s[Synthesize.SIGNATURE] = fields.aliases, fields.signature
    s[Synthesize.TESTS_MODE] = fields.tests_mode
    s[Synthesize.ASSERT_SOURCE], s[Synthesize.ASSERT_CALL] = fields.assert_source, fields.assert_call
    rows = fields.rows or [{"call": "", "expected": "", "visible": True}]
    s[Synthesize.TEST_ROWS_DATA], s[keys.SYN_TEST_ROWS_KEPT] = rows, [dict(r) for r in rows]
    if Synthesize.TEST_ROWS in s:  # the table starts over from the new rows, not the old edits
        del s[Synthesize.TEST_ROWS]


def picked() -> Any:
    """The benchmark Problem the picker names now, or None (write your own)."""
    s = st.session_state
    benchmark, problem_id = s.get(Synthesize.PICK_BENCHMARK), s.get(Synthesize.PICK_PROBLEM)
    if benchmark not in problem_pick.pickable() or not problem_id:
        return None
    try:
        return problem_pick.picked_problem(benchmark, problem_id)
    except (KeyError, BenchmarkError):
        return None


def problem_picker() -> None:
    """Benchmark, then a searchable problem id; picking one fills the fields below."""
    a, b = st.columns([2, 3])
    benchmark = a.selectbox("Benchmark problem", [problem_pick.PICK_NONE, *problem_pick.pickable()],
                            key=Synthesize.PICK_BENCHMARK, on_change=_clear_pick, persist_state=keys.PERSIST,
                            help="fill the form from a built-in benchmark's problem, as `execugraph run --problem` "
                            "runs it")
    if benchmark == problem_pick.PICK_NONE:
        return
    try:
        ids = problem_pick.problem_ids(benchmark)
    except BenchmarkError as exc:
        st.warning(f"{benchmark} cannot load: {md_text(one_line(exc))}", icon=":material/warning:")
        return
    chosen = b.selectbox("Problem id (type to search)", ids, index=None, key=Synthesize.PICK_PROBLEM,
                         placeholder="choose a problem", on_change=_fill_from_pick, persist_state=keys.PERSIST)
    problem = picked()
    if chosen and problem is not None:
        fields = problem_pick.form_fields(problem)
        shown = len(problem.tests) - len(fields.left_out)
        note = (f" The form leaves out {len(fields.left_out)} of its tests "
                f"({md_text(one_line(', '.join(fields.left_out)))}); they run while the fields stay as filled."
                if fields.left_out else "")
        st.caption(f":material/bookmark: Filled from {md_text(benchmark)}/{md_text(chosen)}: the statement, and "
                   f"{shown} {'test' if shown == 1 else 'tests'} with the entry point under *Entry point, aliases and "
                   "tests*. Unchanged, the run records it as that benchmark problem; edited, as an ad-hoc problem with "
                   f"the form's content.{note}")


def problem_inputs() -> list[dict[str, Any]]:
    """Statement, entry point, aliases, signature and the tests of the chosen kind; returns the test table's rows.

    Only the fields of the chosen test mode are shown: the table for call tests, the assert boxes for an assert
    suite, nothing for model-written tests. The benchmark-problem picker above them can fill them all.
    """
    problem_picker()
    st.text_area(
        "Problem statement",
        key=Synthesize.STATEMENT,
        persist_state=keys.PERSIST,
        height=150,
        placeholder="e.g. Return the length of the longest strictly increasing subsequence of nums.",
    )
    if Synthesize.TEST_ROWS not in st.session_state and keys.SYN_TEST_ROWS_KEPT in st.session_state:
        st.session_state[Synthesize.TEST_ROWS_DATA] = st.session_state[keys.SYN_TEST_ROWS_KEPT]  # back from another page
    rows = list(st.session_state[Synthesize.TEST_ROWS_DATA])
    for key in (Synthesize.ASSERT_SOURCE, Synthesize.ASSERT_CALL):  # keep what was typed while the assert boxes are hidden
        st.session_state[key] = st.session_state[key]
    with st.expander("Entry point, aliases and tests (optional)"):
        a, b = st.columns(2)
        a.text_input("Entry point", key=Synthesize.ENTRY_POINT, placeholder="e.g. lengthOfLIS", persist_state=keys.PERSIST)
        b.text_input("Aliases", key=Synthesize.ALIASES, placeholder="e.g. length_of_lis, lis", persist_state=keys.PERSIST)
        st.text_input("Signature", key=Synthesize.SIGNATURE, placeholder="e.g. def lengthOfLIS(nums: list[int]) -> int",
                      persist_state=keys.PERSIST)
        mode = st.radio("Tests", views.TEST_MODES, key=Synthesize.TESTS_MODE, horizontal=True, persist_state=keys.PERSIST)
        if mode == views.TEST_MODES[0]:
            rows = st.data_editor(
                st.session_state[Synthesize.TEST_ROWS_DATA],
                key=Synthesize.TEST_ROWS,
                num_rows="dynamic",
                hide_index=True,
                column_config={
                    "call": st.column_config.TextColumn("Call", help="e.g. lengthOfLIS([1, 3, 2])"),
                    "expected": st.column_config.TextColumn("Expected", help="JSON or a Python literal"),
                    "visible": st.column_config.CheckboxColumn("Visible", help="may feed the retry loop"),
                },
            )
            st.session_state[keys.SYN_TEST_ROWS_KEPT] = [dict(r) for r in rows]
        elif mode == views.TEST_MODES[1]:
            st.text_area(
                "Assert source",
                key=Synthesize.ASSERT_SOURCE,
                persist_state=keys.PERSIST,
                height=100,
                placeholder="e.g.\ndef check(candidate):\n    assert candidate([1, 3, 2]) == 2",
            )
            st.text_input("Assert call", key=Synthesize.ASSERT_CALL, persist_state=keys.PERSIST)
        else:
            st.caption("The evaluator model writes the tests; they feed the loop and grade the result. "
                       "Without an entry point the program reads standard input and prints its answer, "
                       "and the tests are input/output texts.")
    return list(rows)


def run_settings(choices: list[str], why_missing: str | None) -> tuple[str, dict[str, str]]:
    """Condition, models, then (folded) retries, retrieval, feedback, timeout, title and grading protocol;
    returns (default model, per role)."""
    condition = st.selectbox("Condition", condition_names(), key=Synthesize.CONDITION, persist_state=keys.PERSIST)
    st.caption(condition_description(condition))
    default_model, models = model_pickers(Synthesize.DEFAULT_MODEL, Synthesize.ROLE_MODEL, choices, why_missing,
                                          persist=keys.PERSIST)
    # Folded (each starts at the condition's default): open, they pushed the Synthesize button and the live steps
    # below the fold at 1400x1000.
    with st.expander("Retries, retrieval, feedback tests, timeout, title, grading protocol"):
        a, b = st.columns(2)
        a.selectbox("Retry budget", [views.CONDITION_DEFAULT, *map(str, range(0, 11))], key=Synthesize.RETRY_BUDGET,
                    persist_state=keys.PERSIST)
        b.selectbox("Retrieval", [views.CONDITION_DEFAULT, "on", "off"], key=Synthesize.RETRIEVAL,
                    persist_state=keys.PERSIST)
        a.selectbox(
            "Feedback tests",
            ["grading", "visible", "generated"],
            key=Synthesize.FEEDBACK,
            persist_state=keys.PERSIST,
            help="which tests feed the retry loop: all grading tests, the visible ones, or model-written ones",
        )
        b.number_input("Test timeout (s)", min_value=0.5, max_value=600.0, step=0.5, key=Synthesize.TIMEOUT,
                       persist_state=keys.PERSIST)
        st.text_input("Run title (optional)", key=Synthesize.TITLE, persist_state=keys.PERSIST)
        protocol_parts.protocol_select(protocol_parts.SYN_PROTOCOL)
    return default_model, models


def request(rows: list[dict[str, Any]], default_model: str, models: dict[str, str]) -> views.SynthesisRequest:
    """The submitted form as a SynthesisRequest (validated by its `build()`)."""
    s = st.session_state
    return views.SynthesisRequest(
        statement=s[Synthesize.STATEMENT],
        condition=s[Synthesize.CONDITION],
        entry_point=s[Synthesize.ENTRY_POINT],
        aliases=s[Synthesize.ALIASES],
        signature=s[Synthesize.SIGNATURE],
        tests_mode=s[Synthesize.TESTS_MODE],
        rows=rows,
        assert_source=s[Synthesize.ASSERT_SOURCE],
        assert_call=s[Synthesize.ASSERT_CALL],
        default_model=default_model,
        models=models,
        retry_budget=s[Synthesize.RETRY_BUDGET],
        retrieval=s[Synthesize.RETRIEVAL],
        feedback_tests=s[Synthesize.FEEDBACK],
        test_timeout_s=s[Synthesize.TIMEOUT],
        picked=picked(),
    )


@st.fragment(run_every=1.0)
def live(job: SynthesisJob, store: Store) -> None:
    """Redrawn every second while the trial runs; hands over to a full rerun when it ends."""
    from ui.steps import render_steps  # the step drawers (the agents' registry, LangGraph): once a trial runs

    steps, _ = job.steps()
    render_steps(steps, store)
    attempt = problem_pick.attempt_line([step["attempt"] for step in steps], job.config.retry_budget)
    st.caption(f":material/hourglass_top: {attempt}: {job.working_line()}")  # with the running step's elapsed time
    if job.done:
        st.rerun()


def result_panel(job: SynthesisJob, store: Store) -> None:
    """The verdict, a link to the trace, the final program and explanation, then every step."""
    from ui.steps import explanation, render_steps

    result = job.result
    if result.status != "done":
        st.error(f"The trial stopped with an error: {result.message}", icon=":material/error:")
    else:
        retries = f"{result.retries_used} {'retry' if result.retries_used == 1 else 'retries'}"
        checks = problem_pick.checks_note(job.problem.tests) if result.test_source == "problem" else ""
        (st.success if result.passed else st.warning)(
            f"{'Passed' if result.passed else 'Failed'}: {result.verdict}, {result.tests_passed}/{result.tests_total} "
            f"{result.test_source or ''} tests{f' ({checks})' if checks else ''}, {retries}."
        )
        if result.message:  # a note on a finished trial, e.g. retries that changed nothing
            st.caption(f":material/info: {result.message}")
    st.page_link(
        "pages/trace.py",
        label=f"Open run #{job.run_id}, trial {result.trial_id} in Trace",
        query_params={"run": str(job.run_id), "trial": str(result.trial_id)},  # as Trace names it
        icon=":material/timeline:",
    )
    if result.final_code:
        st.code(result.final_code, language="python", line_numbers=True)
    steps = views.step_rows(store, result.trial_id)
    if result.explanation:
        with st.expander("Explanation", icon=":material/chat:"):
            explanation(result.explanation)
    elif why := trial_gap(job.config.explainer, sum(s["node"] == "explainer" for s in steps), result.status):
        st.caption(f":material/chat: No explanation: {md_text(why)}.")  # an explainer step below says its own why
    render_steps(steps, store)
