"""`stats` reads the dashboard's model-cutoff table (real SQLite store): the comparison of two imported LiveCodeBench
models is also shown after the later of their cutoffs; a `--cutoff` flag overrides the table; a cutoff of a model not
compared adds nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.publication import import_path
from execugraph.store import Store
from execugraph.store.model_cutoffs import set_model_cutoff
from tests.support import livecodebench_files as lf

pytestmark = pytest.mark.integration


def _stats(db: Path, *args: str) -> dict:
    env = os.environ | {"EXECUGRAPH_DB": str(db)}
    done = subprocess.run([sys.executable, "-m", "execugraph", "stats", "--json", *args], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_cutoff_table_gives_the_window_of_the_models_compared(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    with Store.open(str(db)) as store:
        runs = [str(run.id) for run in import_path(store, lf.FIXTURES / "output").runs]
        set_model_cutoff(store, "another-model", "2024-01-01")
    assert "contamination_window" not in _stats(db, "--runs", *runs)  # not a model compared here
    with Store.open(str(db)) as store:
        set_model_cutoff(store, "ModelA", "2024-08-01")
        set_model_cutoff(store, "ModelB", "2024-03-01")
    window = _stats(db, "--runs", *runs)["contamination_window"]
    assert window["cutoffs"] == {"ModelA": "2024-08-01", "ModelB": "2024-03-01"}
    (pair,) = window["pairs"]
    assert (pair["released_after"], pair["window"]["n"]) == ("2024-08-01", 3)
    flagged = _stats(db, "--runs", *runs, "--cutoff", "ModelA=2024-08-30")["contamination_window"]
    assert flagged["pairs"][0]["released_after"] == "2024-08-30" and flagged["pairs"][0]["window"]["n"] == 2
