"""`batch --match-budget CHEAP=COSTLY[:measure]`: queue enough samples (seeds) of a cheaper condition per problem to
spend a costlier condition's budget, so `stats` can score it by pass@k at that budget.

Why history and not a pilot inside the batch: the cost per sample is taken from the stored, finished (`done`)
trials of the same benchmark with the same models, before anything is queued, so the plan is fixed, recorded and
reproducible, and the whole grid stays paired (every problem gets the same number of samples). With no history the
batch is refused with the pilot to run first. The plan queues 25% more samples than the stored costs say the budget
buys, in case this batch's costs differ; `stats` recomputes k from this batch's own costs and says when a problem
has fewer samples than k.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from execugraph.batch.matched_budget_spec import UNITS

if TYPE_CHECKING:
    from execugraph.batch.spec import BatchSpec
    from execugraph.store import Store
    from execugraph.store.cost_history import ConditionCost

MAX_MATCHED_SAMPLES = 50  # samples per problem of the cheaper condition, at most
MARGIN = 1.25  # samples queued over what the stored costs say the budget buys
ROLES = ("planner", "generator", "reviewer", "evaluator", "optimizer", "explainer")


def _per_trial(rows: list[ConditionCost], measure: str) -> tuple[float | None, int]:
    """Pooled mean cost per trial of the rows on `measure`, and the trials it rests on."""
    if measure == "tokens":
        total, n = sum(r.tokens for r in rows), sum(r.tokens_trials for r in rows)
    elif measure == "calls":
        total, n = sum(r.llm_calls for r in rows), sum(r.calls_trials for r in rows)
    elif measure == "time":
        total, n = sum(r.wallclock_s for r in rows), sum(r.wallclock_trials for r in rows)
    else:
        total, n = sum(r.model_time_s for r in rows), sum(r.trials for r in rows)
    return (total / n if n else None), n


def _models(config: dict) -> dict[str, str] | None:
    """Role -> model of a stored condition config (None when it cannot be read)."""
    from execugraph.domain.config import RunConfig

    try:
        cfg = RunConfig.from_stored(config)[0]
    except ValueError:
        return None
    return {role: cfg.model_for(role) for role in ROLES}


def history_of(history: list[ConditionCost], spec: BatchSpec, arm: str) -> list[ConditionCost]:
    """The stored (run, condition)s of the same loop as `arm` run with the same models as this batch gives it."""
    from execugraph.configuration.model_axis import split_arm

    loop = split_arm(arm)[0] if spec.model_axis else arm
    want = _models(spec.run_config(arm).model_dump())
    return [r for r in history if r.config and split_arm(r.condition)[0] == loop and _models(r.config) == want]


def plan_matched_budget(store: Store, spec: BatchSpec, problems: int) -> BatchSpec:
    """The spec with its matched budget planned from stored history; ValueError when it cannot be."""
    from execugraph.batch.spec import MAX_TRIALS
    from execugraph.store.cost_history import condition_costs

    plan = spec.matched_budget
    assert plan is not None
    history = condition_costs(store, spec.benchmark)
    costs: dict[str, tuple[float, int, list[int]]] = {}
    for arm in (plan.cheap, plan.costly):
        rows = history_of(history, spec, arm)
        mean, n = _per_trial(rows, plan.measure)
        if mean is None:
            model = spec.run_config(arm).model_for("generator")
            raise ValueError(
                f"--match-budget: no finished trial of {arm!r} on {spec.benchmark} with model {model} recorded "
                f"{UNITS[plan.measure]}, so its cost is unknown; run a pilot batch of both conditions on a few "
                f"problems first (e.g. batch --conditions {plan.cheap},{plan.costly} --subset 5), then this one")
        costs[arm] = (mean, n, sorted({r.run_id for r in rows}))
    cheap, costly = costs[plan.cheap][0], costs[plan.costly][0]
    unit = UNITS[plan.measure]
    if cheap <= 0 or costly <= cheap:
        raise ValueError(f"--match-budget: {plan.cheap} is not cheaper than {plan.costly} on {unit} in the stored "
                         f"trials ({cheap:,.2f} against {costly:,.2f} per trial): there is no budget to match")
    k_exact = costly / cheap
    needed = math.ceil(k_exact * MARGIN)
    samples = min(needed, MAX_MATCHED_SAMPLES)
    per_seed = spec.trials
    have = len(spec.seeds) * per_seed
    extra_count = max(0, math.ceil((samples - have) / per_seed))
    extra, seed = [], max(spec.seeds) + 1
    while len(extra) < extra_count:
        if seed not in spec.seeds:
            extra.append(seed)
        seed += 1
    total = problems * (len(spec.arms) * len(spec.seeds) + len(extra)) * per_seed
    if total > MAX_TRIALS:
        raise ValueError(f"--match-budget: {total:,} trials, more than the {MAX_TRIALS:,} one batch may hold")
    samples = max(samples, have)
    runs = sorted({r for _, _, ids in costs.values() for r in ids})
    text = (
        f"{plan.cheap} gets {samples} samples per problem ({len(spec.seeds) + len(extra)} seeds x {per_seed} "
        f"trials) to match the budget of {plan.costly} on {unit}: stored trials of this benchmark and these models "
        f"(runs {', '.join(f'#{r}' for r in runs)}; {costs[plan.cheap][1]} and {costs[plan.costly][1]} trials) cost "
        f"{costly:,.2f} per trial of {plan.costly} and {cheap:,.2f} per sample of {plan.cheap}, so its budget buys "
        f"{k_exact:.1f} samples; {round((MARGIN - 1) * 100)}% more are queued in case this batch's costs differ. "
        f"Assumes this batch costs what the stored trials did; `stats` recomputes k from this batch's own costs "
        f"and says when a problem has fewer samples than k."
    )
    if needed > MAX_MATCHED_SAMPLES:
        text += (f" Capped at {MAX_MATCHED_SAMPLES} samples per problem (the budget wants {needed}): pass@k is "
                 f"taken at all {MAX_MATCHED_SAMPLES} samples and `stats` says so.")
    planned = plan.model_copy(update={
        "cheap_cost": cheap, "costly_cost": costly, "history_runs": runs, "samples": samples, "needed": needed,
        "history_trials": {plan.cheap: costs[plan.cheap][1], plan.costly: costs[plan.costly][1]},
        "extra_seeds": extra, "text": text})
    return spec.model_copy(update={"matched_budget": planned})
