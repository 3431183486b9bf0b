"""How one agent step looks on screen, the same live (Synthesize) and afterwards (Trace).

What a step recorded is data (a bundle may come from anyone): names and verdicts are shown as literal text
(`md_text`), a model's own Markdown (plans, reviews, explanations) keeps its formatting but loads nothing
and links nowhere (`md_rich`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import streamlit as st

from execugraph import views
from execugraph.steps import (
    EvaluatorOutput,
    ExplainerOutput,
    GeneratorOutput,
    GradeOutput,
    OptimizerOutput,
    PlannerOutput,
    ReviewerOutput,
    severity_of,
)
from execugraph.text_safety import md_rich, md_text
from execugraph.views import StepRow, code_diff, test_result_rows

if TYPE_CHECKING:
    from execugraph.store import Store

ICONS = {
    "planner": ":material/map:",
    "generator": ":material/code:",
    "reviewer": ":material/rate_review:",
    "evaluator": ":material/science:",
    "optimizer": ":material/auto_fix_high:",
    "grade": ":material/flag:",
    "explainer": ":material/chat:",
}


def step_title(step: StepRow) -> str:
    """One line: icon, node, attempt and the gist of its output."""
    node, out = step["node"], step.get("output") or {}
    gist = ""
    if out.get("error"):
        gist = "failed with an error"
    elif node == "evaluator":
        ran = cast(EvaluatorOutput, out)
        gist = f"{ran.get('verdict')} {ran.get('tests_passed')}/{ran.get('tests_total')} -> {ran.get('decision')}"
    elif node == "grade":
        graded = cast(GradeOutput, out)
        gist = (f"{'PASSED' if graded.get('passed') else 'FAILED'} ({graded.get('verdict')}, "
                f"{graded.get('tests_passed')}/{graded.get('tests_total')})")
    elif node == "reviewer":
        if views.unparsed_reply(step):
            gist = "reply not parsed"
        else:
            gist = f"severity {severity_of(out) or '?'}"
        gist += ", sent back" if cast(ReviewerOutput, out).get("gated") else ""
    elif node == "optimizer":
        tried = cast(OptimizerOutput, out)
        gist = "accepted" if tried.get("accepted") else f"kept the original ({tried.get('reason', '')})"
    elif node == "generator":
        gist = cast(GeneratorOutput, out).get("reason", "")
    parts = [f"#{step.get('seq', '?')} {node}", f"attempt {step.get('attempt', 0)}"]
    if gist:
        parts.append(gist)
    if step.get("duration_s") is not None:
        parts.append(views.duration(step["duration_s"]))
    hits = step.get("cache_hits") or 0
    if hits:
        calls = step.get("llm_calls") or hits
        parts.append("cache hit" if hits == calls == 1 else f"{hits} of {calls} calls from the cache")
    return " · ".join(parts)


def _test_results(store: Store, step_id: int | None) -> None:
    if step_id is None:
        return
    for execution in store.executions_for_step(step_id):
        st.caption(
            f"Sandbox run ({md_text(execution.purpose)}): {md_text(execution.verdict)}, {execution.tests_passed}/"
            f"{execution.tests_total} tests in {views.duration(execution.duration_s)}"
        )
        if execution.results:
            st.dataframe(test_result_rows(execution.results, execution.code or ""), hide_index=True)
        if execution.stderr:
            st.code(views.map_traceback(execution.stderr[-2000:], execution.code or ""), language="text")
        if execution.code and (execution.stderr or any(r.get("stderr") for r in execution.results or [])):
            st.caption("Line numbers in these tracebacks refer to the program as it ran, shown here:")
            st.code(execution.code, language="python", line_numbers=True)


def _unparsed(step: StepRow, store: Store) -> bool:
    """Say when the agent's reply could not be used as written, and show the reply; True if so."""
    problem = views.unparsed_reply(step)
    if problem is None:
        return False
    st.warning(md_text(problem), icon=":material/warning:")
    st.code(views.raw_reply(store, step.get("step_id")) or "(no reply recorded)", language="text", wrap_lines=True)
    return True


def explanation(text: str | None) -> None:
    """The explainer's text, repeats dropped and length bounded, with a note of what was cut."""
    if not text:
        st.markdown("_no explanation_")
        return
    shown, note = views.bounded_explanation(text)
    st.markdown(md_rich(shown))
    if note:
        st.caption(f"Explanation {md_text(note)}.")


def render_step(step: StepRow, store: Store, *, previous_code: str = "") -> None:
    """The body of one step: plan, code, review, per-test results, decision, optimizer diff or explanation."""
    node, out = step["node"], step.get("output") or {}
    error = out.get("error")
    if error:
        st.error(f"This step raised {md_text(error)}", icon=":material/error:")
    if node == "planner":
        planned = cast(PlannerOutput, out)
        st.markdown(md_rich(planned.get("plan")) if planned.get("plan") else "_no plan_")
        if planned.get("hits"):
            st.caption("Retrieved techniques")
            st.dataframe(planned.get("hits"), hide_index=True)
    elif node == "generator":
        _unparsed(step, store)
        st.code(cast(GeneratorOutput, out).get("code") or "# (no code)", language="python", line_numbers=True)
    elif node == "reviewer":
        review = cast(ReviewerOutput, out).get("review") or {}
        assumed = _unparsed(step, store)
        st.markdown(f"**Severity:** {md_text(severity_of(out) or '?')}"
                    + (" (assumed, not in the reply)" if assumed else ""))
        for title, items in (
            ("Invariants", review.get("invariants")),
            ("Potential failures", review.get("potential_failures")),
        ):
            if items:
                st.markdown(f"**{title}:**\n" + "\n".join(f"- {md_text(item)}" for item in items))
    elif node == "evaluator":
        ran = cast(EvaluatorOutput, out)
        st.markdown(
            f"**Verdict:** {md_text(ran.get('verdict'))} · **tests:** {ran.get('tests_passed')}/"
            f"{ran.get('tests_total')} ({md_text(ran.get('test_source', '?'))} tests) · **decision:** "
            f"{md_text(ran.get('decision'))}"
        )
        _test_results(store, step.get("step_id"))
        if ran.get("feedback"):
            st.caption("Feedback sent to the generator")
            st.code(ran.get("feedback"), language="text")
    elif node == "optimizer":
        tried = cast(OptimizerOutput, out)
        st.markdown(f"**{'Accepted' if tried.get('accepted') else 'Rejected'}:** {md_text(tried.get('reason', ''))}")
        candidate = tried.get("candidate")
        if candidate:
            diff = code_diff(previous_code, candidate, "before", "optimized")
            st.code(diff or "(no change)", language="diff")
        _test_results(store, step.get("step_id"))
    elif node == "grade":
        graded = cast(GradeOutput, out)
        ok = graded.get("passed")
        (st.success if ok else st.error)(
            f"{'Passed' if ok else 'Failed'}: {md_text(graded.get('verdict'))}, "
            f"{graded.get('tests_passed')}/{graded.get('tests_total')} {md_text(graded.get('test_source', ''))} tests"
        )
        _test_results(store, step.get("step_id"))
    elif node == "explainer":
        explanation(cast(ExplainerOutput, out).get("explanation"))
    else:
        st.json(out)
        _test_results(store, step.get("step_id"))  # e.g. the recorded grading of an imported trial


def render_llm_calls(store: Store, step_id: int | None) -> None:
    """The step's chat completions: who answered, cost, cache hit, then every message and the reply."""
    if step_id is None:
        return
    for call in store.llm_calls_for_step(step_id):
        st.caption(
            f"LLM call · {md_text(call.role)} · {md_text(views.model_label(call.provider, call.model))} · "
            f"{call.tokens_in} in / "
            f"{call.tokens_out} out tokens · "
            + ("cache hit (answered from the response cache, no model call)" if call.cache_hit else views.duration(call.latency_s))
        )
        for message in call.messages:
            st.markdown(f"**{md_text(message.get('role', '?'))}**")
            st.code(str(message.get("content", "")), language="text", wrap_lines=True, height=160)
        st.markdown("**response**")
        st.code(call.response, language="text", wrap_lines=True, height=160)


def render_steps(
    steps: list[StepRow],
    store: Store,
    *,
    expanded: bool = False,
    highlight_seq: int | None = None,
    calls: bool = False,
) -> None:
    """Every step as an expander (with its LLM calls when `calls`), tracking the code for optimizer diffs."""
    code = ""
    for step in steps:
        title = md_text(step_title(step))
        if step.get("seq") == highlight_seq:
            title = f":red[{title} · first divergence]"
        with st.expander(
            title,
            expanded=expanded or step.get("seq") == highlight_seq,
            icon=ICONS.get(step["node"], ":material/radio_button_checked:"),
        ):
            render_step(step, store, previous_code=code)
            if calls:
                render_llm_calls(store, step.get("step_id"))
        if step["node"] == "generator":
            code = cast(GeneratorOutput, step.get("output") or {}).get("code", code)
