"""Explainer: a plain-language account of the final solution, for the report and the UI."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from langgraph.runtime import Runtime

from execugraph.agents.context import TrialContext
from execugraph.agents.prompts import render
from execugraph.agents.registry import Block, NodeSpec, TraceView, register
from execugraph.agents.state import TrialState
from execugraph.domain.steps import ExplainerOutput
from execugraph.parsing import parse_plan

MAX_EXPLANATION_CHARS = 4000


def explain(state: TrialState, runtime: Runtime[TrialContext]) -> TrialState:
    ctx = runtime.context
    attempt = max(0, state.get("attempt", 1) - 1)
    with ctx.step("explainer", attempt) as out:
        prompt = render("explainer", statement=ctx.problem.statement, code=state.get("code", ""))
        # parse_plan strips chatter and <think> blocks the same way for explanations.
        text = parse_plan(ctx.ask("explainer", prompt), max_chars=MAX_EXPLANATION_CHARS).value
        out.update(ExplainerOutput(explanation=text))
    return {"explanation": text}


def _body(output: Mapping[str, Any]) -> list[Block]:
    """The drawer bounds the text and drops repeats (views.bounded_explanation), as the report does."""
    return [Block("explanation", cast(ExplainerOutput, output).get("explanation") or "")]


SPEC = register(NodeSpec(
    name="explainer", run=explain, output_type=ExplainerOutput, prompt="explainer", colour="#43a047",
    icon=":material/chat:", trace=TraceView(body=_body),
))
