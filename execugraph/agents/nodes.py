"""Every registered node, the built-ins loaded: import this (not `registry`) to read the nodes.

Each built-in agent module registers its own `NodeSpec` when it is imported; importing them all here
gives the graph, the trace view, the step renderer and the charts one complete registry to read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from execugraph.agents import evaluator, explainer, external_loop, generator, grader, optimizer, planner, reviewer
from execugraph.agents.registry import (
    NodeSpec,
    TraceView,
    WrittenCode,
    extras,
    known_nodes,
    spec_for,
    specs,
    wired_extras,
)

BUILT_IN: tuple[NodeSpec, ...] = (
    planner.SPEC, generator.SPEC, reviewer.SPEC, evaluator.SPEC, optimizer.SPEC, grader.SPEC, explainer.SPEC,
)
UNKNOWN_COLOUR = "#9e9e9e"  # a step no registered node made (an imported trial's record step)

LOOP = external_loop.SPEC  # an external loop's step (a graph of its own: loop -> grade)

__all__ = [
    "BUILT_IN", "LOOP", "NodeSpec", "WrittenCode", "extras", "known_nodes", "spec_for", "specs", "colour_of",
    "trace_of", "wired_extras", "written_code",
]


def colour_of(node: str) -> str:
    """The colour of `node`'s bars in the step timeline."""
    spec = spec_for(node)
    return spec.colour if spec is not None else UNKNOWN_COLOUR


def trace_of(node: str) -> TraceView:
    """How a trace shows `node`'s steps (an unregistered node's: its output as JSON)."""
    spec = spec_for(node)
    return spec.trace if spec is not None else TraceView()


def written_code(node: str, output: Mapping[str, Any]) -> WrittenCode | None:
    """The program a `node` step wrote into `output` (None: the node writes no code, or is not registered)."""
    spec = spec_for(node)
    return spec.writes(output) if spec is not None else None
