"""Which retry budget and how many best-of-N samples an arm ran with.

Trials do not store these; they follow from the condition name (defined in
`execugraph.configuration.conditions`, including the `name@N` form) and the run's config JSON:
- a batch config (it lists `conditions`) applies its `overrides` to every
  condition, exactly as `BatchSpec.run_config` does;
- any other config (a single run's RunConfig, an import) states `retry_budget`
  / `best_of_n` itself, which wins over the condition's defaults;
- `retry_budget_by_condition` (e.g. from an import of published logs, where the
  budget is per trial) wins over both: a published budget is kept as published,
  even where our definition of the condition never retries.
Unknown condition names without a stated budget give None (listed as unknown).
Whether an arm actually ran a retry loop is `ran_retries`, not "budget > 0".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ConditionBudget:
    """Retry budget (None when unknown) and best-of-N samples per trial (1 = no sampling control)."""

    retry_budget: int | None
    best_of_n: int


def _defaults(condition: str | None) -> tuple[int | None, int]:
    if condition is None:
        return (None, 1)
    from execugraph.configuration.conditions import UnknownConditionName, resolve_condition
    from execugraph.configuration.model_axis import split_arm

    try:
        config = resolve_condition(split_arm(condition)[0])  # an arm of a model axis: its condition's budget
    except (UnknownConditionName, ValueError):
        return (None, 1)
    return (config.retry_budget, config.best_of_n)


def _as_int(value: Any, where: str, minimum: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = minimum - 1
    if number < minimum or isinstance(value, bool):
        raise ValueError(f"{where} must be an integer >= {minimum}, got {value!r}")
    return number


def condition_budget(condition: str | None, run_config: Mapping[str, Any] | None) -> ConditionBudget:
    """Resolve the budget of `condition` within a run whose config JSON is `run_config`."""
    cfg = run_config or {}
    retry, best_of_n = _defaults(condition)
    stated = cfg.get("overrides") if isinstance(cfg.get("conditions"), list) else cfg
    stated = stated if isinstance(stated, Mapping) else {}
    if stated.get("retry_budget") is not None:
        retry = _as_int(stated["retry_budget"], "run config retry_budget", 0)
    if stated.get("best_of_n") is not None:
        best_of_n = _as_int(stated["best_of_n"], "run config best_of_n", 1)
    by_condition = cfg.get("retry_budget_by_condition") or {}
    if condition is not None and condition in by_condition:
        retry = _as_int(by_condition[condition], f"run config retry_budget_by_condition[{condition!r}]", 0)
    return ConditionBudget(retry, best_of_n)


def condition_family(condition: str | None) -> str | None:
    """The condition without its retry-budget suffix (`multi-full@2` -> `multi-full`): one retry-sweep series.

    A suffix that sets something else (best-of-n@5 counts samples) is part of the condition and stays;
    names we do not define stay as written, since we cannot tell what their suffix means.
    """
    if condition is None:
        return None
    spec = condition.strip()
    base, sep, suffix = spec.partition("@")
    if not sep or not suffix.isdigit():
        return spec
    from execugraph.configuration.conditions import UnknownConditionName, resolve_condition

    try:
        same_samples = resolve_condition(base).best_of_n == resolve_condition(spec).best_of_n
    except (UnknownConditionName, ValueError):
        return spec
    return base if same_samples else spec


def never_retries(condition: str | None) -> bool:
    """Whether our definition of `condition` has no retry loop (one-shot, best-of-N sampling, `@0`)."""
    retry, _ = _defaults(condition)
    return retry == 0


def ran_retries(condition: str | None, retry_budget: int | None, retries_used: Iterable[int] = ()) -> bool | None:
    """Whether an arm ran a retry loop (None when its budget is unknown).

    A budget above 0 says so, except on a condition that never retries by definition and
    whose trials never used a retry: published one-shot records carry the harness's budget
    (kept as published) although the loop never ran.
    """
    if retry_budget is None:
        return None
    if retry_budget == 0:
        return False
    return not never_retries(condition) or any(k > 0 for k in retries_used)
