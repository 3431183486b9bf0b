"""Planner: a short plan, optionally grounded in retrieved techniques (the multi-rag lever)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from langgraph.runtime import Runtime

from execugraph.agents.context import TrialContext
from execugraph.agents.prompts import render, task_values
from execugraph.agents.registry import Block, NodeSpec, TraceView, register
from execugraph.agents.state import TrialState
from execugraph.domain.json_types import JsonObject
from execugraph.domain.steps import PlannerOutput, RetrievalHits
from execugraph.parsing import parse_plan
from execugraph.safety.inert_text import md_rich
from execugraph.store.row_fields import HitFields


def retrieve_techniques(ctx: TrialContext, out: JsonObject) -> str:
    """Top-k techniques for the statement, stored as RetrievalHits; returns the prompt block."""
    if not (ctx.config.retrieval and ctx.retriever is not None):
        return ""
    from execugraph.retrieval import format_for_prompt

    query = ctx.problem.statement
    hits = ctx.retriever.retrieve(query, k=ctx.config.retrieval_k)
    rows = [hit.to_row() for hit in hits]
    if ctx.current is not None:
        ctx.current.hits.extend(HitFields(**row, query=query) for row in rows)  # written with the planner step
    out.update(RetrievalHits(hits=rows))
    return format_for_prompt(hits)


def plan(state: TrialState, runtime: Runtime[TrialContext]) -> TrialState:
    ctx = runtime.context
    with ctx.step("planner", 0) as out:
        techniques = retrieve_techniques(ctx, out)
        values = task_values(ctx.problem)
        prompt = render("planner", statement=values["statement"], signature=values["signature"], techniques=techniques)
        parsed = parse_plan(ctx.ask("planner", prompt))
        out.update(PlannerOutput(plan=parsed.value, repairs=parsed.repairs))
    return {"plan": parsed.value, "repairs": [*state.get("repairs", []), *parsed.repairs]}


# -- how a trace shows a planner step --------------------------------------------------------------------
def _body(output: Mapping[str, Any]) -> list[Block]:
    planned = cast(PlannerOutput, output)
    blocks = [Block("markdown", md_rich(planned.get("plan")) if planned.get("plan") else "_no plan_")]
    if planned.get("hits"):
        blocks += [Block("caption", "Retrieved techniques"), Block("table", rows=tuple(planned.get("hits") or ()))]
    return blocks


def _signature(output: Mapping[str, Any]) -> tuple[Any, ...]:
    return (str(cast(PlannerOutput, output).get("plan", "")).strip(),)


SPEC = register(NodeSpec(
    name="planner", run=plan, output_type=PlannerOutput, prompt="planner", colour="#7e57c2", icon=":material/map:",
    trace=TraceView(body=_body, signature=_signature, differs="made a different plan"),
))
