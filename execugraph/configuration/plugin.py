"""The built-in conditions, registered through the plugin hook like an outside package's."""

from __future__ import annotations

from typing import Any

from execugraph.plugins.hookspecs import hookimpl


@hookimpl
def register_conditions(register: Any) -> None:
    from execugraph.configuration.conditions import CONDITIONS, DESCRIPTIONS

    for name, overrides in CONDITIONS.items():
        register(name, overrides, description=DESCRIPTIONS.get(name, ""))
