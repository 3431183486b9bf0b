"""Fill the report's per-arm aggregates straight from the store with three small queries.

The dashboard must render statistics for 50,000 trials in well under two seconds,
so nothing here loads ORM rows:
1. one GROUP BY (run, condition, problem, status) gives per-problem tallies, the
   conditions' first-appearance order and the trials left out, per status;
2. one GROUP BY over the breakdown columns (error class, test and feedback source,
   retries used, passed) gives every taxonomy (a few hundred rows at most);
3. the four numeric cost columns are fetched per (run, condition), because medians
   need the values and SQLite has no median aggregate.
Which trials count is the store's own rule (`FINISHED_STATUSES`, checked by a test),
so these numbers match the run summaries on the Runs page.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, and_, case, func, or_, select

from execugraph.run_names import conditions_of, run_name
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
from execugraph.store.models import Run, Step, Trial

if TYPE_CHECKING:
    from execugraph.store import Store

RUN = Run.__table__
T = Trial.__table__.c
S = Step.__table__.c
PASSED = case((T.passed.is_(True), 1), else_=0)
ArmLookup = Callable[[int, "str | None"], "ArmData | None"]


def _engine(store: Store | Engine) -> Engine:
    """Accept a Store (anything with `.engine`) or a bare SQLAlchemy Engine."""
    engine = getattr(store, "engine", store)
    if not isinstance(engine, Engine):
        raise TypeError(f"expected a Store or an SQLAlchemy Engine, got {type(store).__name__}")
    return engine


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
    with _engine(store).connect() as conn:
        columns = (RUN.c.id, RUN.c.title, RUN.c.kind, RUN.c.config, RUN.c.benchmark, RUN.c.created_at, RUN.c.models)
        run_rows = conn.execute(select(*columns).where(RUN.c.id.in_(keys))).all()
        missing = [labels[k] for k in keys if k not in {row.id for row in run_rows}]
        if missing:
            raise UnknownRunError(f"unknown run id(s): {', '.join(missing)}")
        configs = {labels[row.id]: dict(row.config or {}) for row in run_rows}
        names = {labels[row.id]: _run_info(labels[row.id], row, configs[labels[row.id]]).name for row in run_rows}
        first = conn.execute(
            select(T.run_id, T.condition, func.min(T.id).label("first"))
            .where(T.run_id.in_(keys), T.condition.is_not(None))
            .group_by(T.run_id, T.condition)
            .order_by("first")
        ).all()
    conditions_by_run = {labels[k]: [c for r, c, _ in first if r == k] for k in keys}
    return plan_arms(list(ids), conditions, conditions_by_run, configs, names)


def load_report_inputs(
    store: Store, run_ids: Sequence[str | int], conditions: Sequence[str] | None = None
) -> tuple[list[RunInfo], list[ArmData]]:
    """Runs and arms for `build_report`, aggregated in SQL. Raises UnknownRunError / UnknownConditionError."""
    engine = _engine(store)
    ids = _parse_run_ids(run_ids)
    labels = {v: k for k, v in ids.items()}
    keys = list(ids.values())
    wanted = set(conditions) if conditions else None
    with engine.connect() as conn:
        columns = (RUN.c.id, RUN.c.title, RUN.c.kind, RUN.c.config, RUN.c.benchmark, RUN.c.created_at, RUN.c.models)
        run_rows = conn.execute(select(*columns).where(RUN.c.id.in_(keys))).all()
        missing = [labels[k] for k in keys if k not in {row.id for row in run_rows}]
        if missing:
            raise UnknownRunError(f"unknown run id(s): {', '.join(missing)}")
        configs = {labels[row.id]: dict(row.config or {}) for row in run_rows}
        runs = {row.id: _run_info(labels[row.id], row, configs[labels[row.id]]) for row in run_rows}

        problem_rows = conn.execute(
            select(
                T.run_id,
                T.condition,
                T.problem_id,
                T.status,
                func.min(T.id),
                func.min(T.category),
                func.count(),
                func.sum(PASSED),
                T.benchmark,
            )
            .where(T.run_id.in_(keys))
            .group_by(T.run_id, T.condition, T.problem_id, T.status, T.benchmark)
        ).all()
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

        for run_id, condition, problem_id, status, _min_id, category, n, p, benchmark in problem_rows:
            if wanted is not None and condition not in wanted:
                continue
            arm = arm_of(run_id, condition)
            if status not in COUNTED_STATUSES:
                _add(runs[run_id].not_counted, status, int(n))
                if arm is not None:
                    _add(arm.not_counted, status, int(n))
                continue
            _bump(runs[run_id].conditions, condition or UNKNOWN, n, p)
            if arm is not None:
                arm.benchmarks.add(benchmark or "")
                tally = arm.tallies.get(problem_id)
                if tally is None:
                    tally = arm.tallies[problem_id] = ProblemTally(problem_id, category or UNCATEGORISED)
                tally.trials += int(n)
                tally.passed += int(p or 0)
                if status == "error":
                    arm.errored += int(n)

        scope = and_(T.run_id.in_(keys), T.status.in_(COUNTED_STATUSES))
        if conditions:
            scope = and_(scope, T.condition.in_(list(conditions)))
        _load_breakdowns(conn, scope, arm_of)
        groups = sorted({(r, c) for r, c, _p, s, *_ in problem_rows if s in COUNTED_STATUSES}, key=str)
        groups = [(r, c) for r, c in groups if wanted is None or c in wanted]
        _load_costs(conn, groups, arm_of)
        _load_samples(conn, scope, [(r, c) for r, c in groups if (a := arm_of(r, c)) and a.best_of_n > 1], arm_of)
    return [runs[k] for k in keys], [arms[(ids[s.run_id], s.condition)] for s in specs]


def _run_info(label: str, row: Any, config: dict[str, Any]) -> RunInfo:
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


def _load_breakdowns(conn: Connection, scope: Any, arm_of: ArmLookup) -> None:
    """Error classes of failures, and trials/passes per test source, feedback source and retries used."""
    passed = PASSED.label("ok")
    columns = (T.run_id, T.condition, T.status, passed, T.error_class, T.test_source, T.feedback_source, T.retries_used)
    rows = conn.execute(select(*columns, func.count()).where(scope).group_by(*columns)).all()
    for run_id, condition, status, ok, error_class, test_source, feedback_source, retries, n in rows:
        if (arm := arm_of(run_id, condition)) is None:
            continue
        n = int(n)
        if not ok:
            _add(arm.errors, error_class or (ERRORED if status == "error" else UNKNOWN), n)
        _bump(arm.test_sources, test_source or UNKNOWN, n, n if ok else 0)
        _bump(arm.feedback_sources, feedback_source or UNKNOWN, n, n if ok else 0)
        _bump(arm.retries_used, retries or 0, n, n if ok else 0)


def _load_costs(conn: Connection, groups: list[tuple[int, str | None]], arm_of: ArmLookup) -> None:
    """Only the four cost columns, one indexed query per (run, condition) group."""
    for run_id, condition in groups:
        if (arm := arm_of(run_id, condition)) is None:
            continue
        where = and_(T.run_id == run_id, T.status.in_(COUNTED_STATUSES))
        where = and_(where, T.condition.is_(None) if condition is None else T.condition == condition)
        rows = _plain_rows(conn, select(T.wallclock_s, T.tokens_in, T.tokens_out, T.llm_calls).where(where))
        if not rows:
            continue
        wall, t_in, t_out, calls = zip(*rows, strict=True)
        arm.costs.wallclock_s.extend(wall)
        arm.costs.tokens_in.extend(t_in)
        arm.costs.tokens_out.extend(t_out)
        arm.costs.llm_calls.extend(calls)


def _load_samples(conn: Connection, scope: Any, groups: list[tuple[int, str | None]], arm_of: ArmLookup) -> None:
    """(drawn, passed) sample counts of best-of-N trials, from their grade step's output JSON.

    Only the (run, condition) groups of best-of-N arms are joined with the steps,
    so ordinary reports never touch the (much larger) step table.
    """
    if not groups:
        return
    drawn = S.output["samples_total"].as_integer()
    passed = S.output["samples_passed"].as_integer()
    which = or_(*(and_(T.run_id == r, T.condition.is_(None) if c is None else T.condition == c) for r, c in groups))
    rows = conn.execute(
        select(T.run_id, T.condition, T.problem_id, drawn, passed, func.count())
        .select_from(Trial.__table__.join(Step.__table__, S.trial_id == T.id))
        .where(and_(scope, which, S.node == "grade", drawn.is_not(None)))
        .group_by(T.run_id, T.condition, T.problem_id, drawn, passed)
    ).all()
    for run_id, condition, problem_id, n, c, count in rows:
        if (arm := arm_of(run_id, condition)) is not None and n:
            n, c, count = int(n), int(c or 0), int(count)
            _add(arm.samples, (n, c), count)
            total, won = arm.problem_samples.get(problem_id, (0, 0))
            arm.problem_samples[problem_id] = (total + n * count, won + c * count)


def _plain_rows(conn: Connection, stmt: Any) -> list[tuple]:
    """The DBAPI's own tuples: for tens of thousands of rows this halves the fetch time,
    because SQLAlchemy's Row objects are never built (any DBAPI cursor has fetchall)."""
    result = conn.execute(stmt)
    try:
        return list(result.cursor.fetchall())
    finally:
        result.close()
