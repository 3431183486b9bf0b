"""The seven built-in agent nodes, registered through the plugin hook like an outside package's.

Each is registered by name and `"module:SPEC"`, not imported: the agents' modules load LangGraph, and the
registry is built for lines that only list names (the sidebar's plugin health, `plugins`, Synthesize's picker).
The graph imports `execugraph.agents.nodes` itself, which registers the real specs as their modules load.
"""

from __future__ import annotations

from typing import Any

from execugraph.plugins.hookspecs import hookimpl

# Node name -> where its NodeSpec lives, in `execugraph.agents.nodes.BUILT_IN` order.
BUILT_IN: dict[str, str] = {
    "planner": "execugraph.agents.planner:SPEC",
    "generator": "execugraph.agents.generator:SPEC",
    "reviewer": "execugraph.agents.reviewer:SPEC",
    "evaluator": "execugraph.agents.evaluator:SPEC",
    "optimizer": "execugraph.agents.optimizer:SPEC",
    "grade": "execugraph.agents.grader:SPEC",
    "explainer": "execugraph.agents.explainer:SPEC",
}


@hookimpl
def register_agents(register: Any) -> None:
    for name, target in BUILT_IN.items():
        register(target, name=name)
