"""What a plugin registers: one small typed record per kind, so every caller reads the same fields."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


class PluginError(ValueError):
    """A registration that cannot be accepted (the message names the plugin and the thing)."""


@dataclass(frozen=True)
class Lazy:
    """A registered object named by `"module:attr"`, imported on first use, so a registry lists it without loading
    its module (the built-in agents and providers, whose modules load LangGraph or LangChain)."""

    target: str
    plugin: str = ""

    def __post_init__(self) -> None:
        module, _, attr = self.target.partition(":")
        if not module or not attr:
            raise PluginError(f"a lazy target must read 'module:attr', got {self.target!r}")

    def load(self) -> Any:
        """The object itself; an import that fails or a missing attribute is a PluginError naming the target."""
        module, _, attr = self.target.partition(":")
        try:
            found: Any = importlib.import_module(module)
            for part in attr.split("."):
                found = getattr(found, part)
        except (ImportError, AttributeError) as exc:
            owner = f" (plugin {self.plugin})" if self.plugin else ""
            raise PluginError(f"cannot load {self.target}{owner}: {type(exc).__name__}: {exc}") from exc
        return found

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """A lazy factory or loader is called like the function it names."""
        return self.load()(*args, **kwargs)


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
    """An agent node (a `NodeSpec`); a plugin's runs only in the conditions whose `nodes` name it.

    `source` is the spec itself or a `Lazy` naming it (the built-ins: their modules import LangGraph); `spec`
    loads it and checks that it is a spec of this name.
    """

    name: str
    source: Any
    plugin: str = ""
    follows: str | None = None  # the node it runs after (None: a built-in, or a graph of its own)

    @property
    def spec(self) -> Any:
        spec = self.source.load() if isinstance(self.source, Lazy) else self.source
        if getattr(spec, "name", None) != self.name:
            raise PluginError(f"agent {self.name!r} of {self.plugin or 'execugraph'}: "
                              f"{getattr(self.source, 'target', 'its spec')} names {getattr(spec, 'name', None)!r}")
        return spec


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
