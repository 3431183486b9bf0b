"""The report computed from plain trial records instead of a store.

For fixtures, hand-written test cases and data that is not (yet) in a store. It
plans arms and counts trials exactly as `loading.py` does in SQL, then hands the
aggregates to the same `report_from_arms`; an integration test checks that both
paths give identical reports for the same trials.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from execugraph.domain.run_names import conditions_of, run_name
from execugraph.stats.arms import ArmSpec, RunInfo, UnknownRunError, generator_model, plan_arms
from execugraph.stats.bootstrap import DEFAULT_BOOTSTRAP, DEFAULT_SEED
from execugraph.stats.family import Family
from execugraph.stats.records import UNKNOWN, Tally, TrialRecord, arm_from_records, to_records
from execugraph.stats.report import report_from_arms
from execugraph.stats.report_model import StatsReport


def _first_appearance(records: Iterable[TrialRecord], run_id: str) -> list[str]:
    """A run's conditions in the order its records first show them (the SQL path uses MIN(id))."""
    seen: dict[str, None] = {}
    for rec in records:
        if rec.run_id == run_id and rec.condition is not None:
            seen.setdefault(rec.condition, None)
    return list(seen)


def build_report_from_records(
    items: Iterable[Mapping[str, Any] | Any],
    run_ids: Sequence[str],
    conditions: Sequence[str] | None = None,
    *,
    runs_meta: Mapping[str, Mapping[str, Any]] | None = None,
    family: Family | None = None,
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
    cost: str = "tokens",
) -> StatsReport:
    """The same report from plain records; `runs_meta[run_id]` may give title, kind, config, benchmark,
    created_at and models (the last three only name untitled runs and arms' models)."""
    records = to_records(items)
    run_ids = [str(r) for r in run_ids]
    known = {r.run_id for r in records} | set(runs_meta or {})
    missing = [r for r in run_ids if r not in known]
    if missing:
        raise UnknownRunError(f"unknown run id(s): {', '.join(missing)}")
    meta = {r: dict((runs_meta or {}).get(r) or {}) for r in run_ids}
    configs = {r: meta[r].get("config") for r in run_ids}
    names = {
        r: run_name(
            r,
            meta[r].get("title"),
            benchmark=meta[r].get("benchmark"),
            conditions=conditions_of(configs[r]),
            created=meta[r].get("created_at"),
        )
        for r in run_ids
    }
    models = {r: generator_model(meta[r].get("models")) for r in run_ids}
    by_run: dict[str, list[TrialRecord]] = {}
    for x in records:  # each run and arm reads only its run's records, in their order (not every record each time)
        by_run.setdefault(x.run_id, []).append(x)
    specs = plan_arms(run_ids, conditions, {r: _first_appearance(by_run.get(r, []), r) for r in run_ids}, configs,
                      names)
    wanted = set(conditions) if conditions else None
    arms = [
        arm_from_records(
            (x for x in by_run.get(spec.run_id, ()) if _in_arm(x, spec)),
            label=spec.label,
            run_id=spec.run_id,
            condition=spec.condition,
            retry_budget=spec.retry_budget,
            best_of_n=spec.best_of_n,
            name=spec.name,
            model=models[spec.run_id],
        )
        for spec in specs
    ]
    runs = []
    for r in run_ids:
        per_condition: dict[str, Tally] = {}
        not_counted: dict[str, int] = {}
        for x in by_run.get(r, ()):
            if x.run_id != r or (wanted is not None and x.condition not in wanted):
                continue
            if not x.counted:
                not_counted[x.status] = not_counted.get(x.status, 0) + 1
                continue
            t = per_condition.setdefault(x.condition or UNKNOWN, Tally())
            t.trials += 1
            t.passed += int(x.passed is True)
        info = RunInfo(r, meta[r].get("title"), meta[r].get("kind"), configs[r], per_condition, not_counted)
        info.name, info.model = names[r], models[r]
        runs.append(info)
    return report_from_arms(runs, arms, conditions=conditions, family=family, n_boot=n_boot, seed=seed, cost=cost)


def _in_arm(rec: TrialRecord, spec: ArmSpec) -> bool:
    return rec.run_id == spec.run_id and (spec.condition is None or rec.condition == spec.condition)
