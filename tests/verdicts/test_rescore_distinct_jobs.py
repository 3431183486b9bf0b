"""A rescore runs each distinct (program, suite, policy) job once and gives every trial the verdict running it gives.

Through the real sandbox: the pool is a real `SandboxPool` behind a proxy that counts the jobs handed to
it, and the verdicts stored for a run whose trials repeat programs are compared with those of the same
programs each made distinct (so each one runs). The CLI's summary line is read from a real subprocess.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from execugraph.configuration.conditions import resolve_condition
from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.domain.problem import Problem
from execugraph.store import Store
from execugraph.verdicts import rescore_run

pytestmark = pytest.mark.integration

SQ = Problem(id="sq", benchmark="adhoc", statement="Square x.", entry_point="sq",
             tests=[{"kind": "call", "expr": f"sq({x})", "expected": x * x} for x in (2, 3, 5)])
ONE = Problem(id="one", benchmark="adhoc", statement="Return 1.", entry_point="one",
              tests=[{"kind": "call", "expr": "one()", "expected": 1}])
SQ_GOOD, SQ_BAD = "def sq(x):\n    return x * x\n", "def sq(x):\n    return 4\n"
ONE_GOOD, ONE_CRASH = "def one():\n    return 1\n", "def one():\n    return [][1]\n"
# (problem, program, passed) per trial, in both conditions: 14 trials, 4 distinct jobs
TRIALS = [(SQ, SQ_GOOD, True)] * 3 + [(SQ, SQ_BAD, False)] * 2 + [(ONE, ONE_GOOD, True)] * 1 + [(ONE, ONE_CRASH, False)]
CONDITIONS = ("single-oneshot", "single-retry")
TIMINGS = ("duration_s", "cpu_s")  # of a per-test result: they differ from one run to the next


class CountingPool:
    """A real pool whose `run_many` counts the jobs it is given (everything else is the pool's own)."""

    def __init__(self, pool: Any) -> None:
        self.pool, self.codes = pool, []

    def run_many(self, jobs: Sequence[Any]) -> list[Any]:
        self.codes += [job[0] for job in jobs]
        return self.pool.run_many(jobs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pool, name)


@pytest.fixture(scope="module")
def pool() -> Iterator[Any]:
    from sandbox import SandboxPool

    with SandboxPool(workers=2) as shared:
        yield shared


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(str(tmp_path / "rescore.db")) as opened:
        yield opened


def _run(store: Store, distinct: bool = False) -> int:
    """A finished run of TRIALS under each condition; `distinct` makes every program differ by a comment."""
    config = {"conditions": {c: resolve_condition(c).model_dump() for c in CONDITIONS}}
    run_id = store.create_run("batch", "repeats", config, status="done")
    index = 0
    for condition in CONDITIONS:
        for problem, code, passed in TRIALS:
            store.upsert_problem(problem)
            trial = store.create_trial(run_id, problem.id, condition, 0, index, benchmark=problem.benchmark)
            program = code + (f"# trial {index}\n" if distinct else "")
            store.finish_trial(trial, passed=passed, final_code=program,
                               error_class=None if passed else "wrong_answer")
            index += 1
    return run_id


def _stored(store: Store, child_id: int) -> list[tuple[Any, ...]]:
    """Each child trial's verdict and its grading execution's, per test (timings aside), in trial order."""
    rows = []
    for trial in sorted(store.trials_for_run(child_id), key=lambda t: (t.condition, t.trial_index)):
        (execution,) = store.executions_for_trial(trial.id)
        tests = [{k: v for k, v in r.items() if k not in TIMINGS} for r in execution.results]
        rows.append((trial.condition, trial.trial_index, trial.passed, trial.error_class, trial.tests_passed,
                     trial.tests_total, trial.suite_digest, trial.grading_protocol, execution.verdict,
                     execution.tests_passed, execution.tests_total, tests))
    return rows


def test_each_distinct_job_runs_once_and_every_trial_gets_the_verdict_running_it_gives(store: Store, pool) -> None:
    counting = CountingPool(pool)
    report = rescore_run(store, _run(store), pool=counting)
    programs = {code for _problem, code, _passed in TRIALS}
    ran = [code for code in counting.codes if code in programs]  # calibration runs references, none here
    assert len(ran) == 4 and set(ran) == programs  # 14 trials, 4 distinct (program, suite, policy) jobs
    assert (report.rescored, report.distinct_jobs, report.jobs_run, report.reused) == (14, 4, 4, 10)
    assert report.agree == 14 and report.flips == []
    assert report.to_dict()["distinct_jobs"] == 4

    each = rescore_run(store, _run(store, distinct=True), pool=CountingPool(pool))
    assert (each.distinct_jobs, each.jobs_run) == (14, 14)
    assert _stored(store, report.run_id) == _stored(store, each.run_id)  # the same rows as running each one
    assert len(store.trials_for_run(report.run_id)) == 14  # every trial keeps its own Trial and Execution


def test_a_shared_memo_is_counted_apart_from_the_jobs_run_here(store: Store, pool) -> None:
    memo: dict[str, Any] = {}
    run_id = _run(store)
    first = rescore_run(store, run_id, pool=pool, memo=memo)
    again = rescore_run(store, run_id, pool=CountingPool(pool), memo=memo)
    assert (first.distinct_jobs, first.jobs_run) == (4, 4)
    assert (again.distinct_jobs, again.jobs_run, again.reused) == (4, 0, 14)
    assert _stored(store, first.run_id) == _stored(store, again.run_id)


def test_the_cli_summary_says_how_many_jobs_were_distinct(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    with Store.open(str(db)) as opened:
        run_id = _run(opened)
    env = os.environ | {"EXECUGRAPH_DB": str(db)}
    done = subprocess.run([sys.executable, "-m", "execugraph", "rescore", "--run", str(run_id), "--workers", "1"],
                          cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "  14 programs, 4 distinct jobs run\n" in done.stdout
