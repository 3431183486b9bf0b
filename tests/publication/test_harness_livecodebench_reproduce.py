"""`reproduce` on a folder of LiveCodeBench output files of two models (both file kinds): each file's own pass@1,
the paired comparison on their common problems, and, with the problem file, every program re-judged in the
REAL sandbox (`with-prompt` agrees with every published verdict; `standalone` flips the programs that lean on
lcb_runner's import block)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from execugraph.reproduce import reproduce_path
from execugraph.store import Store
from tests.support import livecodebench_files as lf

pytestmark = pytest.mark.integration

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def test_reproduce_reports_each_files_pass_at_1_and_the_paired_comparison(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "study.db")) as store:
        reproduce_path(store, lf.FIXTURES / "output", tmp_path / "out", figures=False)
    report = json.loads((tmp_path / "out" / "reproduce.json").read_text())
    rates = {r["name"]: r["published"]["pass_rate"] for r in report["runs"]}
    assert rates == {"ModelA": pytest.approx(0.75), "ModelB": pytest.approx(0.625)}
    (family,) = report["families"]
    assert family["name"] == "livecodebench, 4 problems" and family["runs"] == ["ModelA", "ModelB"]
    (pair,) = family["comparisons"]
    assert (pair["a"], pair["b"]) == ("ModelA", "ModelB")
    assert pair["published"]["n"] == 4 and pair["published"]["delta_pp"] == pytest.approx(-12.5)
    # without the problem file nothing can be rerun: each trial keeps its published verdict, and says so
    assert all("could not be rescored" in w for w in report["warnings"]) and len(report["warnings"]) == 8


def test_reproduce_with_the_problem_file_rejudges_every_program(tmp_path: Path) -> None:
    env = os.environ | {"EXECUGRAPH_DB": str(tmp_path / "cli.db")}
    done = subprocess.run([sys.executable, "-m", "execugraph", "reproduce", str(lf.FIXTURES / "output"),
                           "--dataset", str(lf.FIXTURES / "problems.jsonl"), "--out", str(tmp_path / "out")],
                          cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads((tmp_path / "out" / "reproduce.json").read_text())
    assert report["warnings"] == [] and report["input"]["dataset"]["problems"] == 4
    runs = {r["name"]: r for r in report["runs"]}
    for name, run in runs.items():
        prompt = run["with-prompt"]
        assert prompt["rescored"] == 8 and prompt["agreement"]["rate"] == 1.0, name
        assert prompt["pass_rate"] == pytest.approx(lf.PASS_AT_1[name])
    flipped = {name: sorted(f["problem_id"] for f in run["standalone"]["flip_list"]) for name, run in runs.items()}
    assert flipped == {"ModelA": ["lcb_3400", "lcb_3400"], "ModelB": ["lcb_3400", "lcb_abc999_a"]}


def test_generations_without_verdicts_are_graded_on_import_with_the_problem_file(tmp_path: Path) -> None:
    from execugraph.publication import import_path
    from execugraph.reproduce import load_dataset

    lf.write_outputs(tmp_path, ("ModelB",), kinds=("outputs",))
    dataset = load_dataset((lf.FIXTURES / "problems.jsonl").read_bytes(), "test6.jsonl")
    with Store.open(str(tmp_path / "graded.db")) as store:
        (run,) = import_path(store, tmp_path / "output", dataset=dataset).runs
        assert store.get_run(run.id).config["harness"]["verdicts"] == "graded on import"
        got = {(t.problem_id, t.trial_index): t.passed for t in store.trials_for_run(run.id)}
    assert got == {(f"lcb_{e['question_id']}", j): g for e in lf.eval_all("ModelB") for j, g in
                   enumerate(e["graded_list"])}  # lcb_runner's own verdicts, reached here
