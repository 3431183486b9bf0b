"""The extension surface: hooks (`hookspecs`), what they register (`entries`), and the loaded registry.

A plugin is a module with `@hookimpl` functions, declared under the entry-point group `execugraph`
(see docs and examples/execugraph-toy); the built-ins register through the same hooks.
"""

from execugraph.plugins.entries import (
    AgentEntry,
    BenchmarkEntry,
    ConditionEntry,
    Lazy,
    LoopEntry,
    ProviderEntry,
    Registry,
    ResultFormatEntry,
)
from execugraph.plugins.hookspecs import ENTRY_POINT_GROUP, hookimpl
from execugraph.plugins.manager import LOOP_PREFIX, PluginError, build_registry, registry, use_registry

ResultFormat = ResultFormatEntry  # the name plugin authors write

__all__ = [
    "ENTRY_POINT_GROUP",
    "LOOP_PREFIX",
    "AgentEntry",
    "BenchmarkEntry",
    "ConditionEntry",
    "Lazy",
    "LoopEntry",
    "PluginError",
    "ProviderEntry",
    "Registry",
    "ResultFormat",
    "ResultFormatEntry",
    "build_registry",
    "hookimpl",
    "registry",
    "use_registry",
]

# The submodules other packages import (tests/layout/test_package_interfaces.py).
__all__ += [
    "entries",
    "hookspecs",
]
