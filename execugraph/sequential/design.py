"""What a sequential batch plans: when to look, at which level, and when to give up.

Looks fall at equal shares of the problems (every 10% by default), so the information
fraction of look k is the share of problems whose every arm has finished. Efficacy
boundaries come from a Lan-DeMets alpha-spending function (`execugraph.stats.group_sequential`),
two-sided; with several arms against one baseline each comparison gets alpha / m (Bonferroni),
so the family's error rate stays at most alpha whatever the comparisons' correlation and
whenever each one stops. Futility is non-binding, so it can only lower the type-I error.
Two rules, by name (`rule`):

- `hsd-trend` (new batches): Hwang-Shih-DeCani spending with gamma = -2, and futility when the
  predictive power of the observed trend falls below `futility` (default 0.04); interim
  efficacy looks use a half continuity correction (`rule.corrected_z`);
- `obf-mdd` (batches planned before it; kept so their stored plans replay identically):
  O'Brien-Fleming-type spending, and futility when the conditional power under the planned
  minimum detectable difference falls below `futility` (default 0.10).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SequentialRule = Literal["hsd-trend", "obf-mdd"]
DEFAULT_RULE: SequentialRule = "hsd-trend"
OLD_RULE: SequentialRule = "obf-mdd"  # what a stored plan without a `rule` used
DEFAULT_FUTILITY = {"hsd-trend": 0.04, "obf-mdd": 0.10}
HSD_GAMMA = -2.0


class SequentialDesign(BaseModel):
    """A sequential batch's plan; stored with the batch spec."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    looks: int = Field(default=10, ge=2, le=50)  # equally spaced, the last at every problem
    alpha: float = Field(default=0.05, gt=0, lt=0.5)  # two-sided, for the whole family of comparisons
    # the smallest pass-rate difference worth finding, as a fraction (0.15 = 15 pp); None: the batch's
    # planned MDD (80% power at a 50% baseline, the figure the Batch form shows)
    mdd: float | None = Field(default=None, gt=0, le=1)
    # stop for futility below this predictive (hsd-trend) or conditional (obf-mdd) power; 0: never; None: the rule's
    futility: float | None = Field(default=None, ge=0, lt=1)
    baseline: str | None = None  # the condition the others are compared to; None: the first listed
    rule: SequentialRule = DEFAULT_RULE

    @property
    def futility_threshold(self) -> float:
        """`futility`, or the rule's default (0.04 predictive power for hsd-trend, 0.10 conditional for obf-mdd)."""
        return DEFAULT_FUTILITY[self.rule] if self.futility is None else self.futility

    def spending(self) -> Callable[[float, float], float]:
        """The rule's alpha-spending function spent(t, alpha)."""
        from execugraph.stats.group_sequential import hsd_spent, obf_spent

        if self.rule == "hsd-trend":
            return lambda t, a: hsd_spent(t, a, HSD_GAMMA)
        return obf_spent

    def look_sizes(self, problems: int) -> list[int]:
        """Problems finished at each look: ceil(k N / K), duplicates dropped, the last N."""
        if problems < 1:
            raise ValueError("a sequential batch needs at least one problem")
        sizes = sorted({max(1, math.ceil(k * problems / self.looks)) for k in range(1, self.looks + 1)})
        return sizes

    def boundaries(self, problems: int, comparisons: int) -> list[float]:
        """The |z| each look's statistic must reach, at level alpha / comparisons, two-sided."""
        sizes = self.look_sizes(problems)
        return list(_boundaries(tuple(n / problems for n in sizes), self.alpha / max(1, comparisons), self.rule))

    def resolved_mdd(self, problems: int, trials_per_arm: int) -> float:
        """`mdd`, or the planned batch's minimum detectable difference at a 50% baseline."""
        if self.mdd is not None:
            return self.mdd
        if problems < 2:
            return 0.5
        from execugraph.stats.power import minimum_detectable_difference

        found = minimum_detectable_difference(problems, max(1, trials_per_arm), 0.5, alpha=self.alpha)
        return 0.5 if found.mdd_pp is None else found.mdd_pp / 100.0


@lru_cache(maxsize=256)
def _boundaries(fractions: tuple[float, ...], alpha: float, rule: SequentialRule = OLD_RULE) -> tuple[float, ...]:
    from execugraph.stats.group_sequential import obf_boundaries  # numpy and scipy only when a look is taken

    spent = SequentialDesign(rule=rule).spending()
    return tuple(obf_boundaries(list(fractions), alpha, two_sided=True, spent=spent))
