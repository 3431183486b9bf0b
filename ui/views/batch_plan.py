"""How big a batch is and what it can detect, shown on the Batch page before launch (paired power analysis)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from execugraph.batch.spec import check_grid
from ui.views.formatting import counted


@dataclass(frozen=True)
class BatchPlan:
    """How big a batch is and what it can detect, shown before launch."""

    problems: int
    conditions: int
    seeds: int
    trials_per_seed: int
    total_trials: int
    pairs: int
    mdd_pp: float | None
    mdd_holm_pp: float | None
    note: str
    baseline: float = 0.5

    def describe(self) -> str:
        """The plan in one paragraph (markdown), as the Batch page shows it before launch."""
        per_arm = self.seeds * self.trials_per_seed
        grid = (
            f"{counted(self.problems, 'problem')} x {counted(self.conditions, 'condition')} x "
            f"{counted(self.seeds, 'seed')} x {counted(self.trials_per_seed, 'trial')} = "
            f"**{counted(self.total_trials, 'trial')}**."
        )
        from execugraph.stats.power import power_sentence

        power = power_sentence(self.problems, per_arm)  # '' when there are problems enough for 20 pp
        power = f" {power[0].upper()}{power[1:]}." if power else ""
        if self.mdd_pp is None:
            return f"{grid} No improvement is reliably detectable ({self.note}).{power}"
        detect = (
            f"With {counted(per_arm, 'trial')} per problem and condition, the smallest improvement over a "
            f"{self.baseline:.0%} baseline it can detect (paired, 80% power, two-sided alpha 0.05) is "
            f"**{self.mdd_pp:.1f} percentage points**"
        )
        if self.pairs > 1 and self.mdd_holm_pp is not None:
            detect += f"; under Holm's correction over {self.pairs} comparisons the strictest step needs {self.mdd_holm_pp:.1f} pp"
        return f"{grid} {detect}.{power}"


def plan_batch(
    spec: Any, problems: list[Any], baseline: float, *, alpha: float = 0.05, power: float = 0.8
) -> BatchPlan:
    """Grid size and the minimum detectable difference (paired, per comparison and under Holm's strictest step)."""
    from execugraph.stats import minimum_detectable_difference

    chosen = spec.select(problems)
    k = len(spec.arms)  # with a model axis, each condition on each model
    pairs = k * (k - 1) // 2
    per_arm = len(spec.seeds) * spec.trials
    total = check_grid(len(chosen), k, len(spec.seeds), spec.trials)
    if len(chosen) < 2:
        return BatchPlan(
            len(chosen),
            k,
            len(spec.seeds),
            spec.trials,
            total,
            pairs,
            None,
            None,
            "a paired comparison needs at least 2 problems",
            baseline,
        )
    mdd = minimum_detectable_difference(len(chosen), per_arm, baseline, alpha=alpha, power=power)
    strict = minimum_detectable_difference(len(chosen), per_arm, baseline, alpha=alpha / max(1, pairs), power=power)
    return BatchPlan(
        len(chosen), k, len(spec.seeds), spec.trials, total, pairs, mdd.mdd_pp, strict.mdd_pp, mdd.note, baseline
    )


def sequential_plan_text(problems: int, per_arm: int, baseline: float, design: Any, comparisons: int) -> str:
    """What a sequential design is expected to save, under the planned difference and under none (simulated)."""
    from execugraph.sequential.plan import plan_text

    return plan_text(problems, per_arm, baseline, design, comparisons)
