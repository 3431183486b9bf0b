"""build_graph(config, ctx) -> a compiled LangGraph whose shape is decided by the RunConfig.

One factory yields every condition: disabled agents are simply not added, and the
routers below return Literal node names so the topology is explicit and testable.
"""

from __future__ import annotations

from functools import partial
from typing import Literal

from langgraph.graph import END, START, StateGraph

from execugraph.agents import evaluator, explainer, generator, grader, optimizer, planner, reviewer
from execugraph.agents.context import TrialContext
from execugraph.config import RunConfig
from execugraph.state import TrialState


def _after_generator(config: RunConfig) -> str:
    return "reviewer" if config.reviewer else "evaluator"


def route_review(state: TrialState) -> Literal["generator", "evaluator"]:
    return "generator" if state.get("decision") == "revise" else "evaluator"


def route_evaluation(state: TrialState) -> Literal["generator", "optimizer", "grade"]:
    decision = state.get("decision")
    if decision in ("retry", "sample"):
        return "generator"
    if decision == "optimize":
        return "optimizer"
    return "grade"


def build_graph(config: RunConfig, ctx: TrialContext):
    """Compile the workflow for `config`; nodes close over `ctx` (models, store, sandbox)."""
    graph = StateGraph(TrialState)
    graph.add_node("generator", partial(generator.generate, ctx=ctx))
    graph.add_node("evaluator", partial(evaluator.evaluate, ctx=ctx))
    graph.add_node("grade", partial(grader.grade, ctx=ctx))
    if config.planner:
        graph.add_node("planner", partial(planner.plan, ctx=ctx))
        graph.add_edge(START, "planner")
        graph.add_edge("planner", "generator")
    else:
        graph.add_edge(START, "generator")
    if config.reviewer:
        graph.add_node("reviewer", partial(reviewer.review, ctx=ctx))
        graph.add_conditional_edges("reviewer", route_review, ["generator", "evaluator"])
    graph.add_edge("generator", _after_generator(config))
    targets = ["generator", "grade"] + (["optimizer"] if config.optimizer else [])
    graph.add_conditional_edges("evaluator", route_evaluation, targets)
    if config.optimizer:
        graph.add_node("optimizer", partial(optimizer.optimize, ctx=ctx))
        graph.add_edge("optimizer", "grade")
    if config.explainer:
        graph.add_node("explainer", partial(explainer.explain, ctx=ctx))
        graph.add_edge("grade", "explainer")
        graph.add_edge("explainer", END)
    else:
        graph.add_edge("grade", END)
    return graph.compile()


def recursion_limit(config: RunConfig) -> int:
    """Enough supersteps for every retry, gate and sample, with headroom."""
    per_attempt = 3 + int(config.reviewer)
    return 10 + per_attempt * (config.retry_budget + config.best_of_n + 2)
