"""Broken plugins (an import that fails, a name registered twice, a hook that breaks its contract or raises) are
named in one line each by the registry, `plugins`, `doctor` and the dashboard's sidebar, and everything else,
a good plugin beside them included, keeps working. The plugins are real distributions on sys.path (a dist-info
folder with entry_points.txt, which is what pip writes), found through importlib.metadata."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from execugraph.plugins import build_registry, registry, use_registry
from execugraph.providers.health import check_plugins

ROOT = Path(__file__).resolve().parents[2]

MODULES = {
    "good_plug": """
        from execugraph.plugins import hookimpl
        from execugraph.domain.problem import Problem

        @hookimpl
        def register_benchmarks(register):
            register("ok-bench", lambda **o: [Problem(id="p1", statement="s", tests=[])], description="fine")
    """,
    "import_fails": """
        raise ImportError("no module named 'torch9'")
    """,
    "twice": """
        from execugraph.plugins import hookimpl

        @hookimpl
        def register_conditions(register):
            register("twice-own", {"retry_budget": 1})

        @hookimpl
        def register_benchmarks(register):
            register("humaneval", lambda **o: [])
    """,
    "contract": """
        from execugraph.plugins import hookimpl

        @hookimpl
        def register_providers(register):
            register("bad:prefix", lambda name, **kw: None)
    """,
    "raises": """
        from execugraph.plugins import hookimpl

        @hookimpl
        def register_loops(register):
            raise RuntimeError("the loop table is not ready")
    """,
}


@pytest.fixture
def plugin_path(tmp_path: Path) -> Path:
    """A folder holding five plugin modules and the dist-info that declares them as `execugraph` entry points."""
    for name, source in MODULES.items():
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    info = tmp_path / "broken_plugins-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugins\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[execugraph]\n" + "".join(f"{n} = {n}\n" for n in MODULES))
    return tmp_path


@pytest.fixture
def installed(plugin_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The broken plugins on this process's sys.path, with the process registry rebuilt from them (restored after)."""
    monkeypatch.syspath_prepend(str(plugin_path))
    importlib.invalidate_caches()
    old = use_registry(build_registry())
    yield plugin_path
    for name in MODULES:
        sys.modules.pop(name, None)
    use_registry(old)


def test_each_broken_plugin_is_named_once_and_the_rest_works(installed: Path) -> None:
    reg = registry()
    assert set(reg.errors) == {"import_fails", "twice", "contract", "raises"}
    assert "torch9" in reg.errors["import_fails"]
    assert "benchmark 'humaneval' is already registered by execugraph:benchmarks" in reg.errors["twice"]
    assert "'bad:prefix' must not contain ':'" in reg.errors["contract"]
    assert "RuntimeError: the loop table is not ready" in reg.errors["raises"]
    assert "twice-own" not in reg.conditions  # a broken plugin is left out whole
    assert reg.benchmarks["humaneval"].plugin == "execugraph:benchmarks"
    assert reg.benchmarks["ok-bench"].plugin == "good_plug"
    from execugraph.benchmarks import load_benchmark

    assert [p.id for p in load_benchmark("ok-bench")] == ["p1"]
    assert len(load_benchmark("internal30")) == 30
    lines = check_plugins()
    assert lines[0].level == "ok" and "good_plug" in lines[0].detail
    assert sorted(c.name for c in lines[1:]) == ["plugin contract", "plugin import_fails", "plugin raises",
                                                 "plugin twice"]
    assert all(c.level == "fail" and "\n" not in c.detail for c in lines[1:])


@pytest.mark.integration
def test_the_cli_and_doctor_name_them(plugin_path: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": f"{plugin_path}{os.pathsep}{ROOT}", "EXECUGRAPH_DB": str(tmp_path / "r.db"),
           "OLLAMA_HOST": "http://127.0.0.1:9"}
    listed = subprocess.run([sys.executable, "-m", "execugraph", "plugins"], capture_output=True, text=True,
                            cwd=ROOT, env=env, timeout=300)
    assert listed.returncode == 1
    errors = [line for line in listed.stdout.splitlines() if line.startswith("error: plugin ")]
    assert sorted(line.split(":")[1].strip().split()[1] for line in errors) == [
        "contract", "import_fails", "raises", "twice"]
    assert "ok-bench" in listed.stdout
    doctor = subprocess.run([sys.executable, "-m", "execugraph", "doctor", "--json"], capture_output=True, text=True,
                            cwd=ROOT, env=env, timeout=300)
    assert "plugin twice" in doctor.stdout and "plugin import_fails" in doctor.stdout, doctor.stdout[-2000:]


@pytest.mark.integration
def test_the_sidebar_names_them(installed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("EXECUGRAPH_DB", str(tmp_path / "runs.db"))
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    monkeypatch.setattr("ui.resources.start_worker", lambda url: True)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    shown = " ".join(str(m.value) for m in at.sidebar.markdown) + " ".join(str(c.value) for c in at.sidebar.caption)
    for name in ("import_fails", "twice", "contract", "raises"):
        assert f"plugin {name}" in shown
    assert "torch9" in shown
