"""Which arms a report compares, decided the same way for the SQL and the record paths.

An arm is a run, or one condition of a run. `--runs A B` compares runs; adding
`--conditions X Y` compares every (run, condition) in run order, then condition
order; a single run without conditions compares its own conditions in the order
they first appear (the order the batch launched them). Pairs are always
"later minus earlier" in this order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from execugraph.domain.json_types import JsonObject
from execugraph.domain.run_names import arm_name
from execugraph.stats.budgets import condition_budget
from execugraph.stats.records import ArmData, ProblemTally, Tally


class UnknownRunError(ValueError):
    """A requested run id is not in the store (or not among the records)."""


class UnknownConditionError(ValueError):
    """A requested condition does not occur in any of the requested runs."""


@dataclass(frozen=True)
class ArmSpec:
    """One arm to load: its display label, run, and condition (None = the whole run)."""

    label: str
    run_id: str
    condition: str | None
    retry_budget: int | None
    best_of_n: int = 1
    name: str = ""


def plan_arms(
    run_ids: Sequence[str],
    conditions: Sequence[str] | None,
    conditions_by_run: Mapping[str, Sequence[str]],
    configs: Mapping[str, Mapping[str, Any] | None],
    names: Mapping[str, str] | None = None,
) -> list[ArmSpec]:
    """Turn the user's request into ordered arms.

    `conditions_by_run` lists each run's conditions in first-appearance order;
    `configs` holds each run's config JSON (for the retry budget); `names` each
    run's display name (`run_names.run_name`; the id when not given). Raises
    UnknownConditionError naming a requested condition no selected run has.
    """
    names = {r: (names or {}).get(r) or r for r in run_ids}
    if len(set(run_ids)) != len(run_ids):
        raise ValueError(f"each run may be given once, got {list(run_ids)}")
    if conditions and len(set(conditions)) != len(conditions):
        raise ValueError(f"each condition may be given once, got {list(conditions)}")
    if conditions:
        present = {c for r in run_ids for c in conditions_by_run.get(r, ())}
        missing = [c for c in conditions if c not in present]
        if missing:
            raise UnknownConditionError(
                f"condition(s) {', '.join(missing)} not found in run(s) {', '.join(run_ids)}; "
                f"present: {', '.join(sorted(present)) or 'none'}"
            )
        single = len(run_ids) == 1
        return [
            _spec(c if single else f"{r}:{c}", r, c, c, configs, arm_name(names[r], c, alone=single))
            for r in run_ids
            for c in conditions
        ]
    if len(run_ids) == 1 and len(conditions_by_run.get(run_ids[0], ())) > 1:
        r = run_ids[0]
        return [_spec(c, r, c, c, configs, c) for c in conditions_by_run[r]]
    specs = []
    for r in run_ids:
        own = list(conditions_by_run.get(r, ()))
        # a run with one condition takes that condition's budget; a mixed run only its config's
        specs.append(_spec(r, r, None, own[0] if len(own) == 1 else None, configs, names[r]))
    return specs


def _spec(
    label: str, run_id: str, condition: str | None, budget_of: str | None, configs: Mapping[str, Any], name: str
) -> ArmSpec:
    budget = condition_budget(budget_of, configs.get(run_id))
    return ArmSpec(label, run_id, condition, budget.retry_budget, budget.best_of_n, name)


def generator_model(models: Mapping[str, Any] | None) -> str | None:
    """The model that wrote the code (the generator's), which is what a cross-model table compares."""
    value = (models or {}).get("generator")
    return str(value) if value else None


def merge_tallies(arms: Sequence[ArmData]) -> dict[str, ProblemTally]:
    """Pool several arms' per-problem tallies (used for a run's own summary)."""
    merged: dict[str, ProblemTally] = {}
    for arm in arms:
        for pid, t in arm.tallies.items():
            m = merged.setdefault(pid, ProblemTally(pid, t.category))
            m.trials += t.trials
            m.passed += t.passed
    return merged


@dataclass
class RunInfo:
    """A run's identity and config, plus its trials per condition within the report's scope."""

    id: str
    title: str | None
    kind: str | None
    config: JsonObject | None  # the run's stored config, as its JSON column holds it
    conditions: dict[str, Tally]
    not_counted: dict[str, int]
    name: str = ""  # execugraph.domain.run_names.run_name of the run
    model: str | None = None  # the generator's model spec
