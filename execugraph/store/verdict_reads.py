"""Reads of trial verdicts and how they were reached: verdicts by trial key, grading protocols, grading runs.

Rescoring and protocol comparisons line trials of two runs up by their key
(problem, condition, seed, trial index) and compare verdicts; the reproduce
report recomputes statistics from plain trial records. These fetch exactly
those columns, one query each.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypedDict, cast

from sqlalchemy import and_, func, select

from execugraph.domain.json_types import JsonObject
from execugraph.store.models import Execution, ProblemRecord, Step, Trial
from execugraph.store.validation import table_of

if TYPE_CHECKING:
    from execugraph.store.store import Store

TRIAL, STEP, EXECUTION, PROBLEM = table_of(Trial), table_of(Step), table_of(Execution), table_of(ProblemRecord)
T, S, E, P = TRIAL.c, STEP.c, EXECUTION.c, PROBLEM.c
Key = tuple[str, str, int, int]  # (problem id, condition, seed, trial index)
RECORD_COLUMNS = (
    "problem_id", "category", "condition", "seed", "trial_index", "passed", "error_class", "retries_used",
    "wallclock_s", "tokens_in", "tokens_out", "llm_calls", "test_source", "feedback_source", "status", "benchmark",
)


class TrialRecord(TypedDict):
    """A trial as the statistics recompute from it: the RECORD_COLUMNS, by name, in that order."""

    problem_id: str
    category: str
    condition: str
    seed: int
    trial_index: int
    passed: bool | None  # None: not graded
    error_class: str | None
    retries_used: int
    wallclock_s: float
    tokens_in: int
    tokens_out: int
    llm_calls: int
    test_source: str | None  # problem | generated | smoke
    feedback_source: str | None
    status: str
    benchmark: str


class GradingResult(TypedDict):
    """A graded trial with the per-test results of its last grading execution (`stats --near-limit`)."""

    trial: int  # the trial's id
    problem_id: str
    benchmark: str
    condition: str
    seed: int
    trial_index: int
    passed: bool
    error_class: str | None
    policy_version: str  # the sandbox policy that ran it ('' when not recorded)
    results: list[JsonObject]  # per-test results as the Execution's JSON column holds them


def trial_verdicts(
    store: Store, run_id: int, statuses: Sequence[str] | None = None
) -> list[tuple[str, str, int, int, bool | None, str | None]]:
    """(problem, condition, seed, trial index, passed, error class) of a run's trials (only `statuses`, if given)."""
    stmt = select(T.problem_id, T.condition, T.seed, T.trial_index, T.passed, T.error_class).where(T.run_id == run_id)
    if statuses is not None:
        stmt = stmt.where(T.status.in_(list(statuses)))
    with store.engine.connect() as conn:
        return [tuple(row) for row in conn.execute(stmt)]  # type: ignore[misc]


def grading_protocol_counts(store: Store, run_ids: Sequence[int]) -> list[tuple[int, str, int]]:
    """(run, grading protocol, trials) for the trials of these runs that recorded a protocol."""
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(T.run_id, T.grading_protocol, func.count())
            .where(T.run_id.in_(list(run_ids)), T.grading_protocol.is_not(None))
            .group_by(T.run_id, T.grading_protocol)
        ).all()
    return [(int(r), p, int(n)) for r, p, n in rows]


def has_trial_of_benchmark(store: Store, run_ids: Sequence[int], benchmarks: Sequence[str]) -> bool:
    """Whether any trial of these runs belongs to one of `benchmarks`."""
    with store.engine.connect() as conn:
        found = conn.execute(
            select(T.id).where(T.run_id.in_(list(run_ids)), T.benchmark.in_(list(benchmarks))).limit(1)
        ).first()
    return found is not None


def has_trial_with_preamble(store: Store, run_ids: Sequence[int]) -> bool:
    """Whether any trial of these runs is of a stored problem whose prompt has a preamble."""
    with store.engine.connect() as conn:
        found = conn.execute(
            select(T.id)
            .select_from(TRIAL.join(PROBLEM, (P.benchmark == T.benchmark) & (P.problem_id == T.problem_id)))
            .where(T.run_id.in_(list(run_ids)), P.preamble != "")
            .limit(1)
        ).first()
    return found is not None


def grading_executions(store: Store, run_id: int) -> list[tuple[int, str, str]]:
    """(trial id, sandbox policy version, stderr) of every grading execution of a run's trials, oldest first."""
    stmt = (
        select(E.trial_id, E.policy_version, E.stderr)
        .select_from(EXECUTION.join(TRIAL, E.trial_id == T.id))
        .where(T.run_id == run_id, E.purpose == "grading")
        .order_by(E.id)
    )
    with store.engine.connect() as conn:
        return [(int(row.trial_id), row.policy_version or "", row.stderr or "") for row in conn.execute(stmt)]


def trial_records(store: Store, run_id: int) -> tuple[list[TrialRecord], dict[Key, tuple[int, int | None]]]:
    """A run's trials as dicts of RECORD_COLUMNS in creation order, and key -> (samples drawn, samples passed)
    from the grade steps of its best-of-N trials (one read snapshot)."""
    with store.engine.connect() as conn:
        rows = conn.execute(select(*(T[c] for c in RECORD_COLUMNS)).where(T.run_id == run_id).order_by(T.id))
        records = [cast(TrialRecord, dict(row)) for row in rows.mappings()]
        drawn, won = S.output["samples_total"].as_integer(), S.output["samples_passed"].as_integer()
        samples = {
            (r[0], r[1], r[2], r[3]): (r[4], r[5])
            for r in conn.execute(
                select(T.problem_id, T.condition, T.seed, T.trial_index, drawn, won)
                .select_from(TRIAL.join(STEP, S.trial_id == T.id))
                .where(and_(T.run_id == run_id, S.node == "grade", drawn.is_not(None)))
            )
        }
    return records, samples


def grading_results(store: Store, run_id: int) -> list[GradingResult]:
    """A run's graded trials, each with the per-test results of its last grading execution (for `stats --near-limit`).

    Keys: trial, problem_id, benchmark, condition, seed, trial_index, passed, error_class,
    policy_version, results. A trial whose grade step reused the evaluator's run on the same
    program and tests has no grading execution: its last feedback execution is the one. Trials
    with neither are left out.
    """
    stmt = (
        select(T.id, T.problem_id, T.benchmark, T.condition, T.seed, T.trial_index, T.passed, T.error_class,
               E.policy_version, E.results, E.purpose)
        .select_from(EXECUTION.join(TRIAL, E.trial_id == T.id))
        .where(T.run_id == run_id, E.purpose.in_(["grading", "feedback"]))
        .order_by(E.id)
    )
    last: dict[int, GradingResult] = {}
    graded: set[int] = set()
    with store.engine.connect() as conn:
        for row in conn.execute(stmt):
            if row.purpose != "grading" and int(row.id) in graded:
                continue
            if row.purpose == "grading":
                graded.add(int(row.id))
            last[int(row.id)] = GradingResult(
                trial=int(row.id), problem_id=row.problem_id, benchmark=row.benchmark,
                condition=row.condition, seed=row.seed, trial_index=row.trial_index,
                passed=bool(row.passed), error_class=row.error_class,
                policy_version=row.policy_version or "", results=list(row.results or []),
            )
    return sorted(last.values(), key=lambda r: r["trial"])
