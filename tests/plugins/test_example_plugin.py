"""The example plugin (examples/execugraph-toy), pip-installed into a fresh virtual environment, is found through
its entry point and shows up everywhere: `plugins`, a batch that runs its loop, agent, benchmark and provider end
to end, and the dashboard's batch form and Synthesize picker. Real venv, real pip, real subprocesses."""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from execugraph.store import Store

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "execugraph-toy"


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv that sees the project's packages (a .pth), with the example plugin pip-installed into it."""
    home = tmp_path_factory.mktemp("plugin-venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(home)], check=True, timeout=120)
    lib = next((home / "lib").glob("python3*")) / "site-packages"
    lib.joinpath("execugraph-project.pth").write_text("\n".join([*site.getsitepackages(), str(ROOT)]) + "\n")
    build = tmp_path_factory.mktemp("plugin-build")
    source = build / "execugraph-toy"  # built from a copy: nothing is written into the checkout
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    subprocess.run([str(home / "bin" / "python"), "-m", "pip", "install", "--no-deps", "--no-build-isolation",
                    "--no-index", "--quiet", str(source)], check=True, timeout=300, cwd=build,
                   env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "TMPDIR": str(build)})
    return home


def _run(venv: Path, *args: str, db: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "EXECUGRAPH_DB": str(db), "EXECUGRAPH_CACHE_DIR": str(db.parent / "cache")}
    return subprocess.run([str(venv / "bin" / "python"), *args], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT, env=env)


def test_the_plugin_is_listed_with_everything_it_registers(venv: Path, tmp_path: Path) -> None:
    done = _run(venv, "-m", "execugraph", "plugins", "--json", db=tmp_path / "runs.db")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert "toy" in listed["plugins"]
    assert [b["name"] for b in listed["benchmarks"]] == ["toy-arith"]
    assert {c["name"] for c in listed["conditions"]} == {"toy-critic", "loop-toy-echo"}
    assert [a["name"] for a in listed["agents"]] == ["toy_critic"]
    assert [p["name"] for p in listed["providers"]] == ["toy"]
    assert listed["errors"] == []
    # the project's own interpreter has no such plugin: nothing of it leaks into an environment without it
    alone = subprocess.run([sys.executable, "-m", "execugraph", "plugins", "--json"], capture_output=True, text=True,
                           cwd=ROOT, timeout=300, env={**os.environ, "EXECUGRAPH_DB": str(tmp_path / "b.db")})
    assert json.loads(alone.stdout)["benchmarks"] == []


def test_a_batch_runs_the_plugins_loop_agent_benchmark_and_provider(venv: Path, tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    done = _run(venv, "-m", "execugraph", "batch", "--benchmark", "toy-arith",
                "--conditions", "loop-toy-echo,toy-critic,single-oneshot", "--model", "toy:scripted", "--wait",
                db=db)
    assert done.returncode == 0, done.stdout + done.stderr
    with Store.open(str(db)) as store:
        runs = store.list_runs()
        assert len(runs) == 1 and runs[0].status == "done", runs
        trials = store.trials_for_run(runs[0].id)
        assert len(trials) == 9
        assert all(t.passed for t in trials), [(t.condition, t.problem_id, t.error_class) for t in trials]
        by_condition: dict[str, list[str]] = {}
        for trial in trials:
            nodes = [s.node for s in store.steps_for_trial(trial.id)]
            by_condition.setdefault(trial.condition, nodes)
            assert trial.llm_calls >= 1 and trial.tokens_in > 0
    assert by_condition["loop-toy-echo"] == ["loop", "grade"]
    assert "toy_critic" in by_condition["toy-critic"]
    assert "toy_critic" not in by_condition["single-oneshot"]  # a plugin's node runs only where a condition names it


def test_the_dashboard_offers_the_plugins_benchmark_and_conditions(venv: Path, tmp_path: Path) -> None:
    script = tmp_path / "probe.py"
    script.write_text(textwrap.dedent(f"""
        import json
        from streamlit.testing.v1 import AppTest
        at = AppTest.from_file({str(ROOT / "app.py")!r}, default_timeout=300)
        at.run()
        picker = at.selectbox(key="syn.pick_benchmark")
        conditions = at.selectbox(key="syn.condition").options
        at.switch_page("pages/batch.py").run()
        batch = at.selectbox(key="batch.benchmark").options
        chosen = at.multiselect(key="batch.conditions").options
        print(json.dumps({{"picker": picker.options, "syn": conditions, "batch": batch, "conds": chosen,
                          "errors": [str(e.value) for e in at.exception]}}))
    """))
    done = _run(venv, str(script), db=tmp_path / "runs.db")
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["errors"] == []
    assert "toy-arith" in seen["picker"] and "toy-arith" in seen["batch"]
    assert {"toy-critic", "loop-toy-echo"} <= set(seen["syn"]) & set(seen["conds"])
