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

from execugraph.stats.budgets import ran_retries
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


BEST_OF_N, ONE_SHOT, RETRY, MULTI_AGENT, UNKNOWN_KIND = "best-of-N", "one-shot", "retry", "multi-agent", "unknown"


def arm_kind(arm: ArmData, condition: str | None) -> str:
    """What an arm spends its calls on: sampling (best-of-N), one shot, a retry loop, or the multi-agent pipeline."""
    if arm.best_of_n > 1:
        return BEST_OF_N
    if condition and condition.split("@", 1)[0].startswith("multi-"):
        return MULTI_AGENT
    retried = ran_retries(condition, arm.retry_budget, arm.retries_used)
    if retried is None:
        return UNKNOWN_KIND
    return RETRY if retried else ONE_SHOT


def _agreement(per_problem: list[tuple[int, int]]) -> tuple[int, int]:
    """(problems with two or more samples, how many of them had every sample agree: all passed or all failed)."""
    repeated = [(n, c) for n, c in per_problem if n >= 2]
    return len(repeated), sum(1 for n, c in repeated if c in (0, n))


def control_row(arm: ArmData, kind: str, calls_per_trial: float | None) -> dict:
    """One row of the sampling control: pass@1 and pass@N, agreement, and what each costs in LLM calls.

    Three shapes of data give the same row:
    - a best-of-N arm whose trials recorded their N samples (ours): pass@1 from the
      samples, pass@N the trial pass rate, a trial's calls buy N samples;
    - a best-of-N arm with one sample per trial (published logs): N trials per
      problem are its samples, pass@k by the unbiased estimator, N trials buy pass@N;
    - any other arm: one attempt (its calls per trial) buys pass@1, its pass rate;
      with repeated trials, N is the fewest trials a problem has and pass@N is
      what N attempts buy.
    `calls_for_pass_at_n` is therefore comparable across rows: best-of-5 at its
    five samples beside single-retry and multi-agent at their observed calls.
    """
    tallies = sorted((t for t in arm.tallies.values() if t.trials), key=lambda t: t.problem_id)
    if kind == BEST_OF_N and arm.problem_samples:
        summary = best_of_n_summary(arm)
        n = arm.best_of_n
        p1 = summary["pass_at_1"] if summary else None
        pn = arm.passed / arm.trials if arm.trials else None
        problems, agree = _agreement(list(arm.problem_samples.values()))
        per_attempt = calls_per_trial / n if calls_per_trial is not None else None
        for_n = calls_per_trial
        source = "samples recorded per trial"
    else:
        fewest = min((t.trials for t in tallies), default=0)
        n = arm.best_of_n if kind == BEST_OF_N else fewest
        p1 = mean_pass_at_k(tallies, 1)[0]
        pn = mean_pass_at_k(tallies, n)[0] if n >= 2 else None
        problems, agree = _agreement([(t.trials, t.passed) for t in tallies])
        per_attempt = calls_per_trial
        for_n = calls_per_trial * n if calls_per_trial is not None and n >= 2 else None
        source = "one sample per trial" if kind == BEST_OF_N else "trials"
    return {
        "arm": arm.label,
        "kind": kind,
        "n": n if n >= 2 else None,
        "pass_at_1": p1,
        "pass_at_n": pn,
        "problems": len(tallies),
        "agree_problems": problems,
        "agree": agree if problems else None,
        "agree_share": agree / problems if problems else None,
        "calls_per_attempt": per_attempt,
        "calls_for_pass_at_n": for_n,
        "source": source,
    }
