"""`batch --match-budget CHEAP=COSTLY[:measure]`: queue enough samples (seeds) of a cheaper condition per problem to
spend a costlier condition's budget, so `stats` can score it by pass@k at that budget.

Why history and not a pilot inside the batch: the cost per sample is taken from the stored, finished (`done`)
trials of the same benchmark with the same models, before anything is queued, so the plan is fixed, recorded and
reproducible, and the whole grid stays paired (every problem gets the same number of samples). A best-of-N cheaper
arm draws several samples per trial, so its cost per sample is its cost per trial over the samples its stored trials
recorded, as `stats` counts them for pass@k (`samples_per_trial`). With no history the batch is refused with the
pilot to run first. The plan queues 25% more samples than the stored costs say the budget
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


def samples_per_trial(store: Store, rows: list[ConditionCost]) -> float:
    """Samples one trial of these stored (run, condition)s drew, counted as `stats` counts them for pass@k: a
    best-of-N condition's samples recorded by its grade steps per trial that recorded them (its configured N when
    none did), else one sample per trial."""
    from execugraph.store.report_reads import report_reads

    best_of = [(r.run_id, r.condition) for r in rows if int(r.config.get("best_of_n") or 1) > 1]
    if not best_of:
        return 1.0
    with report_reads(store) as reads:
        recorded = reads.samples(sorted({run for run, _ in best_of}), None, best_of)
    drawn, trials = sum(row[3] * row[5] for row in recorded), sum(row[5] for row in recorded)
    if trials:
        return drawn / trials
    return float(max(int(r.config.get("best_of_n") or 1) for r in rows))


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
    per_trial_samples = samples_per_trial(store, history_of(history, spec, plan.cheap))
    cheap, costly = costs[plan.cheap][0] / per_trial_samples, costs[plan.costly][0]
    unit = UNITS[plan.measure]
    if cheap <= 0 or costly <= cheap:
        raise ValueError(f"--match-budget: {plan.cheap} is not cheaper than {plan.costly} on {unit} in the stored "
                         f"trials ({cheap:,.2f} against {costly:,.2f} per trial): there is no budget to match")
    k_exact = costly / cheap
    needed = math.ceil(k_exact * MARGIN)
    samples = min(needed, MAX_MATCHED_SAMPLES)
    per_seed = spec.trials
    have = len(spec.seeds) * per_seed  # trials per problem, each `per_trial_samples` samples
    extra_count = max(0, math.ceil((math.ceil(samples / per_trial_samples - 1e-9) - have) / per_seed))
    extra, seed = [], max(spec.seeds) + 1
    while len(extra) < extra_count:
        if seed not in spec.seeds:
            extra.append(seed)
        seed += 1
    total = problems * (len(spec.arms) * len(spec.seeds) + len(extra)) * per_seed
    if total > MAX_TRIALS:
        raise ValueError(f"--match-budget: {total:,} trials, more than the {MAX_TRIALS:,} one batch may hold")
    samples = max(samples, math.floor((len(spec.seeds) + len(extra)) * per_seed * per_trial_samples + 1e-9))
    runs = sorted({r for _, _, ids in costs.values() for r in ids})
    drawn = "" if per_trial_samples == 1 else f" x {per_trial_samples:g} samples per trial"
    text = (
        f"{plan.cheap} gets {samples} samples per problem ({len(spec.seeds) + len(extra)} seeds x {per_seed} "
        f"trials{drawn}) to match the budget of {plan.costly} on {unit}: stored trials of this benchmark and these models "
        f"(runs {', '.join(f'#{r}' for r in runs)}; {costs[plan.cheap][1]} and {costs[plan.costly][1]} trials) cost "
        f"{costly:,.2f} per trial of {plan.costly} and {cheap:,.2f} per sample of {plan.cheap}"
        + ("" if per_trial_samples == 1 else f" ({cheap * per_trial_samples:,.2f} per trial of {per_trial_samples:g} "
           "samples, as `stats` counts pass@k)")
        + ", so its budget buys "
        f"{k_exact:.1f} samples; {round((MARGIN - 1) * 100)}% more are queued in case this batch's costs differ. "
        f"Assumes this batch costs what the stored trials did; `stats` recomputes k from this batch's own costs "
        f"and says when a problem has fewer samples than k."
    )
    if needed > MAX_MATCHED_SAMPLES:
        text += (f" Capped at {MAX_MATCHED_SAMPLES} samples per problem (the budget wants {needed}): pass@k is "
                 f"taken at all {MAX_MATCHED_SAMPLES} samples and `stats` says so.")
    planned = plan.model_copy(update={
        "cheap_cost": cheap, "costly_cost": costly, "history_runs": runs, "samples": samples, "needed": needed,
        "samples_per_trial": per_trial_samples,
        "history_trials": {plan.cheap: costs[plan.cheap][1], plan.costly: costs[plan.costly][1]},
        "extra_seeds": extra, "text": text})
    return spec.model_copy(update={"matched_budget": planned})
