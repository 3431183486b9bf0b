"""The seven built-in agent nodes, registered through the plugin hook like an outside package's."""

from __future__ import annotations

from typing import Any

from execugraph.plugins.hookspecs import hookimpl


@hookimpl
def register_agents(register: Any) -> None:
    from execugraph.agents.nodes import BUILT_IN

    for spec in BUILT_IN:
        register(spec)
