"""Grade records that arrive without verdicts (a samples file alone, bigcode generations), on import.

Why on import rather than leaving them ungraded: the store's statistics count a trial
as graded or not (`passed` None is "unfinished" and rescoring skips unfinished
trials), so an ungraded import would be an empty run. The grading is the one rule
(`execugraph.grading.rules`: the trial's protocol, the benchmark's grading tests, calibrated
CPU limits), so a rescore of the run under the same protocol agrees with it.
HumanEval ships here; any other benchmark (MBPP) is graded on the problems of the
`--dataset` file the caller passes. Grading thousands of samples takes minutes, so
`on_progress(done, total)` hears every finished sample (callers throttle what they show).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from execugraph.domain.json_types import JsonObject
from execugraph.domain.problem import Problem
from execugraph.grading.outcome import ResultsMemo, SuiteOutcome
from execugraph.grading.rules import GradingSettings, SandboxJob, grading_tests, job_key, sandbox_job
from execugraph.publication.formats import IssueCollector

GRADED_ON_IMPORT = "graded on import"
ProgressFn = Callable[[int, int], None]
NO_MBPP = ("MBPP does not ship with ExecuGraph: pass its problem file (task_id, text, code, test_list, "
           "test_setup_code) with --dataset mbpp.jsonl")


def gradable_problems(dataset: Iterable[Problem] | None = None) -> dict[str, Problem]:
    """The problems samples without verdicts can be graded on: HumanEval, and the dataset file's (which win)."""
    from execugraph.benchmarks import load_humaneval

    problems = {p.id: p for p in load_humaneval()}
    problems.update({p.id: p for p in dataset or ()})
    return problems


def check_gradable(file: str, records: list[tuple[int, JsonObject]], issues: IssueCollector,
                   problems: dict[str, Problem] | None = None, dataset_name: str | None = None) -> None:
    """Refuse records this machine cannot grade (no problem we hold), naming the first such line and the fix."""
    problems = gradable_problems() if problems is None else problems
    for line, rec in records:
        if rec["problem_id"] in problems:
            continue
        task = rec["task_id"]
        if rec["problem_id"].startswith("mbpp_") and dataset_name is None:
            message = f"{task!r} carries no verdict and is an MBPP task; {NO_MBPP}"
        elif dataset_name is not None:
            message = f"{task!r} carries no verdict and is neither a HumanEval task nor a task of {dataset_name}"
        else:
            message = (f"{task!r} carries no verdict and is not a HumanEval task, the benchmark ExecuGraph can "
                       "grade it on (pass another benchmark's problem file with --dataset)")
        issues.add(file, line, "task_id", message)
        return


def _run_reporting(pool: Any, jobs: list[SandboxJob], on_progress: ProgressFn | None) -> list[Any]:
    """Every job on the pool, results in job order, `on_progress` after each one finishes (no batch barrier:
    a slow sample holds one worker, not a batch). Unstarted jobs are dropped when a callback raises."""
    total = len(jobs)
    if on_progress is not None:
        on_progress(0, total)
    results: list[Any] = [None] * total
    executor = ThreadPoolExecutor(max_workers=max(1, min(getattr(pool, "size", 1), total)),
                                  thread_name_prefix="grade")
    try:
        pending: dict[Future, int] = {executor.submit(pool.run_suite, *job): i for i, job in enumerate(jobs)}
        done_count = 0
        while pending:
            finished, _rest = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                results[pending.pop(future)] = future.result()
            done_count += len(finished)
            if on_progress is not None:
                on_progress(done_count, total)
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
    return results


def grade_records(records: list[JsonObject], pool: Any = None, workers: int | None = None,
                  problems: dict[str, Problem] | None = None, on_progress: ProgressFn | None = None,
                  memo: ResultsMemo | None = None) -> None:
    """Fill `passed`, `error_class`, `tests_passed`/`tests_total` of each record by running it in the sandbox.

    `pool` may be a started pool or a callable starting one; `memo` (job key -> result, shared with the
    rescores that follow, as `reproduce` does) runs each distinct job once and keeps its result for them."""
    from execugraph.grading.calibration import calibrate_many
    from sandbox import SandboxPool

    if not records:
        return
    problems = gradable_problems() if problems is None else problems
    plans = []
    for rec in records:
        problem = problems[rec["problem_id"]]
        settings = GradingSettings().with_protocol(rec["grading_protocol"])  # the defaults of a RunConfig
        tests, _source = grading_tests(problem, settings)
        plans.append((problem, tests, settings))
    own = pool is None
    pool = SandboxPool(workers) if own else (pool() if callable(pool) else pool)
    memo = {} if memo is None else memo
    try:
        limits = calibrate_many(pool, plans)
        jobs = [sandbox_job(problem, rec["code"], tests, settings, cpu_limits=limit)
                for rec, (problem, tests, settings), limit in zip(records, plans, limits, strict=True)]
        keys = [job_key(job) for job in jobs]
        todo = {key: job for key, job in zip(keys, jobs, strict=True) if key not in memo}
        def heard(done: int, total: int) -> None:  # in samples: a job run for several samples counts for each
            if on_progress is not None:
                on_progress(round(done * len(jobs) / total) if total else len(jobs), len(jobs))

        if not todo:
            heard(0, 0)
        for key, result in zip(todo, _run_reporting(pool, list(todo.values()), heard), strict=True):
            memo[key] = SuiteOutcome.of(result)
        results = [memo[key] for key in keys]
    finally:
        if own:
            pool.close()
    for rec, result in zip(records, results, strict=True):
        rec["passed"] = result.passed
        rec["error_class"] = result.error_class
        rec["tests_passed"] = int(result.tests_passed)
        rec["tests_total"] = int(result.tests_total)
        if result.stderr:
            rec["stderr"] = str(result.stderr)[:4000]
