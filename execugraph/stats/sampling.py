"""Sampling control: is a pipeline better than simply sampling the one-shot model N times?

A retry or multi-agent condition spends more LLM calls per problem than one-shot.
Two views of the fair control:
- `best_of_n_summary`: a best-of-N arm (condition `best-of-n`) drew N samples per
  trial; its pass@1 .. pass@N come from the samples each trial recorded;
- `best_of_n_control`: from plain one-shot trials, N = floor(reference calls per
  trial / one-shot calls per trial) and the unbiased pass@N over the one-shot trials
  of each problem (which needs at least N of them).
"""

from __future__ import annotations

import math

from execugraph.stats.costs import mean_calls
from execugraph.stats.passk import mean_pass_at_k, pass_at_k
from execugraph.stats.records import ArmData


def equal_budget_n(sampler_calls: float, reference_calls: float) -> int:
    """Samples the sampler can afford within the reference's calls per trial (at least 1)."""
    if sampler_calls <= 0:
        raise ValueError(f"sampler calls per trial must be > 0, got {sampler_calls}")
    return max(1, math.floor(reference_calls / sampler_calls + 1e-9))


def best_of_n_control(
    sampler: ArmData, reference: ArmData, *, sampler_calls: float | None = None, reference_calls: float | None = None
) -> dict | None:
    """pass@1 and pass@N of `sampler` at `reference`'s call budget, beside the reference's pass rate.

    Mean calls per trial are computed unless given. Returns None when either arm
    lacks recorded LLM calls. When some problems have
    fewer than N samples they are skipped (counted in `skipped`); with none left
    `pass_at_n` is None and the note says how many samples are needed.
    """
    s_calls = mean_calls(sampler) if sampler_calls is None else sampler_calls
    r_calls = mean_calls(reference) if reference_calls is None else reference_calls
    if not s_calls or r_calls is None:
        return None
    n = equal_budget_n(s_calls, r_calls)
    tallies = sorted(sampler.tallies.values(), key=lambda t: t.problem_id)  # fixed summation order
    p1, _, _ = mean_pass_at_k(tallies, 1)
    pn, used, skipped = mean_pass_at_k(tallies, n)
    ref_trials = reference.trials
    note = ""
    if pn is None:
        note = f"pass@{n} needs at least {n} samples per problem; the sampler has at most {max((t.trials for t in tallies), default=0)}"
    elif skipped:
        note = f"{skipped} problem(s) with fewer than {n} samples left out of pass@{n}"
    return {
        "sampler": sampler.label,
        "reference": reference.label,
        "sampler_calls_per_trial": s_calls,
        "reference_calls_per_trial": r_calls,
        "n": n,
        "pass_at_1": p1,
        "pass_at_n": pn,
        "problems": used,
        "skipped": skipped,
        "reference_pass_rate": reference.passed / ref_trials if ref_trials else 0.0,
        "note": note,
    }


def best_of_n_summary(arm: ArmData) -> dict | None:
    """pass@1 .. pass@N of a best-of-N arm, from the samples each trial drew.

    Each trial drew N one-shot samples and passes when any does, so the arm's
    trial pass rate is its pass@N. pass@k for k <= N is the unbiased estimator on
    each trial's (drawn, passed) counts, averaged over trials. None for arms that
    are not best-of-N or recorded no samples.
    """
    if arm.best_of_n <= 1 or not arm.samples:
        return None
    trials = sum(arm.samples.values())
    smallest = min(drawn for drawn, _ in arm.samples)
    curve = []
    for k in range(1, smallest + 1):
        total = sum(count * pass_at_k(drawn, passed, k) for (drawn, passed), count in sorted(arm.samples.items()))
        curve.append({"k": k, "pass_at_k": total / trials})
    counted = arm.trials
    return {
        "arm": arm.label,
        "n": arm.best_of_n,
        "trials_with_samples": trials,
        "pass_at_1": curve[0]["pass_at_k"],
        "pass_at_n": arm.passed / counted if counted else 0.0,
        "pass_at_k": curve,
        "mean_llm_calls": mean_calls(arm),
        "note": "" if smallest >= arm.best_of_n else f"some trials drew only {smallest} of {arm.best_of_n} samples",
    }
