"""How one agent step looks on screen, the same live (Synthesize) and afterwards (Trace).

What a step recorded is data (a bundle may come from anyone): names and verdicts are shown as literal text
(`md_text`), a model's own Markdown (plans, reviews, explanations) keeps its formatting but loads nothing
and links nowhere (`md_rich`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from execugraph.agents.nodes import spec_for, trace_of
from execugraph.agents.registry import Block
from execugraph.grading.findings import findings_note
from execugraph.safety.inert_text import md_rich, md_text
from ui import views
from ui.views import StepRow, code_diff, test_result_rows
from ui.views.explanation_gap import explainer_step_gap
from ui.views.grading import replaced_text_note
from ui.views.trace import program_after

if TYPE_CHECKING:
    from execugraph.store import LLMCall, Store
    from execugraph.store.models import Execution

DEFAULT_ICON = ":material/radio_button_checked:"  # a step no registered node made (an imported record)


def step_title(step: StepRow) -> str:
    """One line: icon, node, attempt and the gist of its output."""
    node, out = step["node"], step.get("output") or {}
    gist = "failed with an error" if out.get("error") else trace_of(node).gist(out)
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


def _test_results(store: Store, step_id: int | None, executions: list[Execution] | None = None) -> None:
    if step_id is None:
        return
    for execution in store.executions_for_step(step_id) if executions is None else executions:
        st.caption(
            f"Sandbox run ({md_text(execution.purpose)}): {md_text(execution.verdict)}, {execution.tests_passed}/"
            f"{execution.tests_total} tests in {views.duration(execution.duration_s)}"
        )
        note = findings_note(execution.results or [])
        if note:
            st.caption(md_text(note))
        replaced = replaced_text_note(execution.code)
        if replaced:
            st.warning(md_text(replaced), icon=":material/warning:")
        if execution.results:
            st.dataframe(test_result_rows(execution.results, execution.code or ""), hide_index=True)
        if execution.stderr:
            st.code(views.map_traceback(execution.stderr[-2000:], execution.code or ""), language="text")
        if execution.code and (execution.stderr or any(r.get("stderr") for r in execution.results or [])):
            st.caption("Line numbers in these tracebacks refer to the program as it ran, shown here:")
            st.code(execution.code, language="python", line_numbers=True)


def _unparsed(problem: str, step: StepRow, store: Store) -> None:
    """Say that the agent's reply could not be used as written (`problem`: why), and show the reply."""
    st.warning(md_text(problem), icon=":material/warning:")
    st.code(views.raw_reply(store, step.get("step_id")) or "(no reply recorded)", language="text", wrap_lines=True)


def explanation(text: str | None, why_none: str | None = None) -> None:
    """The explainer's text, repeats dropped and length bounded, with a note of what was cut (or why there is none)."""
    if not text:
        st.markdown(f"_no explanation_: {md_text(why_none)}." if why_none else "_no explanation_")
        return
    shown, note = views.bounded_explanation(text)
    st.markdown(md_rich(shown))
    if note:
        st.caption(f"Explanation {md_text(note)}.")


def render_step(
    step: StepRow, store: Store, *, previous_code: str = "", executions: list[Execution] | None = None
) -> None:
    """The body of one step as its node's registered trace view lays it out (plan, code, review, test results...).

    `executions`: the step's sandbox runs when the caller read the whole trial's at once (else one query here)."""
    node, out = step["node"], step.get("output") or {}
    error = out.get("error")
    if error:
        st.error(f"This step raised {md_text(error)}", icon=":material/error:")
    for block in trace_of(node).body(out):
        _draw(block, step, store, previous_code, executions)


def _draw(
    block: Block, step: StepRow, store: Store, previous_code: str, executions: list[Execution] | None = None
) -> None:
    """One block of a step's body (execugraph.agents.registry.Block) as its widget."""
    kind = block.kind
    if kind in ("markdown", "caption", "success", "error"):
        {"markdown": st.markdown, "caption": st.caption, "success": st.success, "error": st.error}[kind](block.text)
    elif kind == "code":
        st.code(block.text, language=block.language, line_numbers=block.line_numbers)
    elif kind == "table":
        st.dataframe(list(block.rows), hide_index=True)
    elif kind == "diff":
        st.code(code_diff(previous_code, block.text, "before", "optimized") or "(no change)", language="diff")
    elif kind == "unparsed":
        _unparsed(block.text, step, store)
    elif kind == "executions":
        _test_results(store, step.get("step_id"), executions)
    elif kind == "explanation" and not block.text and step.get("duration_s") is not None:  # ended: say why not
        calls = store.llm_calls_for_step(step["step_id"]) if step.get("step_id") is not None else []
        explanation("", explainer_step_gap(step.get("output") or {}, calls))
        if calls and calls[-1].response.strip():
            st.code(calls[-1].response, language="text", wrap_lines=True, height=160)
    elif kind == "explanation":
        explanation(block.text)
    else:
        st.json(dict(block.data))


def render_llm_calls(store: Store, step_id: int | None, calls: list[LLMCall] | None = None) -> None:
    """The step's chat completions: who answered, cost, cache hit, then every message and the reply."""
    if step_id is None:
        return
    for call in store.llm_calls_for_step(step_id) if calls is None else calls:
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


def _icon(node: str) -> str:
    spec = spec_for(node)
    return spec.icon if spec is not None else DEFAULT_ICON


def render_steps(
    steps: list[StepRow],
    store: Store,
    *,
    expanded: bool = False,
    highlight_seq: int | None = None,
    calls: bool = False,
    trial_id: int | None = None,
) -> None:
    """Every step as an expander (with its LLM calls when `calls`), tracking the code for optimizer diffs.

    With `trial_id` the trial's calls and sandbox runs are read in two queries, not two per step."""
    code = ""
    by_step_calls: dict[int | None, list[LLMCall]] | None = None
    by_step_runs: dict[int | None, list[Execution]] | None = None
    if trial_id is not None:
        by_step_calls, by_step_runs = {}, {}
        for call in store.llm_calls_for_trial(trial_id) if calls else []:
            by_step_calls.setdefault(call.step_id, []).append(call)
        for run in store.executions_for_trial(trial_id):
            by_step_runs.setdefault(run.step_id, []).append(run)
    for step in steps:
        title = md_text(step_title(step))
        if step.get("seq") == highlight_seq:
            title = f":red[{title} · first divergence]"
        with st.expander(
            title,
            expanded=expanded or step.get("seq") == highlight_seq,
            icon=_icon(step["node"]),
        ):
            step_id = step.get("step_id")
            runs = None if by_step_runs is None else by_step_runs.get(step_id, [])
            render_step(step, store, previous_code=code, executions=runs)
            if calls:
                render_llm_calls(store, step_id, None if by_step_calls is None else by_step_calls.get(step_id, []))
        code = program_after(step, code)
