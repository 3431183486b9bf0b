"""Grade records that arrive without verdicts (a samples file alone, bigcode generations), on import.

Why on import rather than leaving them ungraded: the store's statistics count a trial
as graded or not (`passed` None is "unfinished" and rescoring skips unfinished
trials), so an ungraded import would be an empty run. The grading is the one rule
(`execugraph.grading`: the trial's protocol, the benchmark's grading tests, calibrated
CPU limits), so a rescore of the run under the same protocol agrees with it.
"""

from __future__ import annotations

from typing import Any

from execugraph.grading import GradingSettings, error_class, grading_tests, passed, sandbox_job
from execugraph.publication.formats import IssueCollector

GRADED_ON_IMPORT = "graded on import"


def _problems() -> dict[str, Any]:
    from execugraph.benchmarks import load_humaneval

    return {p.id: p for p in load_humaneval()}


def check_gradable(file: str, records: list[tuple[int, dict[str, Any]]], issues: IssueCollector) -> None:
    """Refuse records this machine cannot grade (no benchmark we hold), naming the first such line."""
    for line, rec in records:
        if not rec["problem_id"].startswith("humaneval_"):
            issues.add(file, line, "task_id", f"{rec['task_id']!r} carries no verdict and is not a HumanEval task, "
                       "the benchmark ExecuGraph can grade it on")
            return


def grade_records(records: list[dict[str, Any]], pool: Any = None, workers: int | None = None) -> None:
    """Fill `passed`, `error_class`, `tests_passed`/`tests_total` of each record by running it in the sandbox."""
    from execugraph.calibration import calibrate_many
    from sandbox import SandboxPool

    if not records:
        return
    problems = _problems()
    plans = []
    for rec in records:
        problem = problems[rec["problem_id"]]
        settings = GradingSettings.of({}).with_protocol(rec["grading_protocol"])
        tests, _source = grading_tests(problem, settings)
        plans.append((problem, tests, settings))
    own = pool is None
    pool = SandboxPool(workers) if own else pool
    try:
        limits = calibrate_many(pool, plans)
        jobs = [sandbox_job(problem, rec["code"], tests, settings, cpu_limits=limit)
                for rec, (problem, tests, settings), limit in zip(records, plans, limits, strict=True)]
        results = [r.to_dict() for r in pool.run_many(jobs)]
    finally:
        if own:
            pool.close()
    for rec, result in zip(records, results, strict=True):
        rec["passed"] = passed(result)
        rec["error_class"] = error_class(result)
        rec["tests_passed"] = int(result.get("tests_passed", 0))
        rec["tests_total"] = int(result.get("tests_total", 0))
        if result.get("stderr"):
            rec["stderr"] = str(result["stderr"])[:4000]
