"""The full statistics report for a set of runs: one `StatsReport` for the CLI, the dashboard and export.

`build_report(store, run_ids, conditions)` is the single entry point the Statistics
page, the Ablations page and the exported `summary.json` call, so the numbers are
identical everywhere. `from_records.build_report_from_records` computes the same
report from plain records (fixtures, imports); tests check both paths agree. The
sections are assembled as JSON-safe values (`_clean`) and validated into the typed
model (`report_model`), whose dump is the JSON written everywhere.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

from execugraph.stats.arms import RunInfo, merge_tallies
from execugraph.stats.bootstrap import DEFAULT_BOOTSTRAP, DEFAULT_SEED
from execugraph.stats.budgets import ran_retries
from execugraph.stats.category_pairs import METHOD as CATEGORY_METHOD
from execugraph.stats.category_pairs import category_comparisons_many
from execugraph.stats.cost_report import METHODS as COST_METHODS
from execugraph.stats.cost_report import cost_comparison
from execugraph.stats.costs import cost_accuracy_point, cost_summary
from execugraph.stats.family import BASELINE, CHOSEN_PAIRS, Family, describe, plan_family
from execugraph.stats.intervals import NEWCOMBE
from execugraph.stats.paired import EXACT_WILCOXON_MAX_N, adjust_family, compare_many
from execugraph.stats.passk import pass_at_k_table
from execugraph.stats.rates import METHOD as RATE_METHOD
from execugraph.stats.rates import category_rates, per_problem_rates, rate_summary
from execugraph.stats.records import ArmData, ProblemTally
from execugraph.stats.report_model import REPORT_SCHEMA, StatsReport
from execugraph.stats.retries import METHOD as RETRY_METHOD
from execugraph.stats.retries import retries_used_distribution, retry_sweep
from execugraph.stats.sampling import arm_kind, best_of_n_control, best_of_n_summary, control_row
from execugraph.stats.taxonomy import error_shares, source_audit

if TYPE_CHECKING:
    from execugraph.store import Store

MAJORITY_RULE = "a problem counts as solved when more than half of its trials passed (an exact split is not solved)"


_PLAIN = frozenset({str, int, bool, type(None)})


def _clean(value: Any) -> Any:
    """Make the report JSON-safe and stable: numpy scalars to Python, NaN/inf to None."""
    kind = type(value)  # the common exact types first (a report has ~200,000 values); subclasses take the long way
    if kind in _PLAIN:
        return value
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is dict:
        return _clean_dict(value)
    if kind is list:
        return _clean_list(value)
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _clean_dict(value: dict) -> dict:
    """`_clean` of a plain dict, its plain leaves handled in line (one call per container, not per value)."""
    out = {}
    for k, v in value.items():
        kind = type(v)
        if kind is float:
            if not math.isfinite(v):
                v = None
        elif kind not in _PLAIN:
            v = _clean(v)
        out[k if type(k) is str else str(k)] = v
    return out


def _clean_list(value: list) -> list:
    """`_clean` of a plain list, its plain leaves handled in line."""
    out = []
    for v in value:
        kind = type(v)
        if kind is float:
            if not math.isfinite(v):
                v = None
        elif kind not in _PLAIN:
            v = _clean(v)
        out.append(v)
    return out


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a report is built: its ~200,000 new objects otherwise set off
    collections that scan the whole heap (about a tenth of the build); any cycle left goes at the next one after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _rate_sections(tallies: Mapping[str, ProblemTally]) -> dict:
    """Overall and per-category rates with their Wilson intervals over problems."""
    return {
        **rate_summary(tallies.values()).as_dict(),
        "categories": {k: v.as_dict() for k, v in category_rates(tallies).items()},
    }


def fewest_trials(*arms: ArmData) -> int:
    """The fewest trials any problem has in these arms (1 when none has trials): sizes a pair's power sentence."""
    return min((t.trials for arm in arms for t in arm.tallies.values() if t.trials), default=1)


def _fewest_of(a: int | None, b: int | None) -> int:
    """`fewest_trials` of two arms from each one's own (None: the arm has no trials)."""
    return min((x for x in (a, b) if x is not None), default=1)


def agreement(arm: ArmData) -> dict:
    """Problems with two or more trials, and on how many of them every trial agreed (all passed or all failed)."""
    repeated = [t for t in arm.tallies.values() if t.trials >= 2]
    return {
        "problems": len(repeated),
        "all_passed": sum(1 for t in repeated if t.passed == t.trials),
        "all_failed": sum(1 for t in repeated if t.passed == 0),
        "min_trials": min((t.trials for t in arm.tallies.values() if t.trials), default=0),
    }


def _arm_section(arm: ArmData, rates: dict, costs: dict) -> dict:
    return {
        "label": arm.label,
        "name": arm.name or arm.label,
        "run": arm.run_id,
        "condition": arm.condition,
        "model": arm.model,
        "benchmarks": sorted(b for b in arm.benchmarks if b),
        "retry_budget": arm.retry_budget,
        "best_of_n": arm.best_of_n,
        **rates,
        "pass_at_k": pass_at_k_table(arm.tallies),
        "errors": error_shares(arm.errors),
        "test_sources": source_audit(arm.test_sources),
        "feedback_sources": source_audit(arm.feedback_sources),
        "retries_used": retries_used_distribution(arm),
        "cost": costs,
        "not_counted": dict(sorted(arm.not_counted.items())),
        **ungraded_section(arm),
        "agreement": agreement(arm),
    }


def ungraded_section(arm: ArmData) -> dict:
    """How many of the arm's trials were never graded, and the flag shown wherever the arm is compared.

    Errored trials count as failures in these statistics (an arm cannot look
    better by crashing); unfinished ones (queued, running, cancelled) are left
    out. Either way the comparison rests on fewer graded trials than planned.
    """
    unfinished = sum(arm.not_counted.values())
    flag = None
    if arm.errored or unfinished:
        parts = []
        if arm.errored:
            parts.append(f"{arm.errored} ended in an error (counted as failures)")
        if unfinished:
            parts.append(f"{unfinished} unfinished (left out)")
        flag = f"{arm.errored + unfinished} of {arm.trials + unfinished} trials not graded: {', '.join(parts)}"
    return {"ungraded": {"errors": arm.errored, "unfinished": unfinished}, "flag": flag}


def _run_section(run: RunInfo, rates: dict) -> dict:
    return {
        "id": run.id,
        "title": run.title,
        "name": run.name or run.id,
        "kind": run.kind,
        "model": run.model,
        **rates,
        "conditions": {
            c: {"trials": t.trials, "passed": t.passed, "pass_rate": t.rate if t.trials else None}
            for c, t in sorted(run.conditions.items())
        },
        "not_counted": dict(sorted(run.not_counted.items())),
    }


def _sampling_controls(
    arms: Sequence[ArmData], costs: Mapping[str, dict], conditions: Mapping[str, str | None]
) -> list[dict]:
    """Best-of-N controls for every never-retrying arm against every costlier arm."""
    controls = []
    calls = {a.label: costs[a.label]["llm_calls"]["mean"] for a in arms}
    for sampler in arms:
        retried = ran_retries(conditions.get(sampler.label), sampler.retry_budget, sampler.retries_used)
        if retried is not False or sampler.best_of_n != 1:
            continue
        for reference in arms:
            if reference is sampler:
                continue
            s_calls, r_calls = calls[sampler.label], calls[reference.label]
            if not s_calls or r_calls is None or r_calls <= s_calls:
                continue
            control = best_of_n_control(sampler, reference, sampler_calls=s_calls, reference_calls=r_calls)
            if control is not None:
                controls.append(control)
    return controls


def arm_conditions(arms: Sequence[ArmData], runs: Sequence[RunInfo]) -> dict[str, str | None]:
    """Each arm's condition: its own, else its run's only condition (None for a run of several)."""
    own = {r.id: list(r.conditions) for r in runs}
    out = {}
    for arm in arms:
        conditions = own.get(arm.run_id, [])
        out[arm.label] = arm.condition or (conditions[0] if len(conditions) == 1 else None)
    return out


def _control(arms: Sequence[ArmData], conditions: Mapping[str, str | None], costs: Mapping[str, dict]) -> list[dict]:
    """The sampling control's rows, one per arm in report order (see `sampling.control_row`)."""
    return [
        control_row(arm, arm_kind(arm, conditions[arm.label]), costs[arm.label]["llm_calls"]["mean"])
        for arm in arms
        if arm.trials
    ]


def report_from_arms(
    runs: Sequence[RunInfo],
    arms: Sequence[ArmData],
    *,
    conditions: Sequence[str] | None = None,
    family: Family | None = None,
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
    cost: str = "tokens",
) -> StatsReport:
    """Assemble the report from loaded arms (pure: no I/O); `family` picks the comparisons (default: all pairs);
    `cost` (tokens, calls or wallclock) is the cost its frontier is shown on by default."""
    with _collector_paused():
        return _assemble(runs, arms, conditions=conditions, family=family, n_boot=n_boot, seed=seed, cost=cost)


def _assemble(
    runs: Sequence[RunInfo],
    arms: Sequence[ArmData],
    *,
    conditions: Sequence[str] | None,
    family: Family | None,
    n_boot: int,
    seed: int,
    cost: str,
) -> StatsReport:
    """`report_from_arms` with the collector paused."""
    family = family or Family()
    rates = [per_problem_rates(a.tallies) for a in arms]
    planned, excluded = plan_family(arms, family)
    least = [min((t.trials for t in a.tallies.values() if t.trials), default=None) for a in arms]  # per arm, once
    pairs = compare_many(  # unexplained: adjust_family below writes every explanation once Holm's p is known
        [(rates[i], rates[j], arms[i].label, arms[j].label, _fewest_of(least[i], least[j])) for i, j in planned],
        explained=False,
    )
    categories = category_comparisons_many([(arms[i].tallies, arms[j].tallies) for i, j in planned])
    adjust_family(pairs)
    flagged = {a.label for a in arms if ungraded_section(a)["flag"]}
    costs = {a.label: cost_summary(a.costs) for a in arms}
    names = {a.label: a.name or a.label for a in arms}
    described = describe(arms, family, len(pairs), len(excluded))
    arm_condition = arm_conditions(arms, runs)
    sweep = retry_sweep(arms, costs, arm_condition)
    report = {
        "schema": REPORT_SCHEMA,
        "conditions": list(conditions) if conditions else None,
        "family": described,
        "runs": [_run_section(r, _rate_sections(merge_tallies([a for a in arms if a.run_id == r.id]))) for r in runs],
        "arms": [_arm_section(a, _rate_sections(a.tallies), costs[a.label]) for a in arms],
        "pairs": [
            {**p.as_dict(), "a_name": names[p.a], "b_name": names[p.b],
             "ungraded_arms": [x for x in (p.a, p.b) if x in flagged],
             "categories": rows}
            for p, rows in zip(pairs, categories, strict=True)
        ],
        "excluded": excluded,
        "retry_budgets": sweep.rows,
        "retry_budget_missing": sweep.missing,
        "unknown_budget": [a.label for a in arms if a.retry_budget is None],
        "cost_vs_accuracy": [
            {**c, "name": names[c["arm"]]} for c in (cost_accuracy_point(a, costs[a.label]) for a in arms)
        ],
        "sampling": {
            "best_of_n": [
                {**s, "name": names[s["arm"]]} for s in (best_of_n_summary(a) for a in arms) if s is not None
            ],
            "equal_budget": [
                {**c, "sampler_name": names[c["sampler"]], "reference_name": names[c["reference"]]}
                for c in _sampling_controls(arms, costs, arm_condition)
            ],
            "control": [{**row, "name": names[row["arm"]]} for row in _control(arms, arm_condition, costs)],
        },
        "method": {
            "delta": "mean over common problems of (pass rate in b - pass rate in a), in percentage points",
            "ci": f"{NEWCOMBE} (Newcombe 1998, paired data) 95% interval of the mean per-problem difference: "
            "square-and-add of each arm's Wilson score interval over the common problems with the corrected "
            "correlation phi (exactly Newcombe's interval for 0/1 outcomes; per-problem rates with several trials use "
            "their covariance); it never collapses to zero width on few problems, unlike a bootstrap",
            "wilcoxon": f"two-sided signed-rank on per-problem differences, zeros dropped, exact up to "
            f"{EXACT_WILCOXON_MAX_N} non-zero differences, normal approximation above",
            "mcnemar": "exact two-sided binomial test on problems whose majority outcome differs",
            "p_min": "the smallest p each test could give for this pair whatever the outcome: p_min_wilcoxon is the "
            "Wilcoxon p of the most extreme arrangement (every non-zero difference of one sign, with the pair's tied "
            "ranks and the same method; 2 / 2^n for the exact test on n problems that differ, so 0.125 for 4), "
            "p_min_mcnemar is 2 * 0.5^(b + c), capped at 1. Above 0.05 no outcome could be significant at 0.05, and "
            "Holm's adjustment only raises p. The CI and the p answer different questions: the CI describes the size "
            "of the mean difference over these problems (Newcombe's score interval), the p "
            "tests whether per-problem differences lean one way; with few discordant problems they can disagree. "
            "Each pair's explanation says in words when either applies",
            "problems_differ": "problems whose per-problem pass rates differ at all (the paper's Disc. column; "
            "the Wilcoxon n)",
            "majority_discordant": "problems whose majority outcome differs (McNemar's b + c)",
            "majority_rule": MAJORITY_RULE,
            "family": _family_text(described),
            "holm": f"Holm-Bonferroni over the {len(pairs)} comparison(s) of this family; p_holm adjusts "
            "p_wilcoxon, p_holm_mcnemar adjusts p_mcnemar",
            "rate_ci": RATE_METHOD,
            "power": "when a pair has too few common problems to detect a 20 pp difference with 80% power (paired "
            "normal-theory power with Student quantiles at pass rates around 50%, the fewest trials per problem), its "
            "explanation says so and how many problems would (stats.power.power_sentence)",
            "categories": CATEGORY_METHOD,
            "retry_budgets": RETRY_METHOD,
            "sampling": "pass@k by the unbiased estimator (Chen et al., 2021); a best-of-N arm's samples are those "
            "its trials recorded, or its N trials per problem when each trial is one sample; other arms: one trial "
            "is one attempt. LLM calls for pass@N: what N samples (or attempts) cost, at the calls observed per trial",
        },
    }
    report["cost_comparison"] = cost_comparison(arms, planned, report["arms"], report["pairs"], metric=cost)
    report["method"].update(COST_METHODS)
    return StatsReport.model_validate(_clean(report))


def _family_text(family: dict) -> str:
    scope = (
        "pairs of arms that ran the same benchmark and share at least one problem"
        if family["comparable_only"]
        else "pairs of arms that share at least one problem (across benchmarks)"
    )
    if family["mode"] == BASELINE:
        what = f"each arm against the baseline {family['baseline_name']} (delta = arm - baseline)"
    elif family["mode"] == CHOSEN_PAIRS:
        what = "the pairs chosen for this study (delta = second arm - first arm)"
    else:
        what = "all pairs (delta = later arm - earlier arm)"
    left_out = f"; {family['excluded']} pair(s) listed apart as not comparable" if family["excluded"] else ""
    return f"{what}, restricted to {scope}: {family['comparisons']} comparison(s){left_out}"


def build_report(
    store: Store,
    run_ids: Sequence[str],
    conditions: Sequence[str] | None = None,
    *,
    family: Family | None = None,
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
    cost: str = "tokens",
) -> StatsReport:
    """The report for runs in a store (aggregated in SQL). Raises UnknownRunError / UnknownConditionError,
    and ValueError for a baseline that is not one of the arms or a cost that is not tokens, calls or wallclock."""
    from execugraph.stats.loading import load_report_inputs

    with _collector_paused():
        runs, arms = load_report_inputs(store, run_ids, conditions)
        if cost in ("model-time", "model_time_s"):  # read only when asked: the join over every LLM call costs time
            from execugraph.stats.model_time import attach_model_time

            attach_model_time(store, arms)
        return report_from_arms(runs, arms, conditions=conditions, family=family, n_boot=n_boot, seed=seed,
                                cost=cost)
