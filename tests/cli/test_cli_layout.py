"""The CLI's front door imports only what the command needs: `--help` no command module, `status` no heavy library.

Each check runs `execugraph.cli.main` in a fresh interpreter and reads `sys.modules` afterwards, so an
import added at the top of a command module (or a parser built eagerly again) shows up here, not as a
slower start nobody measures. The timing itself is `bench/cli_startup.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from execugraph.cli import COMMANDS, build_parser, command_parser
from execugraph.configuration.settings import PROJECT_ROOT

pytestmark = pytest.mark.integration

# Libraries no light command may load: the agents' stack, models, statistics, charts, the dashboard.
HEAVY = ("langchain", "langchain_core", "langgraph", "langsmith", "torch", "scipy", "numpy", "plotly", "pandas",
         "sentence_transformers", "transformers", "llama_cpp", "faiss", "onnxruntime", "ray", "streamlit", "sandbox")
# Project packages `status` has no use for (what `build_parser` used to import for every command).
NOT_FOR_STATUS = ("execugraph.stats", "execugraph.agents", "execugraph.reproduce", "execugraph.publication",
                  "execugraph.figures", "execugraph.verdicts", "execugraph.amplify", "execugraph.retrieval",
                  "execugraph.workflow.graph", "execugraph.cli.publication", "execugraph.cli.stats")

# What `status` no longer loads: the ORM, SQLModel's tables and pydantic (the store's import cost 2x SQLAlchemy's).
ORM = ("sqlmodel", "pydantic", "sqlalchemy.orm", "execugraph.store.models", "execugraph.domain.config")

PROBE = """
import json, sys
from execugraph.cli import main
try:
    code = main(sys.argv[2:])
except SystemExit as exc:
    code = exc.code
with open(sys.argv[1], "w") as out:
    json.dump({"code": code, "modules": sorted(sys.modules)}, out)
"""


def loaded(tmp_path: Path, *argv: str) -> tuple[int, set[str]]:
    """Run `python -m execugraph ARGV` in a fresh interpreter: its exit code and every module it imported."""
    out = tmp_path / "modules.json"
    env = os.environ | {"EXECUGRAPH_DB": str(tmp_path / "runs.db")}
    done = subprocess.run([sys.executable, "-c", PROBE, str(out), *argv], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert out.exists(), done.stderr
    found = json.loads(out.read_text())
    return found["code"], set(found["modules"])


def heavy_in(modules: set[str], names: tuple[str, ...]) -> list[str]:
    """The modules of `modules` that are one of `names` or inside one."""
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def test_help_imports_no_command_module_and_no_heavy_library(tmp_path):
    code, modules = loaded(tmp_path, "--help")
    assert code == 0
    assert heavy_in(modules, HEAVY + ("sqlalchemy", "sqlmodel", "pydantic", "execugraph.store")) == []
    assert sorted(m for m in modules if m.startswith("execugraph.cli.")) == ["execugraph.cli.terminal"]


def test_status_imports_the_store_but_nothing_heavy(tmp_path):
    code, modules = loaded(tmp_path, "status")
    assert code == 0
    assert "execugraph.store" in modules  # it did read the database
    assert heavy_in(modules, HEAVY) == []
    assert heavy_in(modules, NOT_FOR_STATUS) == []
    assert heavy_in(modules, ORM) == []  # Core reads only (execugraph.store.status_view)


def test_status_of_finished_batches_stays_off_the_orm(tmp_path):
    from execugraph.store import Store

    with Store.open(str(tmp_path / "runs.db")) as store:
        run = store.create_run("batch", "finished", {}, status="done")
        store.create_trial(run, "p1", "c", 0, 0, status="done")
    code, modules = loaded(tmp_path, "status")
    assert code == 0
    assert heavy_in(modules, ORM) == []
    assert "execugraph.batch.progress" in modules  # it did count the run's trials


def test_a_command_help_declares_only_that_command(tmp_path):
    code, modules = loaded(tmp_path, "status", "--help")
    assert code == 0
    assert heavy_in(modules, HEAVY + ("sqlalchemy", "execugraph.store")) == []
    assert sorted(m for m in modules if m.startswith("execugraph.cli.")) == ["execugraph.cli.batch",
                                                                               "execugraph.cli.terminal"]


def test_every_command_still_declares_its_arguments_when_chosen():
    parser = build_parser()
    for name in COMMANDS:
        command = command_parser(parser, name)
        flags = {flag for action in command._actions for flag in action.option_strings}
        assert "--db" in flags and len(command._actions) > 2, name  # --help, --db, and its own
    args = build_parser().parse_args(["--db", "x.db", "rescore", "--run", "3", "--json"])
    assert (args.command, args.run, args.json, args.db) == ("rescore", 3, True, "x.db")
    assert callable(args._run)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["status", "--no-such-flag"])
    assert isinstance(command_parser(build_parser(), "batch"), argparse.ArgumentParser)


# What enqueueing a batch, a worker's warm-up and the refusals of `batch`, `run`, `import` and `reproduce` have no
# use for: statistics (SciPy) and charts nowhere, and the agents' stack (LangGraph, LangChain) only where a trial runs.
NOT_FOR_ENQUEUE = ("execugraph.stats", "execugraph.figures", "execugraph.reproduce.study", "execugraph.workflow.trial",
                   "execugraph.verdicts.rescore", "execugraph.providers.llm")

NO_WORKER_PROBE = """
import json, sys
import execugraph.batch.worker_process as worker_process
worker_process.ensure_worker = lambda *args, **kwargs: None  # enqueue only: no background worker to run the trial
from execugraph.cli import main
code = main(sys.argv[2:])
with open(sys.argv[1], "w") as out:
    json.dump({"code": code, "modules": sorted(sys.modules)}, out)
"""


@pytest.mark.parametrize("argv", [
    ("batch", "--benchmark", "internal30", "--problems", "nope", "--conditions", "single-oneshot"),
    ("run", "--problem", "internal30/nope"),
    ("import", "/nonexistent"),
    ("reproduce", "/nonexistent", "--out", "taken.txt"),  # --out names a file: refused before the study loads
], ids=["batch", "run", "import", "reproduce"])
def test_refusals_load_no_heavy_library(tmp_path, argv):
    (tmp_path / "taken.txt").touch()
    code, modules = loaded(tmp_path, *(str(tmp_path / a) if a == "taken.txt" else a for a in argv))
    assert code == 2
    assert heavy_in(modules, HEAVY) == []
    assert heavy_in(modules, NOT_FOR_ENQUEUE) == []


def test_enqueueing_a_batch_loads_no_heavy_library(tmp_path):
    out = tmp_path / "modules.json"
    env = os.environ | {"EXECUGRAPH_DB": str(tmp_path / "runs.db")}
    argv = ["batch", "--benchmark", "internal30", "--problems", "fib", "--conditions", "single-oneshot"]
    done = subprocess.run([sys.executable, "-c", NO_WORKER_PROBE, str(out), *argv], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert out.exists(), done.stderr
    found = json.loads(out.read_text())
    assert found["code"] == 0 and json.loads(done.stdout)["trials"] == 1
    assert heavy_in(set(found["modules"]), HEAVY) == []
    assert heavy_in(set(found["modules"]), NOT_FOR_ENQUEUE) == []


def test_a_workers_warm_up_loads_the_trial_but_no_statistics():
    probe = ("import importlib, json, sys\nfrom execugraph.batch.warmup import TRIAL_MODULES\n"
             "[importlib.import_module(m) for m in TRIAL_MODULES]\nprint(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=PROJECT_ROOT, capture_output=True, text=True,
                          timeout=120, check=True)
    modules = set(json.loads(done.stdout))
    assert "langgraph" in modules  # what a trial runs on
    assert heavy_in(modules, ("scipy", "plotly", "execugraph.figures", "execugraph.stats.paired")) == []
