"""Pass rate per arm by difficulty and by platform: `stats` (terminal and --json) on a real SQLite store holding the
LiveCodeBench fixture problems, each cell with its Wilson interval over problems and n; suites without the facets
show none."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from execugraph.benchmarks import load_benchmark
from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.stats.facets import facet_breakdowns, facet_lines
from execugraph.stats.from_records import build_report_from_records
from execugraph.stats.intervals import wilson
from execugraph.store import Store
from tests.support import livecodebench_files as lf

# problem -> (oneshot passed, retry passed): lcb_1999_A codeforces/medium, lcb_3400 leetcode/easy,
# lcb_3401 leetcode/hard, lcb_abc999_a atcoder/easy
OUTCOMES = {"lcb_1999_A": (False, True), "lcb_3400": (True, True), "lcb_3401": (False, False),
            "lcb_abc999_a": (True, True)}


def _store(path: Path) -> int:
    with Store.open(str(path)) as store:
        for problem in load_benchmark("livecodebench", path=str(lf.FIXTURES / "problems.jsonl")):
            store.upsert_problem(problem)
        run_id = store.create_run("batch", "lcb", {}, benchmark="livecodebench", status="done")
        for pid, verdicts in OUTCOMES.items():
            for condition, passed in zip(("single-oneshot", "single-retry"), verdicts, strict=True):
                trial = store.create_trial(run_id, pid, condition, 0, 0, benchmark="livecodebench")
                store.finish_trial(trial, passed=passed, final_code="pass", error_class=None)
        return run_id


def _stats(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = os.environ | {"EXECUGRAPH_DB": str(tmp_path / "s.db")}
    return subprocess.run([sys.executable, "-m", "execugraph", "stats", *args], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.integration
def test_stats_shows_each_arm_by_difficulty_and_platform_with_wilson_and_n(tmp_path: Path) -> None:
    run_id = _store(tmp_path / "s.db")
    result = _stats(tmp_path, "--runs", str(run_id), "--json")
    assert result.returncode == 0, result.stderr
    breakdowns = json.loads(result.stdout)["breakdowns"]
    cells = {(r["arm"], r["value"]): r for r in breakdowns["difficulty"]}
    assert [r["value"] for r in breakdowns["difficulty"] if r["arm"] == "single-oneshot"] == ["easy", "medium", "hard"]
    easy = cells[("single-oneshot", "easy")]
    assert (easy["problems"], easy["passed"], easy["pass_rate"]) == (2, 2, 1.0)
    assert (easy["ci_lo"], easy["ci_hi"]) == pytest.approx(wilson(2, 2))
    medium = cells[("single-retry", "medium")]
    assert (medium["problems"], medium["pass_rate"]) == (1, 1.0) and medium["ci_lo"] == pytest.approx(wilson(1, 1)[0])
    platforms = {(r["arm"], r["value"]): r for r in breakdowns["platform"]}
    assert set(v for _, v in platforms) == {"atcoder", "codeforces", "leetcode"}
    leetcode = platforms[("single-oneshot", "leetcode")]
    assert (leetcode["problems"], leetcode["passed"]) == (2, 1)
    assert (leetcode["ci_lo"], leetcode["ci_hi"]) == pytest.approx(wilson(1, 2))
    text = _stats(tmp_path, "--runs", str(run_id))
    assert text.returncode == 0, text.stderr
    assert "Pass rate by difficulty (95% Wilson CI over problems; n = problems)" in text.stdout
    lo, hi = wilson(1, 2)
    assert f"- single-oneshot, leetcode: 50.0% [{100 * lo:.1f}, {100 * hi:.1f}], n = 2 (1/2 trials)" in text.stdout


def test_problems_without_the_facet_show_none_and_unknown_values_are_counted() -> None:
    records = [{"run_id": "1", "problem_id": p, "condition": "c", "passed": True} for p in ("a", "b", "c")]
    report = build_report_from_records(records, ["1"])
    assert facet_breakdowns(report, records, {}) == {}
    got = facet_breakdowns(report, records, {"a": {"difficulty": "hard"}, "b": {"difficulty": "easy"}})
    assert list(got) == ["difficulty"]
    assert [(r["value"], r["problems"]) for r in got["difficulty"]] == [("easy", 1), ("hard", 1), ("unknown", 1)]
    assert facet_lines(got)[1].startswith("Pass rate by difficulty")


@pytest.mark.integration
def test_reproduce_reports_each_models_rate_by_difficulty_and_platform_from_livecodebench_outputs(
        tmp_path: Path) -> None:
    from execugraph.reproduce import reproduce_path

    with Store.open(str(tmp_path / "study.db")) as store:
        reproduce_path(store, lf.FIXTURES / "output", tmp_path / "out", figures=False)
    (family,) = json.loads((tmp_path / "out" / "reproduce.json").read_text())["families"]
    breakdowns = family["breakdowns"]
    models = {r["name"] for r in breakdowns["platform"]}
    assert models == {"ModelA", "ModelB"}
    for facet, values in (("difficulty", {"easy", "medium", "hard"}), ("platform", {"leetcode", "atcoder", "codeforces"})):
        for model in models:
            rows = [r for r in breakdowns[facet] if r["name"] == model]
            assert {r["value"] for r in rows} == values
            assert sum(r["problems"] for r in rows) == 4 and sum(r["trials"] for r in rows) == lf.N * 4
            for r in rows:
                assert (r["ci_lo"], r["ci_hi"]) != (None, None) and r["ci_lo"] <= r["pass_rate"] <= r["ci_hi"]
    text = (tmp_path / "out" / "REPORT.md").read_text() if (tmp_path / "out" / "REPORT.md").exists() else ""
    shown = text or "\n".join(p.read_text() for p in (tmp_path / "out").glob("*.md"))
    assert "By difficulty and platform" in shown and "ModelA, leetcode:" in shown
