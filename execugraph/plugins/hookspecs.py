"""The whole extension surface in one place: the named hooks a plugin (or a built-in) implements.

Each hook receives a `register` callable and calls it once per thing it adds; the built-in agents,
benchmarks, result formats, providers and conditions register through these same hooks
(`execugraph.plugins.manager.DEFAULT_PLUGINS`), so an outside package is never a second-class citizen.
An outside package declares its module under the entry-point group `execugraph`.
"""

from __future__ import annotations

from typing import Any

import pluggy

PROJECT = "execugraph"
ENTRY_POINT_GROUP = "execugraph"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def register_benchmarks(register: Any) -> None:
    """Add problem sources: `register(name, loader, *, needs_path=False, spellings=(), description="", reference=None,
    prepare=None)`.

    `loader(**opts) -> list[Problem]`; a file benchmark (`needs_path=True`) gets `path=`. `reference(problem_id)`,
    when given, returns the reference program of a problem whose `Problem.reference` is empty (CPU-time
    calibration runs it; it is never shown to a model). `prepare(problems) -> problems`, when given, makes the
    problems a batch or run chose ready to grade (e.g. computes expected outputs), once, before any grading.
    """


@hookspec
def register_providers(register: Any) -> None:
    """Add model servers: `register(prefix, factory, *, description="", example="")`.

    `factory(name, *, role, temperature, seed, max_tokens, timeout_s, stop) -> BaseChatModel` builds the chat
    model of a spec `prefix:name`. `factory` may be `"module:attr"` instead: the built-ins' is imported when the
    first model is built (LangChain), an outside plugin's at once.
    """


@hookspec
def register_conditions(register: Any) -> None:
    """Add named conditions: `register(name, overrides, *, description="")` (RunConfig field -> value)."""


@hookspec
def register_agents(register: Any) -> None:
    """Add agent nodes: `register(NodeSpec)`; a condition runs it when its `nodes` list names it.

    `register("module:attr", name=...)` names the spec instead of passing it: the built-ins do, so that listing
    them never imports their modules (LangGraph); an outside plugin's target is imported and checked at once.
    """


@hookspec
def register_loops(register: Any) -> None:
    """Add whole external loops: `register(name, run, *, description="")`.

    `run(problem, models) -> str | LoopAnswer` writes a program for one problem; `models.chat(role)` gives
    LangChain chat models whose calls are recorded like our agents' calls. Each loop also becomes a condition
    named `loop-<name>`, so it is an arm of any batch, graded by our sandbox.
    """


@hookspec
def register_result_formats(register: Any) -> None:
    """Add readers of other harnesses' result files: `register(ResultFormat(name, find, read))`."""
