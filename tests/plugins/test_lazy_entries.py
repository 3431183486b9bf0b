"""Issue 41/42: the built-in agents and providers are registered by name and "module:attr", so building the registry
(the sidebar's plugin line, `plugins`, Synthesize's picker) imports neither LangGraph nor LangChain, and each entry
still loads exactly the object it names. An outside plugin may register by "module:attr" too: its target is loaded
and checked at once, and a bad one is named in one line like any other broken plugin."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from execugraph.plugins import AgentEntry, Lazy, PluginError, build_registry

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("langgraph", "langchain_core", "execugraph.agents.nodes", "execugraph.agents.evaluator",
         "execugraph.providers.llm")


def test_the_registry_and_plugins_list_load_neither_langgraph_nor_langchain(tmp_path: Path) -> None:
    code = textwrap.dedent(f"""
        import argparse, json, sys
        from execugraph.plugins import registry
        from execugraph.cli import plugins
        reg = registry()
        rows = plugins._rows(argparse.Namespace(all=True))
        print(json.dumps({{"agents": [(a["name"], a["plugin"]) for a in rows["agents"]],
                          "providers": sorted(reg.providers), "errors": reg.errors,
                          "heavy": [m for m in sys.modules if m.split(".")[0] in {HEAVY!r} or m in {HEAVY!r}]}}))
    """)
    env = dict(os.environ, EXECUGRAPH_DB=str(tmp_path / "runs.db"), PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["heavy"] == []
    assert found["errors"] == {}
    assert found["agents"] == [[n, "execugraph:agents"] for n in
                               ("planner", "generator", "reviewer", "evaluator", "optimizer", "grade", "explainer")]
    assert found["providers"] == ["llamacpp", "ollama", "openai", "replay"]


def test_each_built_in_entry_loads_the_object_it_names() -> None:
    from execugraph.agents import nodes
    from execugraph.providers import llm

    reg = build_registry()
    assert tuple(entry.spec for entry in reg.agents.values()) == nodes.BUILT_IN
    assert all(isinstance(entry.source, Lazy) and entry.follows is None for entry in reg.agents.values())
    assert {p: e.factory.load() for p, e in reg.providers.items()} == llm.BUILT_IN_FACTORIES
    assert all(e.plugin == "execugraph:providers" for e in reg.providers.values())
    # a model is built through the lazy factory (the process registry's), no server asked
    from langchain_core.language_models.chat_models import BaseChatModel

    assert isinstance(llm.make_chat_model("ollama:qwen", ollama_host="http://127.0.0.1:9"), BaseChatModel)


def test_an_entry_whose_target_names_another_spec_or_nothing_says_so() -> None:
    from execugraph.agents import nodes

    misnamed = AgentEntry("planner", Lazy("execugraph.agents.generator:SPEC"), "execugraph:agents")
    with pytest.raises(PluginError, match="execugraph.agents.generator:SPEC names 'generator'"):
        _ = misnamed.spec
    with pytest.raises(PluginError, match=r"cannot load execugraph.agents.planner:NOPE \(plugin p\): AttributeError"):
        Lazy("execugraph.agents.planner:NOPE", "p").load()
    with pytest.raises(PluginError, match="must read 'module:attr'"):
        Lazy("execugraph.agents.planner")
    assert Lazy("execugraph.agents.nodes:LOOP").load() is nodes.LOOP
    assert Lazy("execugraph.agents.registry:RegistryError")("called like what it names").args == (
        "called like what it names",)


SPEC_MODULE = """
    from execugraph.agents.registry import NodeSpec

    def run(state, runtime):
        return {}

    def factory(name, **kwargs):
        return name

    CRITIC = NodeSpec(name="lazy_critic", run=run, output_type=dict, colour="#009688", follows="generator")
    OTHER = NodeSpec(name="someone_else", run=run, output_type=dict, colour="#009688", follows="generator")
"""

PLUGINS = {
    "lazy_good": """
        @hookimpl
        def register_agents(register):
            register("lazy_spec_module:CRITIC", name="lazy_critic")

        @hookimpl
        def register_providers(register):
            register("lazyp", "lazy_spec_module:factory")
    """,
    "lazy_missing": """
        @hookimpl
        def register_agents(register):
            register("lazy_no_such_module:SPEC", name="ghost")
    """,
    "lazy_misnamed": """
        @hookimpl
        def register_agents(register):
            register("lazy_spec_module:OTHER", name="lazy_other")
    """,
    "lazy_taken": """
        @hookimpl
        def register_agents(register):
            register("lazy_spec_module:CRITIC", name="planner")
    """,
    "lazy_nameless": """
        @hookimpl
        def register_agents(register):
            register("lazy_spec_module:CRITIC")
    """,
    "lazy_bad_provider": """
        @hookimpl
        def register_providers(register):
            register("lazyq", "lazy_spec_module:NOT_THERE")
    """,
}


@pytest.fixture
def lazy_plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list]:
    """The plugin modules above, importable from tmp_path (forgotten, with the node they wire, afterwards)."""
    (tmp_path / "lazy_spec_module.py").write_text(textwrap.dedent(SPEC_MODULE))
    for name, source in PLUGINS.items():
        (tmp_path / f"{name}.py").write_text("from execugraph.plugins import hookimpl\n" + textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    yield [importlib.import_module(name) for name in PLUGINS]
    from execugraph.agents.registry import unregister

    unregister("lazy_critic")
    for name in (*PLUGINS, "lazy_spec_module"):
        sys.modules.pop(name, None)


def test_outside_lazy_targets_are_checked_at_once_and_a_bad_one_is_named(lazy_plugins: list) -> None:
    from execugraph.agents.registry import spec_for

    reg = build_registry(*lazy_plugins)
    assert set(reg.errors) == {"lazy_missing", "lazy_misnamed", "lazy_taken", "lazy_nameless", "lazy_bad_provider"}
    assert "cannot load lazy_no_such_module:SPEC (plugin lazy_missing): ModuleNotFoundError" in reg.errors["lazy_missing"]
    assert "lazy_spec_module:OTHER names 'someone_else'" in reg.errors["lazy_misnamed"]
    assert "agent 'planner' is already registered by execugraph:agents" in reg.errors["lazy_taken"]
    assert "needs name=" in reg.errors["lazy_nameless"]
    assert "cannot load lazy_spec_module:NOT_THERE" in reg.errors["lazy_bad_provider"]
    assert all("\n" not in error for error in reg.errors.values())
    assert "lazy_other" not in reg.agents and spec_for("lazy_other") is None and spec_for("someone_else") is None
    good = reg.agents["lazy_critic"]
    assert good.plugin == "lazy_good" and good.follows == "generator" and good.spec is sys.modules["lazy_spec_module"].CRITIC
    wired = spec_for("lazy_critic")
    assert wired is not None and wired.opt_in  # in the node table now, run only by the conditions naming it
    assert reg.providers["lazyp"].factory("x") == "x" and reg.providers["lazyp"].factory is sys.modules[
        "lazy_spec_module"].factory
    assert reg.agents["planner"].plugin == "execugraph:agents"
