"""Fill the report's per-arm aggregates from the store's report reads (`store.report_reads`).

The store aggregates in SQL (per-problem tallies, breakdown counts, the cost
columns, best-of-N samples; see there for why the dashboard stays fast); this
module names the runs, plans the arms and adds each group's numbers to its arm.
Which trials count is the store's own rule (`FINISHED_STATUSES`, checked by a test),
so these numbers match the run summaries on the Runs page.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from execugraph.domain.json_types import JsonObject
from execugraph.domain.run_names import conditions_of, run_name
from execugraph.stats.arms import ArmSpec, RunInfo, UnknownRunError, generator_model, plan_arms
from execugraph.stats.records import (
    COUNTED_STATUSES,
    ERRORED,
    UNCATEGORISED,
    UNKNOWN,
    ArmData,
    ProblemTally,
    Tally,
)
from execugraph.store import run_reads
from execugraph.store.report_reads import ReportReads, report_reads
from execugraph.store.run_reads import RunHeader

if TYPE_CHECKING:
    from execugraph.store import Store

ArmLookup = Callable[[int, "str | None"], "ArmData | None"]


def _parse_run_ids(run_ids: Sequence[str | int]) -> dict[str, int]:
    """Map the user's run ids (canonical text -> the store's integer keys); a non-integer id cannot exist."""
    parsed: dict[str, int] = {}
    bad = []
    for raw in run_ids:
        try:
            key = int(str(raw).strip())
        except ValueError:
            bad.append(str(raw))
            continue
        if str(key) in parsed:
            raise ValueError(f"each run may be given once, got {str(key)!r} twice")
        parsed[str(key)] = key
    if bad:
        raise UnknownRunError(f"unknown run id(s): {', '.join(bad)} (run ids are integers)")
    return parsed


def plan_report_arms(
    store: Store, run_ids: Sequence[str | int], conditions: Sequence[str] | None = None
) -> list[ArmSpec]:
    """The arms `build_report` would compare, with their names, from two small queries and no statistics.

    Pages use it to offer a baseline before the (costlier) report is built.
    """
    ids = _parse_run_ids(run_ids)
    labels = {v: k for k, v in ids.items()}
    keys = list(ids.values())
    run_rows = run_reads.run_headers(store, keys)
    missing = [labels[k] for k in keys if k not in {row.id for row in run_rows}]
    if missing:
        raise UnknownRunError(f"unknown run id(s): {', '.join(missing)}")
    configs = {labels[row.id]: dict(row.config or {}) for row in run_rows}
    names = {labels[row.id]: _run_info(labels[row.id], row, configs[labels[row.id]]).name for row in run_rows}
    first = run_reads.conditions_by_run(store, keys)
    conditions_by_run = {labels[k]: [c for r, c in first if r == k] for k in keys}
    return plan_arms(list(ids), conditions, conditions_by_run, configs, names)


def load_report_inputs(
    store: Store, run_ids: Sequence[str | int], conditions: Sequence[str] | None = None
) -> tuple[list[RunInfo], list[ArmData]]:
    """Runs and arms for `build_report`, aggregated in SQL. Raises UnknownRunError / UnknownConditionError."""
    ids = _parse_run_ids(run_ids)
    labels = {v: k for k, v in ids.items()}
    keys = list(ids.values())
    wanted = set(conditions) if conditions else None
    with report_reads(store) as reads:
        run_rows = reads.run_headers(keys)
        missing = [labels[k] for k in keys if k not in {row.id for row in run_rows}]
        if missing:
            raise UnknownRunError(f"unknown run id(s): {', '.join(missing)}")
        configs = {labels[row.id]: dict(row.config or {}) for row in run_rows}
        runs = {row.id: _run_info(labels[row.id], row, configs[labels[row.id]]) for row in run_rows}

        problem_rows = reads.problem_tallies(keys)
        first_seen: dict[tuple[int, str], int] = {}
        for run_id, condition, _pid, _status, min_id, *_ in problem_rows:
            if condition is not None:
                first_seen[(run_id, condition)] = min(first_seen.get((run_id, condition), min_id), min_id)
        ordered = sorted(first_seen, key=first_seen.__getitem__)
        conditions_by_run = {labels[k]: [c for r, c in ordered if r == k] for k in keys}

        names = {run.id: run.name for run in runs.values()}
        specs = plan_arms(list(ids), conditions, conditions_by_run, configs, names)
        arms = {(ids[s.run_id], s.condition): _empty_arm(s, runs[ids[s.run_id]].model) for s in specs}

        def arm_of(run_id: int, condition: str | None) -> ArmData | None:
            return arms.get((run_id, condition)) or arms.get((run_id, None))

        by_condition: dict[tuple[int, str], list[int]] = {}  # (run, condition) -> [trials, passed], added at the end
        for run_id, condition, problem_id, status, _min_id, category, n, p, benchmark in problem_rows:
            if wanted is not None and condition not in wanted:
                continue
            arm = arm_of(run_id, condition)
            if status not in COUNTED_STATUSES:
                _add(runs[run_id].not_counted, status, int(n))
                if arm is not None:
                    _add(arm.not_counted, status, int(n))
                continue
            counts = by_condition.setdefault((run_id, condition or UNKNOWN), [0, 0])
            counts[0] += int(n)
            counts[1] += int(p or 0)
            if arm is not None:
                arm.benchmarks.add(benchmark or "")
                tally = arm.tallies.get(problem_id)
                if tally is None:
                    tally = arm.tallies[problem_id] = ProblemTally(problem_id, category or UNCATEGORISED)
                tally.trials += int(n)
                tally.passed += int(p or 0)
                if status == "error":
                    arm.errored += int(n)
        for (run_id, condition), (n, p) in by_condition.items():  # first-seen order, as one bump per row gave
            _bump(runs[run_id].conditions, condition, n, p)

        _load_breakdowns(reads.breakdowns(keys, conditions), arm_of)
        groups = sorted({(r, c) for r, c, _p, s, *_ in problem_rows if s in COUNTED_STATUSES}, key=str)
        groups = [(r, c) for r, c in groups if wanted is None or c in wanted]
        _load_costs(reads, groups, arm_of)
        best_of_n = [(r, c) for r, c in groups if (a := arm_of(r, c)) and a.best_of_n > 1]
        _load_samples(reads.samples(keys, conditions, best_of_n), arm_of)
    return [runs[k] for k in keys], [arms[(ids[s.run_id], s.condition)] for s in specs]


def _run_info(label: str, row: RunHeader, config: JsonObject) -> RunInfo:
    """A run's identity, named as everywhere else (`run_names.run_name`)."""
    name = run_name(label, row.title, benchmark=row.benchmark, conditions=conditions_of(config), created=row.created_at)
    return RunInfo(label, row.title, row.kind, config, {}, {}, name=name, model=generator_model(row.models))


def _empty_arm(spec: ArmSpec, model: str | None) -> ArmData:
    return ArmData(
        label=spec.label,
        run_id=spec.run_id,
        condition=spec.condition,
        retry_budget=spec.retry_budget,
        best_of_n=spec.best_of_n,
        name=spec.name or spec.label,
        model=model,
    )


def _add(table: dict, key: Any, n: int) -> None:
    table[key] = table.get(key, 0) + n


def _bump(table: dict, key: Any, n: int, passed: int | None) -> None:
    tally = table.setdefault(key, Tally())
    tally.trials += int(n)
    tally.passed += int(passed or 0)


def _load_breakdowns(rows: list[tuple], arm_of: ArmLookup) -> None:
    """Error classes of failures, and trials/passes per test source, feedback source and retries used."""
    for run_id, condition, status, ok, error_class, test_source, feedback_source, retries, n in rows:
        if (arm := arm_of(run_id, condition)) is None:
            continue
        n = int(n)
        if not ok:
            _add(arm.errors, error_class or (ERRORED if status == "error" else UNKNOWN), n)
        _bump(arm.test_sources, test_source or UNKNOWN, n, n if ok else 0)
        _bump(arm.feedback_sources, feedback_source or UNKNOWN, n, n if ok else 0)
        _bump(arm.retries_used, retries or 0, n, n if ok else 0)


def _load_costs(reads: ReportReads, groups: list[tuple[int, str | None]], arm_of: ArmLookup) -> None:
    """The four cost columns and each trial's problem, one indexed query per (run, condition) group."""
    for run_id, condition in groups:
        if (arm := arm_of(run_id, condition)) is None:
            continue
        rows = reads.costs(run_id, condition)
        if not rows:
            continue
        wall, t_in, t_out, calls, problems = zip(*rows, strict=True)
        arm.costs.problem_ids.extend(str(p) for p in problems)
        arm.costs.wallclock_s.extend(wall)
        arm.costs.tokens_in.extend(t_in)
        arm.costs.tokens_out.extend(t_out)
        arm.costs.llm_calls.extend(calls)


def _load_samples(rows: list[tuple], arm_of: ArmLookup) -> None:
    """(drawn, passed) sample counts of best-of-N trials, from their grade step's output JSON."""
    for run_id, condition, problem_id, n, c, count in rows:
        if (arm := arm_of(run_id, condition)) is not None and n:
            n, c, count = int(n), int(c or 0), int(count)
            _add(arm.samples, (n, c), count)
            total, won = arm.problem_samples.get(problem_id, (0, 0))
            arm.problem_samples[problem_id] = (total + n * count, won + c * count)
