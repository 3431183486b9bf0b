"""build_graph(config) -> a compiled LangGraph whose shape is decided by the RunConfig.

One factory yields every condition: disabled agents are simply not added, and the
routers below return Literal node names so the topology is explicit and testable.
Each node's function comes from the node registry (`execugraph.agents.nodes`); a registered extra
node is put on the plain edge leaving the node it `follows` (absent when that node is).
Per-trial dependencies (models, store, sandbox) are the graph's context (`context_schema=
TrialContext`): `invoke(..., context=ctx)` hands them to each node as `runtime.context`, so
the compiled graph holds nothing of a trial and each topology is compiled once per process.
"""

from __future__ import annotations

from functools import cache
from typing import Literal

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from execugraph.agents.context import TrialContext
from execugraph.agents.external_loop import LOOP_NODE, run_loop
from execugraph.agents.nodes import NodeSpec, spec_for, wired_extras
from execugraph.agents.state import TrialState
from execugraph.domain.config import RunConfig


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
    """The compiled workflow for `config`'s topology and the registered extra nodes (cached: compiling costs ~10 ms)."""
    if config.loop:
        return loop_graph()
    return _compile(config.planner, config.reviewer, config.optimizer, config.explainer, wired_extras(config.nodes))


def _add(graph: StateGraph, name: str) -> None:
    spec = spec_for(name)
    if spec is None:
        raise LookupError(f"node {name!r} is not registered (execugraph.agents.nodes imports the built-ins)")
    graph.add_node(name, spec.run)


def _plain_edge(graph: StateGraph, source: str, target: str, added: tuple[NodeSpec, ...]) -> None:
    """source -> target, through the extra nodes that follow `source` (in registration order)."""
    for extra in (e for e in added if e.follows == source):
        graph.add_node(extra.name, extra.run)
        graph.add_edge(source, extra.name)
        source = extra.name
    graph.add_edge(source, target)


@cache
def _compile(
    planner_on: bool, reviewer_on: bool, optimizer_on: bool, explainer_on: bool, added: tuple[NodeSpec, ...] = (),
) -> Graph:
    graph = StateGraph(TrialState, context_schema=TrialContext)
    _add(graph, "generator")
    _add(graph, "evaluator")
    _add(graph, "grade")
    if planner_on:
        _add(graph, "planner")
        graph.add_edge(START, "planner")
        _plain_edge(graph, "planner", "generator", added)
    else:
        graph.add_edge(START, "generator")
    if reviewer_on:
        _add(graph, "reviewer")
        graph.add_conditional_edges("reviewer", route_review, ["generator", "evaluator"])
    _plain_edge(graph, "generator", "reviewer" if reviewer_on else "evaluator", added)
    targets = ["generator", "grade"] + (["optimizer"] if optimizer_on else [])
    graph.add_conditional_edges("evaluator", route_evaluation, targets)
    if optimizer_on:
        _add(graph, "optimizer")
        _plain_edge(graph, "optimizer", "grade", added)
    if explainer_on:
        _add(graph, "explainer")
        _plain_edge(graph, "grade", "explainer", added)
        _plain_edge(graph, "explainer", END, added)
    else:
        _plain_edge(graph, "grade", END, added)
    return graph.compile()


@cache
def loop_graph() -> Graph:
    """loop -> grade: the whole workflow of an external-loop condition (a plugin's loop writes, we grade)."""
    graph = StateGraph(TrialState, context_schema=TrialContext)
    graph.add_node(LOOP_NODE, run_loop)
    _add(graph, "grade")
    graph.add_edge(START, LOOP_NODE)
    graph.add_edge(LOOP_NODE, "grade")
    graph.add_edge("grade", END)
    return graph.compile()


def recursion_limit(config: RunConfig) -> int:
    """Enough supersteps for every retry, gate and sample, with headroom (and one per extra node per attempt)."""
    per_attempt = 3 + int(config.reviewer) + len(wired_extras(config.nodes))
    return 10 + per_attempt * (config.retry_budget + config.best_of_n + 2)
