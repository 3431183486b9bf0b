"""Matched-budget baselines: an arm with several samples per problem, at the budget of a costlier arm.

Why: a pipeline that spends k times the tokens of a one-shot model should beat the one-shot model given k
tries, not given one. For sampler S and costlier reference R of the family, k = floor(R's mean cost per trial /
S's mean cost per sample); S's per-problem pass@k (the unbiased estimator, `passk.pass_at_k`) is paired against
R's per-problem pass rate like any comparison (`paired.compare_paired`). Where a problem has fewer than k
samples its pass@k is taken at all its samples (pass@n), and the row says how many problems were clipped.
"Cheaper" is per sample, as `batch --match-budget` plans it (`batch.matched_plan`): a best-of-N trial's cost
over the samples its grade steps recorded, so a best-of-4 trial of 4 calls is 1 call a sample, cheaper than a
4-call arm. A best-of-N arm whose trials recorded no samples has only its trials' outcomes, so its samples are its
trials, at a trial's cost (the plan then queues budget / N trials, the same count).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from execugraph.stats.cost_compare import FRONTIER_METRICS, UNITS
from execugraph.stats.frontier import amount
from execugraph.stats.paired import (
    PairedArrays,
    PairedComparison,
    PairedCore,
    compare_paired,
    paired_arrays,
    paired_core,
)
from execugraph.stats.passk import pass_at_k
from execugraph.stats.rates import per_problem_rates
from execugraph.stats.records import ArmData
from execugraph.stats.row_stats import row_stats
from execugraph.stats.signed_rank_batch import wilcoxon_many

METHOD = (
    "for an arm with two or more samples on some problem (trials, or a best-of-N arm's recorded samples) and each "
    "arm that costs more per trial than it costs per sample (a best-of-N trial's cost over the samples it recorded): "
    "k = floor(the costlier arm's mean cost per trial / the sampler's mean cost per sample), at least 1; the "
    "sampler's per-problem pass@k (unbiased estimator, Chen et al. 2021) paired "
    "against the costlier arm's per-problem pass rate (delta = sampler - costlier, the paired CI and Wilcoxon p of "
    "every accuracy comparison; not "
    "Holm-adjusted). A problem with fewer than k samples uses all of them (pass@n) and is counted as clipped"
)


def samples_of(arm: ArmData) -> tuple[dict[str, tuple[int, int]], float]:
    """problem -> (samples, passed), and samples per trial: a best-of-N arm's recorded samples, else its trials."""
    if arm.best_of_n > 1 and arm.problem_samples:
        drawn = sum(n for n, _ in arm.problem_samples.values())
        trials = sum(arm.tallies[p].trials for p in arm.problem_samples if p in arm.tallies)
        return dict(arm.problem_samples), (drawn / trials if trials else 1.0)
    return {p: (t.trials, t.passed) for p, t in arm.tallies.items() if t.trials}, 1.0


Budget = tuple[ArmData, ArmData, str, float, float, float, int, dict[str, float], int, int]


def _budget(sampler: ArmData, reference: ArmData, metric: str, costs: Mapping[str, Mapping[str, Mapping]],
            memo: dict) -> Budget | None:
    """What the sampler buys at the reference's budget (k, its per-problem pass@k), or None (not cheaper per
    sample, no repeats); `memo` keeps each arm's samples and each (arm, k)'s pass@k across the rows of one report."""
    s_cost, r_cost = costs[sampler.label][metric]["mean"], costs[reference.label][metric]["mean"]
    if not s_cost or r_cost is None or s_cost <= 0:
        return None
    if ("samples", sampler.label) not in memo:
        samples, per_trial = samples_of(sampler)
        memo["samples", sampler.label] = (samples, per_trial, max((n for n, _ in samples.values()), default=0))
    samples, per_trial, most = memo["samples", sampler.label]
    per_sample = s_cost / per_trial  # a best-of-N trial's cost over its samples, as `batch --match-budget` prices it
    if most < 2 or r_cost <= per_sample:
        return None
    k_exact = r_cost / per_sample
    k = max(1, math.floor(k_exact + 1e-9))
    if ("pass@k", sampler.label, k) not in memo:
        memo["pass@k", sampler.label, k] = (
            {p: pass_at_k(n, c, min(k, n)) for p, (n, c) in samples.items()},
            sum(1 for n, _ in samples.values() if n < k),
        )
    values, clipped = memo["pass@k", sampler.label, k]
    return (sampler, reference, metric, r_cost, per_sample, k_exact, k, values, clipped, most)


def _rates(arm: ArmData, memo: dict) -> dict[str, float]:
    if ("rates", arm.label) not in memo:
        memo["rates", arm.label] = per_problem_rates(arm.tallies)
    return memo["rates", arm.label]


def matched_row(sampler: ArmData, reference: ArmData, metric: str,
                costs: Mapping[str, Mapping[str, Mapping]]) -> dict | None:
    """The sampler at the reference's budget on `metric`, or None when it is not cheaper or has no repeats."""
    budget = _budget(sampler, reference, metric, costs, {})
    if budget is None:
        return None
    values = budget[7]
    return _row(budget, compare_paired(per_problem_rates(reference.tallies), values, a=reference.label,
                                       b=sampler.label))


def _row(budget: Budget, comp: PairedComparison | PairedCore, paired: PairedArrays | None = None) -> dict | None:
    """The row of one budget; `paired` is `paired_arrays(reference's rates, values)` when already built and every
    problem of the reference has trials (then its common problems are the ones summed here, in the same order)."""
    sampler, reference, metric, r_cost, per_sample, k_exact, k, values, clipped, most = budget
    if comp.n == 0:
        return None
    if paired is not None and len(paired[0]) == comp.n:
        # the same problems in the same (sorted) order, the same floats: the sums below, without the lookups
        at_k, ref_rate = sum(paired[2].tolist()) / comp.n, sum(paired[1].tolist()) / comp.n
    else:
        common = sorted(set(values) & set(reference.tallies))
        at_k = sum(values[p] for p in common) / len(common)
        ref_rate = sum(reference.tallies[p].rate for p in common) / len(common)
    row = {
        "metric": metric,
        "sampler": sampler.label,
        "sampler_name": sampler.name or sampler.label,
        "reference": reference.label,
        "reference_name": reference.name or reference.label,
        "budget": r_cost,
        "cost_per_sample": per_sample,
        "k_exact": k_exact,
        "k": k,
        "max_samples": most,
        "clipped_problems": clipped,
        "n": comp.n,
        "sampler_pass_at_k": at_k,
        "reference_pass_rate": ref_rate,
        "delta_pp": comp.delta_pp,
        "ci_lo": comp.ci_lo,
        "ci_hi": comp.ci_hi,
        "p_wilcoxon": comp.p_wilcoxon,
        "note": comp.note,
    }
    row["sentence"] = sentence(row)
    return row


def sentence(row: Mapping) -> str:
    """'one-shot at the budget of multi (3,727 tokens = 9.4 samples): pass@5 (clipped ...) 75.0% vs 80.5%, ...'."""
    metric = row["metric"]
    shown_k = min(row["k"], row["max_samples"])
    clip = ""
    if row["clipped_problems"]:
        clip = (f"; the budget buys {row['k']} samples but {row['clipped_problems']} problem(s) have fewer, so "
                f"their pass@k is taken at all their samples")
    return (
        f"{row['sampler_name']} at the budget of {row['reference_name']} ({amount(row['budget'], metric)} "
        f"{UNITS[metric]} per trial = {row['k_exact']:.1f} samples of {amount(row['cost_per_sample'], metric)}): "
        f"pass@{shown_k} {100 * row['sampler_pass_at_k']:.1f}% against {100 * row['reference_pass_rate']:.1f}%, "
        f"{row['delta_pp']:+.1f} pp (95% CI {row['ci_lo']:+.1f} to {row['ci_hi']:+.1f}, Wilcoxon p = "
        f"{row['p_wilcoxon']:.3g}){clip}"
    )


def matched_budgets(arms: Sequence[ArmData], planned: Sequence[tuple[int, int]],
                    costs: Mapping[str, Mapping[str, Mapping]], metrics: Sequence[str] | None = None) -> list[dict]:
    """Every family pair where one arm has repeats and the other costs more, on tokens, calls and wall-clock."""
    memo: dict = {}
    budgets = [
        budget
        for metric in metrics or FRONTIER_METRICS.values()
        for i, j in planned
        for s, r in ((arms[i], arms[j]), (arms[j], arms[i]))
        if (budget := _budget(s, r, metric, costs, memo)) is not None
    ]
    # only the core of each comparison is shown (n, delta, CI, p, note): no majority outcomes or explanation
    inputs = [paired_arrays(_rates(b[1], memo), b[7]) for b in budgets]
    tests = wilcoxon_many([diffs for *_, diffs in inputs])
    means = row_stats([diffs for *_, diffs in inputs])
    comps = [paired_core(*args) for args in zip(inputs, tests, means, strict=True)]
    full = {a.label: all(t.trials for t in a.tallies.values()) for a in arms}  # rates cover every tally
    return [row for b, comp, paired in zip(budgets, comps, inputs, strict=True)
            if (row := _row(b, comp, paired if full[b[1].label] else None)) is not None]
