"""`reproduce --amplify` through the CLI on a tiny published study: one arm's wrong-but-plausible programs pass the
original internal-30 tests and fail the amplified suite (built here from the bundled references), so reproduce.json,
the tables and report.md show the comparison under both suites and name the program and the input it failed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from execugraph.amplify.references import reference_for
from execugraph.benchmarks import load_benchmark
from tests.support import published_study as S
from tests.support.amplify_wrong import WRONG_PLAUSIBLE

pytestmark = pytest.mark.integration

PROJECT = Path(__file__).resolve().parents[2]
PROBLEMS = ("cycle_detect", "fib", "house_robber")


def _write_study(root: Path) -> Path:
    problems = {p.id: p for p in load_benchmark("internal30") if p.id in PROBLEMS}
    folder = root / "study"
    for arm, condition in (("a1_so", "single-oneshot"), ("a2_sr", "single-retry")):
        lines = []
        for pid in PROBLEMS:
            code = reference_for(problems[pid]) or ""
            if arm == "a2_sr":
                code = WRONG_PLAUSIBLE.get(pid, code)
            rec = S._base(pid, condition, problems[pid].category, "internal") | {
                "retries_used": 0, "llm_calls": 1, "tokens_in": 10, "tokens_out": 10, "wallclock_s": 1.0}
            lines.append(S._graded(rec, True, code, "none", tests=len(problems[pid].tests)))
        (folder / arm).mkdir(parents=True)
        (folder / arm / "trials.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    return folder


def test_reproduce_amplify_shows_conclusions_and_failed_programs(tmp_path: Path) -> None:
    folder = _write_study(tmp_path)
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "execugraph", "--db", str(tmp_path / "runs.db"), "reproduce",
                           str(folder), "--out", str(out), "--amplify", "--no-figures", "--workers", "2"],
                          capture_output=True, text=True, timeout=300, cwd=PROJECT)
    assert done.returncode == 0, done.stderr
    assert "building amplified tests for internal30" in done.stderr
    data = json.loads((out / "reproduce.json").read_text())
    (family,) = data["families"]
    suites = family["suites"]
    assert suites["available"] and suites["suites"][0].startswith("amplified:")
    (comparison,) = suites["comparisons"]
    assert (comparison["a"], comparison["b"]) == ("a1_so", "a2_sr")  # study names, never database ids
    assert comparison["original"]["delta_pp"] == 0
    assert abs(comparison["amplified"]["delta_pp"]) > 0
    assert {"p_holm", "ci_lo", "ci_hi"} <= set(comparison["amplified"]) and isinstance(comparison["holds"], bool)
    (changed,) = suites["changed"]
    assert changed["problem_id"] == "cycle_detect" and changed["run"] == "a2_sr"
    assert changed["original"] == "passed" and changed["amplified"] != "passed"
    assert "hasCycle(" in changed["failing_input"]
    slug = family["slug"]
    table = data["tables"][f"{slug}-amplified-changed"]
    assert table["rows"][0]["problem_id"] == "cycle_detect" and "hasCycle(" in table["rows"][0]["failing_input"]
    assert f"{slug}-amplified-conclusions" in data["tables"]
    assert (out / "tables" / f"{slug}-amplified-changed.csv").exists()
    report = (out / "report.md").read_text()
    assert "#1" not in report and "#2" not in report
    assert "Conclusions under stronger tests" in report and "Programs the stronger tests fail" in report
    assert "cycle\\_detect" in report or "cycle_detect" in report
    assert "Conclusions under stronger tests" in (out / "report.html").read_text()
    assert "Graded again on the amplified tests (amplified:" in report  # the section says what they found in words
    assert "each comparison under the original and the amplified (stronger) tests" in report  # the forest figure

    plain = subprocess.run([sys.executable, "-m", "execugraph", "--db", str(tmp_path / "runs.db"), "reproduce",
                            str(folder), "--out", str(tmp_path / "plain"), "--no-figures", "--workers", "2"],
                           capture_output=True, text=True, timeout=300, cwd=PROJECT)
    assert plain.returncode == 0, plain.stderr
    assert "suites" not in json.loads((tmp_path / "plain" / "reproduce.json").read_text())["families"][0]
