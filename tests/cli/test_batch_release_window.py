"""`batch --released-after / --released-before` through the real CLI: only the problems released in the window run
(LiveCodeBench fixture rows, a scripted model, the real sandbox and SQLite store), undated problems are left out and
counted, an empty selection is refused in one line, and `--cutoff` alone names the problems after it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.store import Store
from standins.ollama_server import OllamaStandIn, scripted_responder
from standins.scripted import fenced
from tests.support import livecodebench_files as lf

pytestmark = pytest.mark.integration

PROBLEMS = str(lf.FIXTURES / "problems.jsonl")
DOUBLE = fenced("def double(x):\n    return 2 * x\n")


def cli(tmp_path: Path, *args: str, answer: str = DOUBLE) -> subprocess.CompletedProcess:
    with OllamaStandIn(responder=scripted_responder([answer], cycle=True), models=["m"]) as server:
        env = os.environ | {"OLLAMA_HOST": server.url, "EXECUGRAPH_DB": str(tmp_path / "cli.db"),
                            "EXECUGRAPH_CACHE_DIR": str(tmp_path / "cache")}
        return subprocess.run([sys.executable, "-m", "execugraph", "batch", "--conditions", "single-oneshot",
                               "--model", "ollama:m", "--wait", *args], cwd=PROJECT_ROOT, env=env,
                              capture_output=True, text=True, timeout=300)


def _run(tmp_path: Path, result: subprocess.CompletedProcess) -> tuple[set[str], dict]:
    assert result.returncode == 0, result.stderr
    run_id = json.loads(result.stdout.splitlines()[0])["run_id"]
    with Store.open(str(tmp_path / "cli.db")) as store:
        return {t.problem_id for t in store.trials_for_run(run_id)}, store.get_run(run_id).config


def _said(result: subprocess.CompletedProcess, start: str) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith(start)]


def test_only_the_livecodebench_problems_released_in_the_window_run(tmp_path: Path) -> None:
    result = cli(tmp_path, "--benchmark", "livecodebench", "--benchmark-path", PROBLEMS,
                 "--released-after", "2024-08-20", answer=fenced(lf.TWO_SUM))
    ran, config = _run(tmp_path, result)
    assert ran == {"lcb_3400", "lcb_3401"}  # contest 2024-09-01; 1999_A (08-12) and abc999_a (03-30) are before
    assert config["batch"]["released_after"] == "2024-08-20" and "released_before" not in config["batch"]
    assert config["release_window"] == {"released_after": "2024-08-20", "released_before": None, "problems": 2,
                                        "undated": []}
    assert _said(result, "batch: release window:") == [
        "batch: release window: 2 problem(s) released after 2024-08-20 run; every problem has a release date"]
    assert json.loads(result.stdout.splitlines()[-1])["total"] == 2


def test_an_empty_selection_or_a_bad_date_is_refused_in_one_line_and_nothing_is_stored(tmp_path: Path) -> None:
    empty = cli(tmp_path, "--benchmark", "livecodebench", "--benchmark-path", PROBLEMS,
                "--released-after", "2024-09-01")
    assert empty.returncode == 2 and empty.stdout == ""
    assert empty.stderr.strip().splitlines() == [
        "batch: livecodebench: no problem is released after 2024-09-01 (4 dated, dated 2024-03-30 .. 2024-09-01; "
        "0 without a release date): nothing to run"]
    bad = cli(tmp_path, "--benchmark", "livecodebench", "--benchmark-path", PROBLEMS,
              "--released-before", "09/01/2024")
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == ["batch: --released-before: '09/01/2024' is not a date in YYYY-MM-DD form"]
    reversed_ = cli(tmp_path, "--benchmark", "livecodebench", "--benchmark-path", PROBLEMS,
                    "--released-after", "2024-09-01", "--released-before", "2024-03-01")
    assert reversed_.returncode == 2 and "empty window" in reversed_.stderr
    if (tmp_path / "cli.db").exists():
        with Store.open(str(tmp_path / "cli.db")) as store:
            assert store.list_runs(kind="batch", limit=5) == []


def _suite(tmp_path: Path) -> str:
    path = tmp_path / "suite.jsonl"
    rows = [("early", "2024-01-10"), ("late", "2024-09-01"), ("undated", None)]
    path.write_text("".join(json.dumps({"id": pid, "statement": "Return twice x.", "entry_point": "double",
                                        "tests": [{"kind": "call", "args": [2], "expected": 4}],
                                        **({"release_date": d} if d else {})}) + "\n" for pid, d in rows))
    return str(path)


def test_undated_problems_are_left_out_and_counted(tmp_path: Path) -> None:
    result = cli(tmp_path, "--benchmark", "user", "--benchmark-path", _suite(tmp_path),
                 "--released-before", "2024-06-01")
    ran, config = _run(tmp_path, result)
    assert ran == {"early"}
    assert config["release_window"]["undated"] == ["undated"]
    assert _said(result, "batch: release window:") == [
        "batch: release window: 1 problem(s) released before 2024-06-01 run; 1 problem(s) without a release date "
        "left out: undated"]


def test_a_cutoff_without_a_window_names_the_problems_after_it_and_runs_them_all(tmp_path: Path) -> None:
    result = cli(tmp_path, "--benchmark", "user", "--benchmark-path", _suite(tmp_path),
                 "--cutoff", "ollama:m=2024-05-01")
    ran, config = _run(tmp_path, result)
    assert ran == {"early", "late", "undated"}  # the selection is not changed
    assert config["release_window"]["after_cutoff"] == {"ollama:m": {"cutoff": "2024-05-01", "problems": ["late"]}}
    assert _said(result, "batch: training cutoffs:") == [
        "batch: training cutoffs: 1 of 3 released after ollama:m's cutoff 2024-05-01 (late); 1 undated; all 3 run "
        "(--released-after DATE runs only the problems after it)"]
