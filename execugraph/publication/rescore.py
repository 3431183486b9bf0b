"""Re-grade every stored final program of a run in the current sandbox, with no LLM, into a child run.

Why: a sandbox or test fix must not require regenerating a grid. The published
work re-scored 1,335 trials after an import-policy bug mis-scored 135 of them,
unevenly across conditions; this does the same for any stored run (ours or an
imported one) and says exactly what changed.

How: each trial's problem is resolved by id (see `problems`), its grading
tests chosen the way the evaluator chose them (held-out tests under
`feedback_tests=visible`, else all), and every program is run through the
sandbox pool's `run_many`, which spreads the jobs over the warm workers. The
results are written in one transaction as a Run of kind `rescore` whose
`parent_run_id` is the rescored run: one Trial per rescored trial (same key;
retries, tokens, LLM calls and wall-clock copied, since they describe how the
program was produced) plus its grading Execution with per-test results. The
report (also stored under the child's config `rescore`) gives the trials
rescored, the problems left unresolved (never counted as failures), the
agreement with the stored verdicts and every flip.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from execugraph.publication.bulk import insert_rows, transaction
from execugraph.publication.problems import ProblemResolver
from execugraph.store.models import Execution, Run, Trial, utcnow
from execugraph.store.provenance import hostname, runtime_versions

CHUNK = 256  # jobs handed to the pool at once (progress granularity)
UNFINISHED = ("queued", "running", "cancelled")
CARRIED_CONFIG = ("batch", "conditions", "retry_budget", "retry_budget_by_condition", "problem_id")
ProgressFn = Callable[[int, int], None]


def verdict_word(passed: bool | None, error_class: str | None) -> str:
    """`passed`, else the error class, else `failed`: how flips name both sides."""
    return "passed" if passed else (error_class or "failed")


@dataclass
class RescoreReport:
    """What a rescore found; `to_dict()` is the `--json` output and is stored in the child run's config."""

    run_id: int | None
    parent_run_id: int
    policy_version: str
    trials: int = 0
    rescored: int = 0
    agree: int = 0
    passed_before: int = 0
    passed_after: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    unresolved: list[dict[str, Any]] = field(default_factory=list)
    flips: list[dict[str, Any]] = field(default_factory=list)
    by_condition: dict[str, dict[str, int]] = field(default_factory=dict)
    origins: dict[str, int] = field(default_factory=dict)
    duration_s: float = 0.0  # running the jobs on a started pool

    @property
    def unresolved_trials(self) -> int:
        """Trials left out because their problem has no tests here."""
        return sum(u["trials"] for u in self.unresolved)

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {
            "run_id": self.run_id,
            "parent_run_id": self.parent_run_id,
            "policy_version": self.policy_version,
            "trials": self.trials,
            "rescored": self.rescored,
            "unresolved": self.unresolved_trials,
            "skipped": dict(sorted(self.skipped.items())),
            "agreement": {
                "same": self.agree,
                "rescored": self.rescored,
                "rate": self.agree / self.rescored if self.rescored else None,
            },
            "passed_before": self.passed_before,
            "passed_after": self.passed_after,
            "flips": self.flips,
            "unresolved_problems": self.unresolved,
            "by_condition": dict(sorted(self.by_condition.items())),
            "tests_from": dict(sorted(self.origins.items())),
            "duration_s": round(self.duration_s, 3),
            "trials_per_s": round(self.rescored / self.duration_s, 2) if self.duration_s else None,
        }


def _condition_config(run_config: dict[str, Any], condition: str) -> dict[str, Any]:
    conditions = run_config.get("conditions")
    if isinstance(conditions, dict) and isinstance(conditions.get(condition), dict):
        return conditions[condition]
    return {}


def _grading_tests(problem: Any, cfg: dict[str, Any]) -> list[dict[str, Any]]:
    """The evaluator's choice of grading tests for this condition's config."""
    tests = list(problem.tests)
    if cfg.get("feedback_tests") == "visible" and int(cfg.get("best_of_n", 1) or 1) == 1:
        from execugraph.agents.evaluator import visible_subset

        visible = visible_subset(tests)
        return [t for t in tests if t not in visible] or tests
    return tests


def _limits(cfg: dict[str, Any]) -> Any:
    from sandbox import Limits

    kwargs = {}
    if isinstance(cfg.get("test_timeout_s"), (int, float)):
        kwargs["timeout_s"] = float(cfg["test_timeout_s"])
    if isinstance(cfg.get("memory_mb"), int):
        kwargs["memory_mb"] = int(cfg["memory_mb"])
    return Limits(**kwargs)


@dataclass
class _Job:
    trial: Any
    suite: dict[str, Any]
    limits: Any
    result: dict[str, Any] | None = None


def _plan(store: Any, run: Any, trials: list[Any], report: RescoreReport) -> list[_Job]:
    """Sort the trials into jobs, skipped and unresolved (with reasons)."""
    from sandbox import SuiteError, parse_suite

    resolver = ProblemResolver(store)
    suites: dict[tuple[str, str, str], tuple[dict[str, Any], Any, str] | str] = {}
    unresolved: dict[tuple[str, str], dict[str, Any]] = {}
    jobs: list[_Job] = []
    for trial in trials:
        if trial.status in UNFINISHED:
            report.skipped["unfinished"] = report.skipped.get("unfinished", 0) + 1
            continue
        if not (trial.final_code or "").strip():
            report.skipped["no_code"] = report.skipped.get("no_code", 0) + 1
            continue
        key = (trial.benchmark, trial.problem_id, trial.condition)
        if key not in suites:
            resolution = resolver.resolve(trial.benchmark, trial.problem_id)
            if resolution.problem is None:
                suites[key] = resolution.reason
            else:
                cfg = _condition_config(run.config or {}, trial.condition)
                suite = resolution.problem.suite(_grading_tests(resolution.problem, cfg))
                try:
                    parse_suite(suite)
                    suites[key] = (suite, _limits(cfg), resolution.origin)
                except SuiteError as exc:
                    suites[key] = f"its tests are malformed ({exc})"
        planned = suites[key]
        if isinstance(planned, str):
            entry = unresolved.setdefault(
                (trial.benchmark, trial.problem_id),
                {"benchmark": trial.benchmark, "problem_id": trial.problem_id, "reason": planned, "trials": 0},
            )
            entry["trials"] += 1
            continue
        suite, limits, origin = planned
        report.origins[origin] = report.origins.get(origin, 0) + 1
        jobs.append(_Job(trial, suite, limits))
    report.unresolved = sorted(unresolved.values(), key=lambda u: (u["benchmark"], u["problem_id"]))
    return jobs


def _run_jobs(pool: Any, jobs: list[_Job], on_progress: ProgressFn | None, chunk: int) -> None:
    for start in range(0, len(jobs), chunk):
        batch = jobs[start : start + chunk]
        results = pool.run_many([(j.trial.final_code, j.suite, j.limits) for j in batch])
        for job, result in zip(batch, results, strict=True):
            job.result = result.to_dict()
        if on_progress is not None:
            on_progress(min(start + chunk, len(jobs)), len(jobs))


def _tally(report: RescoreReport, jobs: list[_Job]) -> list[tuple[_Job, bool, str | None]]:
    from execugraph.agents.execution import error_class, passed

    outcomes = []
    for job in jobs:
        t, result = job.trial, job.result or {}
        now_passed = passed(result)
        now_class = error_class(result)
        was_passed = bool(t.passed)
        report.rescored += 1
        report.passed_before += was_passed
        report.passed_after += now_passed
        stats = report.by_condition.setdefault(
            t.condition, {"rescored": 0, "passed_before": 0, "passed_after": 0, "flips": 0}
        )
        stats["rescored"] += 1
        stats["passed_before"] += was_passed
        stats["passed_after"] += now_passed
        if was_passed == now_passed:
            report.agree += 1
        else:
            stats["flips"] += 1
            report.flips.append(
                {
                    "problem_id": t.problem_id,
                    "benchmark": t.benchmark,
                    "condition": t.condition,
                    "seed": t.seed,
                    "trial_index": t.trial_index,
                    "trial": t.id,
                    "from": verdict_word(was_passed, t.error_class),
                    "to": verdict_word(now_passed, now_class),
                    "error_class": now_class if was_passed else t.error_class,
                }
            )
        outcomes.append((job, now_passed, now_class))
    return outcomes


def rescore_run(
    store: Any,
    run_id: int,
    *,
    pool: Any = None,
    workers: int | None = None,
    on_progress: ProgressFn | None = None,
    chunk: int = CHUNK,
) -> RescoreReport:
    """Rescore run `run_id` into a new child run; returns the report (its `run_id` is the child).

    `pool` is a running SandboxPool to use (the dashboard shares one); without
    it a pool of `workers` workers (default: one per core) is started and
    closed here. Raises LookupError for an unknown run.
    """
    from sandbox import POLICY_VERSION, SandboxPool

    run = store.get_run(run_id)
    if run is None:
        raise LookupError(f"run {run_id} does not exist")
    trials = store.trials_for_run(run_id)
    report = RescoreReport(run_id=None, parent_run_id=run_id, policy_version=str(POLICY_VERSION), trials=len(trials))
    jobs = _plan(store, run, trials, report)
    started_at = utcnow()
    own_pool = pool is None and bool(jobs)
    if own_pool:
        pool = SandboxPool(workers)
    try:
        started = time.perf_counter()  # the rate excludes starting a pool, which a warm caller does not pay
        if jobs:
            _run_jobs(pool, jobs, on_progress, chunk)
        report.duration_s = time.perf_counter() - started
    finally:
        if own_pool:
            pool.close()
    outcomes = _tally(report, jobs)
    report.run_id = _store_child(store, run, report, outcomes, started_at)
    return report


def _store_child(store: Any, run: Any, report: RescoreReport, outcomes: list, started_at: Any) -> int:
    finished_at = utcnow()
    config = {k: v for k, v in (run.config or {}).items() if k in CARRIED_CONFIG}
    summary = report.to_dict()
    summary.pop("run_id")
    config["rescore"] = summary
    run_row = {
        "kind": "rescore",
        "title": f"rescore of run {run.id}: {run.title}" if run.title else f"rescore of run {run.id}",
        "status": "done",
        "config": config,
        "benchmark": run.benchmark,
        "host": hostname(),
        "versions": runtime_versions() | {"sandbox_policy": report.policy_version},
        "models": dict(run.models or {}),
        "tags": [],
        "created_at": started_at,
        "started_at": started_at,
        "finished_at": finished_at,
        "parent_run_id": run.id,
        "progress_total": report.rescored,
        "progress_done": report.rescored,
        "progress_passed": report.passed_after,
    }
    with transaction(store) as conn:
        (child_id,) = insert_rows(conn, Run.__table__, [run_row])  # type: ignore[attr-defined]
        trial_rows = []
        for job, now_passed, now_class in outcomes:
            t, result = job.trial, job.result or {}
            trial_rows.append(
                {
                    "run_id": child_id,
                    "problem_id": t.problem_id,
                    "benchmark": t.benchmark,
                    "category": t.category,
                    "condition": t.condition,
                    "seed": t.seed,
                    "trial_index": t.trial_index,
                    "status": "done",
                    "passed": now_passed,
                    "tests_passed": int(result.get("tests_passed", 0)),
                    "tests_total": int(result.get("tests_total", 0)),
                    "retries_used": t.retries_used,
                    "error_class": now_class,
                    "test_source": "problem",
                    "feedback_source": t.feedback_source,
                    "final_code": t.final_code,
                    "explanation": t.explanation,
                    "message": f"rescored trial {t.id} of run {run.id}: "
                    f"{verdict_word(t.passed, t.error_class)} -> {verdict_word(now_passed, now_class)}",
                    "wallclock_s": t.wallclock_s,
                    "tokens_in": t.tokens_in,
                    "tokens_out": t.tokens_out,
                    "llm_calls": t.llm_calls,
                    "started_at": started_at,
                    "finished_at": finished_at,
                }
            )
        trial_ids = insert_rows(conn, Trial.__table__, trial_rows)  # type: ignore[attr-defined]
        executions = [
            {
                "trial_id": trial_id,
                "step_id": None,
                "purpose": "grading",
                "code": job.trial.final_code,
                "verdict": (job.result or {}).get("verdict") or "harness_error",
                "tests_passed": int((job.result or {}).get("tests_passed", 0)),
                "tests_total": int((job.result or {}).get("tests_total", 0)),
                "results": list((job.result or {}).get("tests", [])),
                "stdout": (job.result or {}).get("stdout", "") or "",
                "stderr": (job.result or {}).get("stderr", "") or "",
                "policy_version": report.policy_version,
                "isolation": dict((job.result or {}).get("isolation", {}) or {}),
                "duration_s": float((job.result or {}).get("duration_s", 0.0) or 0.0),
                "created_at": finished_at,
            }
            for trial_id, (job, _p, _c) in zip(trial_ids, outcomes, strict=True)
        ]
        insert_rows(conn, Execution.__table__, executions)  # type: ignore[attr-defined]
    return child_id
