"""`stats` and `reproduce` with `--released-after` on LiveCodeBench outputs of two models: each model's rate and
the comparison over the dated window, from the release dates the import kept (real store, real subprocesses)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import livecodebench_files as lf

pytestmark = pytest.mark.integration

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "execugraph", *args], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_stats_reports_each_comparison_on_all_problems_and_on_the_window(tmp_path: Path) -> None:
    env = os.environ | {"EXECUGRAPH_DB": str(tmp_path / "w.db")}
    assert _cli(env, "import", str(lf.FIXTURES / "output")).returncode == 0
    done = _cli(env, "stats", "--runs", "1", "2", "--released-after", "2024-08-01", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    window = json.loads(done.stdout)["contamination_window"]
    # 1999_A (2024-08-12), 3400 and 3401 (2024-09-01) are in; abc999_a (2024-03-30) is not
    assert window["windows"] == [{"after": "2024-08-01", "before": None, "problems": 3}]
    assert window["undated"] == {"count": 0, "problems": []}
    rates = {row["name"]: (row["all"]["pass_rate"], row["window"]["problems"], row["window"]["pass_rate"])
             for row in window["arms"]}
    assert rates == {"ModelA #1": (0.75, 3, pytest.approx(4 / 6)), "ModelB #2": (0.625, 3, pytest.approx(4 / 6))}
    (pair,) = window["pairs"]
    assert pair["all"]["n"] == 4 and pair["all"]["delta_pp"] == pytest.approx(-12.5)
    assert pair["window"]["n"] == 3 and pair["window"]["delta_pp"] == pytest.approx(0.0)
    assert pair["holds"] is False and "the direction changes" in pair["sentence"]

    text = _cli(env, "stats", "--runs", "1", "2", "--cutoff", "ModelA=2024-08-15", "--cutoff", "ModelB=2024-04-01")
    assert text.returncode == 0, text.stderr[-2000:]
    assert "- released after 2024-08-15: 2 problem(s)" in text.stdout  # the later cutoff of the two
    assert "ModelB #2: 62.5% on 4 problem(s); 50.0% on 2 released after 2024-08-15" in text.stdout

    bad = _cli(env, "stats", "--runs", "1", "2", "--released-after", "01/08/2024")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip() == "stats: --released-after: '01/08/2024' is not a date in YYYY-MM-DD form"


def test_reproduce_reports_the_window_beside_every_comparison(tmp_path: Path) -> None:
    env = os.environ | {"EXECUGRAPH_DB": str(tmp_path / "r.db")}
    done = _cli(env, "reproduce", str(lf.FIXTURES / "output"), "--out", str(tmp_path / "out"), "--no-figures",
                "--quiet", "--released-after", "2024-08-01")
    assert done.returncode == 0, done.stderr[-2000:]
    (family,) = json.loads((tmp_path / "out" / "reproduce.json").read_text())["families"]
    window = family["contamination_window"]
    rates = {row["name"]: (row["all"]["pass_rate"], row["window"]["pass_rate"]) for row in window["arms"]}
    assert rates == {"ModelA": (0.75, pytest.approx(4 / 6)), "ModelB": (0.625, pytest.approx(4 / 6))}
    (pair,) = window["pairs"]
    assert (pair["a_name"], pair["b_name"], pair["window"]["n"]) == ("ModelA", "ModelB", 3)
    assert pair["sentence"].startswith("ModelB vs ModelA: the conclusion does NOT hold in the window")
    assert pair["sentence"] in done.stderr
    assert "Contamination window" in (tmp_path / "out" / "report.md").read_text()
