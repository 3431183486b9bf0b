"""Simulated paired studies under a sequential design: what it would save, and its error rates.

The model is the Batch form's MDD model (`execugraph.stats.power`): every problem passes with
`p0` in the baseline and `p0 + effect` in the compared arm, trials independent. Used before
launch (the form's expected savings) and by `bench/sequential.py` (error rates against the
fixed design, which tests the full data once with the same statistic at the same level).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from execugraph.sequential.design import SequentialDesign
from execugraph.sequential.rule import EFFICACY, first_stop, score_z


@dataclass(frozen=True)
class Simulated:
    fixed_rejects: float  # share of studies the fixed design calls significant
    sequential_rejects: float
    trials_used: float  # mean share of the planned trials the sequential design ran


def simulate(problems: int, trials: int, p0: float, effect: float, *, design: SequentialDesign, mdd: float,
             comparisons: int = 1, simulations: int = 2000, rng: np.random.Generator | None = None) -> Simulated:
    """`simulations` paired studies of `problems` x `trials` per arm under this effect."""
    if not 0 <= p0 <= 1 or not 0 <= p0 + effect <= 1:
        raise ValueError(f"pass rates {p0} and {p0 + effect} must lie in [0, 1]")
    rng = rng or np.random.default_rng(0)
    a = rng.binomial(trials, p0, size=(simulations, problems)) / trials
    b = rng.binomial(trials, p0 + effect, size=(simulations, problems)) / trials
    crit = norm.ppf(1 - design.alpha / max(1, comparisons) / 2)
    fixed = sequential = 0
    used = 0.0
    for row in (b - a).tolist():
        fixed += abs(score_z(row)) >= crit
        stop = first_stop(row, design=design, mdd=mdd, comparisons=comparisons)
        sequential += stop.decision == EFFICACY
        used += stop.problems / problems
    return Simulated(float(fixed) / simulations, float(sequential) / simulations, used / simulations)


def expected_savings(problems: int, trials: int, baseline: float, *, design: SequentialDesign, mdd: float,
                     comparisons: int = 1, simulations: int = 300, seed: int = 0) -> dict[str, float]:
    """Share of trials a comparison is expected to save under the planned effect (the MDD) and under none."""
    rng = np.random.default_rng(seed)
    effect = min(mdd, 1.0 - baseline)
    under = simulate(problems, trials, baseline, effect, design=design, mdd=mdd, comparisons=comparisons,
                     simulations=simulations, rng=rng)
    null = simulate(problems, trials, baseline, 0.0, design=design, mdd=mdd, comparisons=comparisons,
                    simulations=simulations, rng=rng)
    return {"saved_under_effect": 1 - under.trials_used, "saved_under_null": 1 - null.trials_used,
            "power": under.sequential_rejects, "fixed_power": under.fixed_rejects}
