"""How one agent step looks on screen, the same live (Synthesize) and afterwards (Trace)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from execugraph import views
from execugraph.views import code_diff, test_result_rows

ICONS = {
    "planner": ":material/map:",
    "generator": ":material/code:",
    "reviewer": ":material/rate_review:",
    "evaluator": ":material/science:",
    "optimizer": ":material/auto_fix_high:",
    "grade": ":material/flag:",
    "explainer": ":material/chat:",
}


def step_title(step: dict[str, Any]) -> str:
    """One line: icon, node, attempt and the gist of its output."""
    node, out = step["node"], step.get("output") or {}
    gist = ""
    if out.get("error"):
        gist = "failed with an error"
    elif node == "evaluator":
        gist = f"{out.get('verdict')} {out.get('tests_passed')}/{out.get('tests_total')} -> {out.get('decision')}"
    elif node == "grade":
        gist = f"{'PASSED' if out.get('passed') else 'FAILED'} ({out.get('verdict')}, {out.get('tests_passed')}/{out.get('tests_total')})"
    elif node == "reviewer":
        if views.unparsed_reply(step):
            gist = "reply not parsed"
        else:
            gist = f"severity {(out.get('review') or {}).get('severity', '?')}"
        gist += ", sent back" if out.get("gated") else ""
    elif node == "optimizer":
        gist = "accepted" if out.get("accepted") else f"kept the original ({out.get('reason', '')})"
    elif node == "generator":
        gist = out.get("reason", "")
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


def _test_results(store: Any, step_id: int | None) -> None:
    if step_id is None:
        return
    for execution in store.executions_for_step(step_id):
        st.caption(
            f"Sandbox run ({execution.purpose}): {execution.verdict}, {execution.tests_passed}/"
            f"{execution.tests_total} tests in {views.duration(execution.duration_s)}"
        )
        if execution.results:
            st.dataframe(test_result_rows(execution.results, execution.code or ""), hide_index=True)
        if execution.stderr:
            st.code(views.map_traceback(execution.stderr[-2000:], execution.code or ""), language="text")
        if execution.code and (execution.stderr or any(r.get("stderr") for r in execution.results or [])):
            st.caption("Line numbers in the tracebacks above refer to the program as it ran:")
            st.code(execution.code, language="python", line_numbers=True)


def _unparsed(step: dict[str, Any], store: Any) -> bool:
    """Say when the agent's reply could not be used as written, and show the reply; True if so."""
    problem = views.unparsed_reply(step)
    if problem is None:
        return False
    st.warning(problem, icon=":material/warning:")
    st.code(views.raw_reply(store, step.get("step_id")) or "(no reply recorded)", language="text", wrap_lines=True)
    return True


def explanation(text: str | None) -> None:
    """The explainer's text, repeats dropped and length bounded, with a note of what was cut."""
    if not text:
        st.markdown("_no explanation_")
        return
    shown, note = views.bounded_explanation(text)
    st.markdown(shown)
    if note:
        st.caption(f"Explanation {note}.")


def render_step(step: dict[str, Any], store: Any, *, previous_code: str = "") -> None:
    """The body of one step: plan, code, review, per-test results, decision, optimizer diff or explanation."""
    node, out = step["node"], step.get("output") or {}
    if out.get("error"):
        st.error(f"This step raised {out['error']}", icon=":material/error:")
    if node == "planner":
        st.markdown(out.get("plan") or "_no plan_")
        if out.get("hits"):
            st.caption("Retrieved techniques")
            st.dataframe(out["hits"], hide_index=True)
    elif node == "generator":
        _unparsed(step, store)
        st.code(out.get("code") or "# (no code)", language="python", line_numbers=True)
    elif node == "reviewer":
        review = out.get("review") or {}
        assumed = _unparsed(step, store)
        st.markdown(f"**Severity:** {review.get('severity', '?')}" + (" (assumed, not in the reply)" if assumed else ""))
        for title, items in (
            ("Invariants", review.get("invariants")),
            ("Potential failures", review.get("potential_failures")),
        ):
            if items:
                st.markdown(f"**{title}:**\n" + "\n".join(f"- {item}" for item in items))
    elif node == "evaluator":
        st.markdown(
            f"**Verdict:** {out.get('verdict')} · **tests:** {out.get('tests_passed')}/{out.get('tests_total')} "
            f"({out.get('test_source', '?')} tests) · **decision:** {out.get('decision')}"
        )
        _test_results(store, step.get("step_id"))
        if out.get("feedback"):
            st.caption("Feedback sent to the generator")
            st.code(out["feedback"], language="text")
    elif node == "optimizer":
        st.markdown(f"**{'Accepted' if out.get('accepted') else 'Rejected'}:** {out.get('reason', '')}")
        if out.get("candidate"):
            diff = code_diff(previous_code, out["candidate"], "before", "optimized")
            st.code(diff or "(no change)", language="diff")
        _test_results(store, step.get("step_id"))
    elif node == "grade":
        ok = out.get("passed")
        (st.success if ok else st.error)(
            f"{'Passed' if ok else 'Failed'}: {out.get('verdict')}, "
            f"{out.get('tests_passed')}/{out.get('tests_total')} {out.get('test_source', '')} tests"
        )
        _test_results(store, step.get("step_id"))
    elif node == "explainer":
        explanation(out.get("explanation"))
    else:
        st.json(out)
        _test_results(store, step.get("step_id"))  # e.g. the recorded grading of an imported trial


def render_llm_calls(store: Any, step_id: int | None) -> None:
    """The step's chat completions: who answered, cost, cache hit, then every message and the reply."""
    if step_id is None:
        return
    for call in store.llm_calls_for_step(step_id):
        st.caption(
            f"LLM call · {call.role} · {views.model_label(call.provider, call.model)} · {call.tokens_in} in / "
            f"{call.tokens_out} out tokens · "
            + ("cache hit (answered from the response cache, no model call)" if call.cache_hit else views.duration(call.latency_s))
        )
        for message in call.messages:
            st.markdown(f"**{message.get('role', '?')}**")
            st.code(str(message.get("content", "")), language="text", wrap_lines=True, height=160)
        st.markdown("**response**")
        st.code(call.response, language="text", wrap_lines=True, height=160)


def render_steps(
    steps: list[dict[str, Any]],
    store: Any,
    *,
    expanded: bool = False,
    highlight_seq: int | None = None,
    calls: bool = False,
) -> None:
    """Every step as an expander (with its LLM calls when `calls`), tracking the code for optimizer diffs."""
    code = ""
    for step in steps:
        title = step_title(step)
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
            code = (step.get("output") or {}).get("code", code)
