"""Load the built-in plugins and the installed ones (entry-point group `execugraph`) into one Registry.

Why each hook implementation is called on its own: a broken outside plugin (an import error, a hook that
raises, a name already taken) is recorded under its name and skipped, so one bad package never takes the
dashboard or a batch down, and `python -m execugraph plugins` can say what went wrong.

The built-in agents and providers register by name and `"module:attr"` (`entries.Lazy`): building the registry
(the sidebar's plugin line, Synthesize's benchmark picker) imports neither LangGraph nor LangChain; the graph and
the model factory import them when a trial runs.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.metadata
import threading
from collections.abc import Callable
from typing import Any

import pluggy

from execugraph.plugins import hookspecs
from execugraph.plugins.entries import (
    AgentEntry,
    BenchmarkEntry,
    ConditionEntry,
    Lazy,
    LoopEntry,
    PluginError,
    ProviderEntry,
    Registry,
    ResultFormatEntry,
)

BUILT_IN = "execugraph"
# The built-ins, one module per kind, registered through the same hooks as an outside package.
DEFAULT_PLUGINS: tuple[str, ...] = (
    "execugraph.benchmarks.plugin",
    "execugraph.providers.plugin",
    "execugraph.configuration.plugin",
    "execugraph.agents.plugin",
    "execugraph.publication.harness.plugin",
)
LOOP_PREFIX = "loop-"

_LOCK = threading.RLock()
_REGISTRY: Registry | None = None


def _manager(extra: tuple[Any, ...]) -> tuple[pluggy.PluginManager, dict[str, str]]:
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    errors: dict[str, str] = {}
    for name in DEFAULT_PLUGINS:
        pm.register(importlib.import_module(name), name=f"{BUILT_IN}:{name.rsplit('.', 2)[-2]}")
    for ep in importlib.metadata.entry_points(group=hookspecs.ENTRY_POINT_GROUP):
        try:
            pm.register(ep.load(), name=ep.name)
        except Exception as exc:  # anything an outside import can raise
            errors[ep.name] = f"cannot load {ep.value}: {type(exc).__name__}: {exc}"
    for i, module in enumerate(extra):
        pm.register(module, name=getattr(module, "__name__", f"extra-{i}"))
    return pm, errors


def _is_built_in(plugin: str) -> bool:
    return plugin.startswith(f"{BUILT_IN}:")


def _collect(pm: pluggy.PluginManager, registry: Registry) -> None:
    def add(kind: str, table: dict[str, Any], key: str, entry: Any, plugin: str) -> None:
        if not key or not isinstance(key, str):
            raise PluginError(f"{kind} name must be non-empty text, got {key!r}")
        if key in table:
            owner = getattr(table[key], "plugin", "") or BUILT_IN
            raise PluginError(f"{kind} {key!r} is already registered by {owner}")
        table[key] = entry

    def registrar(kind: str, plugin: str) -> Callable[..., Any]:
        def benchmarks(name: str, loader: Callable[..., list[Any]], *, needs_path: bool = False,
                       spellings: tuple[str, ...] | list[str] = (), description: str = "",
                       reference: Callable[[str], str] | None = None,
                       prepare: Callable[[list[Any]], list[Any]] | None = None) -> None:
            add("benchmark", registry.benchmarks, name.strip().lower(),
                BenchmarkEntry(name.strip().lower(), loader, needs_path, tuple(s.lower() for s in spellings),
                               description, plugin, reference, prepare), plugin)

        def providers(prefix: str, factory: Callable[..., Any] | str, *, description: str = "",
                      example: str = "") -> None:
            if ":" in prefix:
                raise PluginError(f"provider prefix {prefix!r} must not contain ':'")
            if isinstance(factory, str):  # "module:attr": a built-in's is imported when the first model is built,
                lazy = Lazy(factory, plugin)  # an outside plugin's now, so that a bad target is named here
                factory = lazy if _is_built_in(plugin) else lazy.load()
            if not callable(factory):
                raise PluginError(f"provider {prefix!r}: the factory must be callable or 'module:attr'")
            add("provider", registry.providers, prefix, ProviderEntry(prefix, factory, description, example, plugin),
                plugin)

        def conditions(name: str, overrides: dict[str, Any], *, description: str = "") -> None:
            add("condition", registry.conditions, name, ConditionEntry(name, dict(overrides), description, plugin),
                plugin)

        def loops(name: str, run: Callable[..., Any], *, description: str = "") -> None:
            add("loop", registry.loops, name, LoopEntry(name, run, description, plugin), plugin)
            add("condition", registry.conditions, f"{LOOP_PREFIX}{name}",
                ConditionEntry(f"{LOOP_PREFIX}{name}", {"mode": "single", "planner": False, "reviewer": False, "optimizer": False,
                                "explainer": False, "loop": name, "retry_budget": 0},
                               description or f"the external loop {name!r}, graded by our sandbox", plugin), plugin)

        def agents(spec: Any, *, name: str | None = None) -> None:
            if isinstance(spec, str):  # "module:attr" naming the NodeSpec, with its name: listed, not imported
                if not name:
                    raise PluginError(f"agent {spec!r}: a 'module:attr' registration needs name=")
                entry = AgentEntry(name, Lazy(spec, plugin), plugin)
            else:
                name = getattr(spec, "name", None)
                entry = AgentEntry(str(name), spec, plugin, getattr(spec, "follows", None))
            add("agent", registry.agents, name, entry, plugin)
            if not _is_built_in(plugin):  # a built-in registers itself when its module loads (agents.nodes)
                _wire(entry)

        def _wire(entry: AgentEntry) -> None:
            """An outside plugin's node joins the node registry now (its spec loaded, and checked, here)."""
            from execugraph.agents.registry import register as register_node

            spec = entry.spec
            registry.agents[entry.name] = dataclasses.replace(entry, source=spec, follows=spec.follows)
            register_node(dataclasses.replace(spec, opt_in=True))  # only the conditions naming it run it

        def result_formats(entry: ResultFormatEntry) -> None:
            if not isinstance(entry, ResultFormatEntry):
                raise PluginError("register_result_formats takes a ResultFormat(name, find, read)")
            add("result format", registry.result_formats, entry.name,
                ResultFormatEntry(entry.name, entry.find, entry.read, entry.description, plugin), plugin)

        return {"benchmarks": benchmarks, "providers": providers, "conditions": conditions, "loops": loops,
                "agents": agents, "result_formats": result_formats}[kind]

    for kind in ("benchmarks", "providers", "conditions", "loops", "agents", "result_formats"):
        caller = getattr(pm.hook, f"register_{kind}")
        for impl in caller.get_hookimpls():  # in registration order: the built-ins first
            plugin = impl.plugin_name
            if plugin in registry.errors:
                continue
            try:
                impl.function(register=registrar(kind, plugin))
            except Exception as exc:
                if _is_built_in(plugin):
                    raise
                registry.errors[plugin] = f"register_{kind}: {type(exc).__name__}: {exc}"
    _drop_broken(registry)


def _drop_broken(registry: Registry) -> None:
    """A plugin with an error is left out whole: what it registered before the error is forgotten too."""
    from execugraph.agents.registry import unregister

    for table in (registry.benchmarks, registry.providers, registry.conditions, registry.loops, registry.agents,
                  registry.result_formats):
        for key in [k for k, entry in table.items() if entry.plugin in registry.errors]:
            if table is registry.agents:
                unregister(key)
            del table[key]


def build_registry(*extra: Any) -> Registry:
    """A fresh Registry of the built-ins, the installed plugins and `extra` plugin objects (modules, classes)."""
    pm, errors = _manager(extra)
    registry = Registry(errors=dict(errors))
    for plugin_name, plugin in pm.list_name_plugin():
        registry.plugins[plugin_name] = getattr(plugin, "__name__", type(plugin).__name__)
    _collect(pm, registry)
    return registry


def registry() -> Registry:
    """The process's Registry, built on first use."""
    global _REGISTRY
    with _LOCK:
        if _REGISTRY is None:
            _REGISTRY = build_registry()
        return _REGISTRY


def use_registry(new: Registry | None) -> Registry | None:
    """Replace the process's Registry (None: rebuild on next use); returns the old one (tests, reloads)."""
    global _REGISTRY
    with _LOCK:
        old, _REGISTRY = _REGISTRY, new
        return old
