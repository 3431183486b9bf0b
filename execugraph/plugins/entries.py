"""What a plugin registers: one small typed record per kind, so every caller reads the same fields."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class BenchmarkEntry:
    """A problem source: `loader(**opts) -> list[Problem]` (a file benchmark takes `path=`)."""

    name: str
    loader: Callable[..., list[Any]]
    needs_path: bool = False
    spellings: tuple[str, ...] = ()
    description: str = ""
    plugin: str = ""
    reference: Callable[[str], str] | None = None  # problem id -> reference program, when the Problem lacks one
    prepare: Callable[[list[Any]], list[Any]] | None = None  # the chosen problems -> ready to grade (once, cached)


@dataclass(frozen=True)
class ProviderEntry:
    """A model server reached through specs `prefix:name`."""

    prefix: str
    factory: Callable[..., Any]
    description: str = ""
    example: str = ""
    plugin: str = ""


@dataclass(frozen=True)
class ConditionEntry:
    """A named condition: RunConfig overrides."""

    name: str
    overrides: Mapping[str, Any]
    description: str = ""
    plugin: str = ""


@dataclass(frozen=True)
class LoopEntry:
    """A whole external loop: `run(problem, models)` returns the program to grade."""

    name: str
    run: Callable[..., Any]
    description: str = ""
    plugin: str = ""


@dataclass(frozen=True)
class AgentEntry:
    """An agent node (a `NodeSpec`); a plugin's runs only in the conditions whose `nodes` name it."""

    name: str
    spec: Any
    plugin: str = ""


@dataclass(frozen=True)
class ResultFormatEntry:
    """Another harness's result files: `find(fileset, paths, used)` claims files, `read(...)` maps them to a run."""

    name: str
    find: Callable[..., list[Any]]
    read: Callable[..., Any]
    description: str = ""
    plugin: str = ""


@dataclass
class Registry:
    """Everything the plugins registered, by kind and name, plus the plugins that failed to load."""

    benchmarks: dict[str, BenchmarkEntry] = field(default_factory=dict)
    providers: dict[str, ProviderEntry] = field(default_factory=dict)
    conditions: dict[str, ConditionEntry] = field(default_factory=dict)
    loops: dict[str, LoopEntry] = field(default_factory=dict)
    agents: dict[str, AgentEntry] = field(default_factory=dict)
    result_formats: dict[str, ResultFormatEntry] = field(default_factory=dict)
    plugins: dict[str, str] = field(default_factory=dict)  # plugin name -> distribution or module
    errors: dict[str, str] = field(default_factory=dict)  # plugin name -> what went wrong
