"""Per-problem CPU limits calibrated from a reference solution, recorded on the trial, listed when near.

The programs spin for a set number of CPU seconds (`time.process_time`), so they need
the same CPU on any machine; the floors are small to keep the test short.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execugraph.cli import main as cli
from execugraph.configuration.conditions import resolve_condition
from execugraph.domain.problem import Problem
from execugraph.grading.calibration import FACTOR, Calibration, Calibrator, calibrate, reference_program
from execugraph.grading.rules import GradingSettings, sandbox_job
from execugraph.store import Store
from execugraph.verdicts import rescore_run
from execugraph.workflow.trial import TrialDeps, run_trial
from standins.scripted import ScriptedChatModel, fenced

pytestmark = pytest.mark.integration


def spinner(seconds: float) -> str:
    return (
        "import time\n"
        "def work(n):\n"
        f"    end = time.process_time() + {seconds}\n"
        "    while time.process_time() < end:\n"
        "        pass\n"
        "    return n\n"
    )


def problem(reference_s: float | None, timeout_s: float | None = None) -> Problem:
    tests = [{"kind": "call", "expr": "work(1)", "expected": 1}, {"kind": "call", "expr": "work(2) * 0", "expected": 0}]
    return Problem(id=f"spin-{reference_s}", benchmark="adhoc", statement="Spin.", entry_point="work", tests=tests,
                   reference=spinner(reference_s) if reference_s is not None else "", timeout_s=timeout_s)


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=2) as shared:
        yield shared


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EXECUGRAPH_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


class NoPool:
    """A pool that must not be asked: the calibration is already known."""

    def run_many(self, jobs):
        raise AssertionError(f"measured again: {len(jobs)} jobs")


def test_a_reference_sets_each_tests_limit_and_is_measured_once_per_machine(pool, cache_dir: Path) -> None:
    spin = problem(0.1)
    settings = GradingSettings(timeout_s=0.2)
    limits = calibrate(pool, spin, spin.tests, settings)
    assert limits.calibrated and limits.floor_s == 0.2
    assert limits.reference_cpu_s is not None and all(0.09 <= r < 0.25 for r in limits.reference_cpu_s)
    assert limits.cpu_s == tuple(max(0.2, FACTOR * r) for r in limits.reference_cpu_s)  # 4 x ~0.1 s > the floor
    (stored,) = list((cache_dir / "calibration").glob("sandbox-*/*.json"))
    assert json.loads(stored.read_text())["runs"] == 3
    again = calibrate(NoPool(), spin, spin.tests, settings, Calibrator(cache_dir / "calibration"))
    assert again == limits, "a fresh process on this machine reads the stored calibration"
    without = spin.model_copy(update={"reference": ""})  # e.g. read back from the store, which keeps no reference
    assert calibrate(NoPool(), without, without.tests, settings, Calibrator(cache_dir / "calibration")) == limits
    other = calibrate(pool, spin, spin.tests, GradingSettings(timeout_s=0.2, protocol="with-prompt"))
    assert other.calibrated  # no preamble here: the same suite, so the same calibration
    written = [{"kind": "call", "expr": "work(5)", "expected": 5}]  # model-written tests are not the problem's
    assert not calibrate(NoPool(), spin, written, settings).calibrated
    alone = problem(None)
    alone.tests[0]["expr"] = "work(3) - 2"  # another suite, never calibrated, and no reference: the floor
    assert calibrate(pool, alone, alone.tests, settings).cpu_s == (0.2, 0.2)


def test_the_first_calibration_stored_wins(cache_dir: Path) -> None:
    first, second = Calibrator(cache_dir), Calibrator(cache_dir)
    kept = first.put("p", "k", Calibration((0.1,), "ref"))
    assert second.put("p", "k", Calibration((0.3,), "ref")) == kept == Calibrator(cache_dir).get("p", "k")


def test_a_candidate_over_the_floor_passes_within_factor_times_the_reference(pool) -> None:
    spin = problem(0.1, timeout_s=0.2)  # the benchmark's own 0.2 s per test is the floor
    settings = GradingSettings()
    slower = spinner(0.3)  # three times the reference, over the floor
    plain = pool.run_suite(*sandbox_job(spin, slower, spin.tests, settings))
    assert plain.tests[0].error_class == "CpuTimeLimit"
    limits = calibrate(pool, spin, spin.tests, settings)
    calibrated = pool.run_suite(*sandbox_job(spin, slower, spin.tests, settings, cpu_limits=limits))
    assert calibrated.passed, [(t.error_class, t.cpu_s, t.cpu_limit_s) for t in calibrated.tests]
    assert calibrated.tests[0].cpu_limit_s == limits.cpu_s[0] > 0.3
    far = pool.run_suite(*sandbox_job(spin, spinner(1.0), spin.tests, settings, cpu_limits=limits))
    assert far.tests[0].error_class == "CpuTimeLimit"


def test_humaneval_is_calibrated_from_its_canonical_solutions_and_keeps_the_floor(pool) -> None:
    from execugraph.benchmarks import load_humaneval

    first = load_humaneval()[0]
    assert reference_program(first) == reference_program(first.model_copy(update={"reference": ""}))
    settings = GradingSettings()
    tests = [t for t in first.tests if t.get("grading", True)]
    limits = calibrate(pool, first, tests, settings)
    assert limits.calibrated and limits.cpu_s == (5.0,) and limits.reference_cpu_s[0] < 5.0 / FACTOR
    assert "cpu_limit_s" not in sandbox_job(first, "x = 1", tests, settings, cpu_limits=limits)[1]["tests"][0]


def test_a_trial_records_its_limits_its_rescore_agrees_and_stats_lists_it_near_the_limit(
    pool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spin = problem(0.1, timeout_s=0.2)
    config = resolve_condition("single-oneshot")
    db = str(tmp_path / "near.db")
    with Store.open(db) as store:
        run_id = store.create_run("batch", "near", {"conditions": {config.condition: config.model_dump()}},
                                  benchmark="adhoc", status="running")
        store.upsert_problem(spin)
        for index, seconds in enumerate((0.05, 0.37)):  # far from, and near, a limit of about 0.4 s
            deps = TrialDeps(pool=pool, chat_models={"generator": ScriptedChatModel(replies=[fenced(spinner(seconds))])})
            result = run_trial(spin, config, store, run_id=run_id, trial_index=index, deps=deps)
            assert result.status == "done" and result.passed
        trials = store.trials_for_run(run_id)
        grade = next(s for s in store.steps_for_trial(trials[1].id) if s.node == "grade")
        recorded = grade.output["time_limits"]
        assert recorded["calibrated"] and recorded["cpu_floor_s"] == 0.2 and recorded["cpu_s"][0] > 0.35
        (execution,) = [e for e in store.executions_for_trial(trials[1].id) if e.purpose == "feedback"]
        # the meter reads the kernel's counters from outside: within a scheduler tick of the program's own clock
        assert execution.results[0]["cpu_limit_s"] == recorded["cpu_s"][0] and execution.results[0]["cpu_s"] >= 0.36
        same = rescore_run(store, run_id, pool=pool)
        assert (same.rescored, same.agree, same.flips) == (2, 2, [])
    assert cli(["--db", db, "stats", "--runs", str(run_id), "--near-limit"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"run {run_id}: 1 of 2 measured programs decided within 20% of a time limit")
    assert "spin-0.1  single-oneshot" in out and "of its" in out and "CPU limit" in out
    assert cli(["--db", db, "stats", "--runs", str(run_id), "--near-limit", "--json"]) == 0
    (listed,) = json.loads(capsys.readouterr().out)["runs"][0]["near"]
    assert listed["trial"] == trials[1].id and listed["limit"] == "CPU" and 0.8 <= listed["share"] <= 1.0


def test_a_rescore_that_times_out_says_which_limit_and_by_how_much(pool, tmp_path: Path) -> None:
    spin = problem(None)
    config = resolve_condition("single-oneshot", test_timeout_s=0.3).model_dump()
    with Store.open(str(tmp_path / "flip.db")) as store:
        run_id = store.create_run("batch", "flip", {"conditions": {"single-oneshot": config}}, status="done")
        store.upsert_problem(spin)
        trial = store.create_trial(run_id, spin.id, "single-oneshot", 0, 0, benchmark="adhoc")
        store.finish_trial(trial, passed=True, final_code=spinner(1.0), error_class=None)
        report = rescore_run(store, run_id, pool=pool)
    (flip,) = report.flips
    assert (flip.was, flip.now, flip.causes) == ("passed", "timeout", ("timeout",))
    assert flip.reason.startswith("a timeout now: test 'test_0' ran out of its 0.3 s CPU limit (used 0.3")
