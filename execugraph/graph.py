"""build_graph(config) -> a compiled LangGraph whose shape is decided by the RunConfig.

One factory yields every condition: disabled agents are simply not added, and the
routers below return Literal node names so the topology is explicit and testable.
Per-trial dependencies (models, store, sandbox) are the graph's context (`context_schema=
TrialContext`): `invoke(..., context=ctx)` hands them to each node as `runtime.context`, so
the compiled graph holds nothing of a trial and each topology is compiled once per process.
"""

from __future__ import annotations

from functools import cache
from typing import Literal

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from execugraph.agents import evaluator, explainer, generator, grader, optimizer, planner, reviewer
from execugraph.agents.context import TrialContext
from execugraph.config import RunConfig
from execugraph.state import TrialState


def route_review(state: TrialState) -> Literal["generator", "evaluator"]:
    return "generator" if state.get("decision") == "revise" else "evaluator"


def route_evaluation(state: TrialState) -> Literal["generator", "optimizer", "grade"]:
    decision = state.get("decision")
    if decision in ("retry", "sample"):
        return "generator"
    if decision == "optimize":
        return "optimizer"
    return "grade"


Graph = CompiledStateGraph[TrialState, TrialContext, TrialState, TrialState]


def build_graph(config: RunConfig) -> Graph:
    """The compiled workflow for `config`'s topology (cached: compiling costs ~10 ms)."""
    return _compile(config.planner, config.reviewer, config.optimizer, config.explainer)


@cache
def _compile(planner_on: bool, reviewer_on: bool, optimizer_on: bool, explainer_on: bool) -> Graph:
    graph = StateGraph(TrialState, context_schema=TrialContext)
    graph.add_node("generator", generator.generate)
    graph.add_node("evaluator", evaluator.evaluate)
    graph.add_node("grade", grader.grade)
    if planner_on:
        graph.add_node("planner", planner.plan)
        graph.add_edge(START, "planner")
        graph.add_edge("planner", "generator")
    else:
        graph.add_edge(START, "generator")
    if reviewer_on:
        graph.add_node("reviewer", reviewer.review)
        graph.add_conditional_edges("reviewer", route_review, ["generator", "evaluator"])
    graph.add_edge("generator", "reviewer" if reviewer_on else "evaluator")
    targets = ["generator", "grade"] + (["optimizer"] if optimizer_on else [])
    graph.add_conditional_edges("evaluator", route_evaluation, targets)
    if optimizer_on:
        graph.add_node("optimizer", optimizer.optimize)
        graph.add_edge("optimizer", "grade")
    if explainer_on:
        graph.add_node("explainer", explainer.explain)
        graph.add_edge("grade", "explainer")
        graph.add_edge("explainer", END)
    else:
        graph.add_edge("grade", END)
    return graph.compile()


def recursion_limit(config: RunConfig) -> int:
    """Enough supersteps for every retry, gate and sample, with headroom."""
    per_attempt = 3 + int(config.reviewer)
    return 10 + per_attempt * (config.retry_budget + config.best_of_n + 2)
