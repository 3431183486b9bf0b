"""The report's cost section (`StatsReport.cost_comparison`): cost per arm, paired cost differences, the
accuracy-cost frontier and matched-budget baselines, as typed models. Field order is the JSON key order."""

from __future__ import annotations

from pydantic import Field

from execugraph.stats.report_sections import Section


class CostInterval(Section):
    """One cost of one arm: mean per trial with its 95% CI over problems."""

    recorded: int
    """Trials that recorded it."""
    problems: int
    """Problems with a recorded value."""
    mean: float | None
    """Mean per trial (None when none recorded it)."""
    ci_lo: float | None
    """Lower end of the percentile bootstrap 95% CI (resampling problems; None below two problems)."""
    ci_hi: float | None
    """Upper end."""


class ArmCostCI(Section):
    """Every cost of one arm."""

    arm: str
    """The arm's label."""
    name: str
    """The arm's name."""
    metrics: dict[str, CostInterval]
    """tokens, tokens_in, tokens_out, llm_calls, wallclock_s -> its interval."""


class CostPair(Section):
    """The paired per-problem cost difference b - a of one comparison of the family, on one metric."""

    a: str
    """Label of arm a."""
    b: str
    """Label of arm b."""
    a_name: str
    """Name of arm a."""
    b_name: str
    """Name of arm b."""
    metric: str
    """tokens, tokens_in, tokens_out, llm_calls or wallclock_s."""
    n: int
    """Common problems where both recorded it."""
    a_mean: float | None
    """a's mean over those problems of its mean cost per trial."""
    b_mean: float | None
    """b's, likewise."""
    delta: float | None
    """Mean over problems of (b - a)."""
    ci_lo: float | None
    """Lower end of the 95% t-interval."""
    ci_hi: float | None
    """Upper end."""
    p_signed_rank: float | None
    """Two-sided Wilcoxon signed-rank p on the per-problem differences."""
    signed_rank_method: str
    """exact, asymptotic or none."""
    p_t: float | None
    """Two-sided paired t-test p (agrees with the interval)."""
    p_holm: float | None
    """Holm over the family's comparisons on this metric (adjusts p_signed_rank)."""
    note: str
    """Degenerate-input note."""
    no_spread: bool = False
    """Every common problem differs by the same amount: no interval (it would have no width), the sign is sure."""


class FrontierPoint(Section):
    """An arm on the accuracy-cost chart of one metric."""

    metric: str
    """The cost."""
    arm: str
    """The arm's label."""
    name: str
    """The arm's name."""
    pass_rate: float
    """Pass rate."""
    ci_lo: float | None
    """Its 95% CI, lower."""
    ci_hi: float | None
    """Upper."""
    cost: float
    """Mean cost per trial."""
    cost_ci_lo: float | None
    """Its 95% CI, lower."""
    cost_ci_hi: float | None
    """Upper."""
    dominated_by: list[str]
    """Names of the arms that dominate it."""
    on_frontier: bool
    """No arm dominates it."""


class Dominance(Section):
    """Arm `by` dominates arm `dominated` on `metric` (`stats.frontier`)."""

    metric: str
    """The cost."""
    dominated: str
    """Label of the dominated arm."""
    dominated_name: str
    """Its name."""
    by: str
    """Label of the dominating arm."""
    by_name: str
    """Its name."""
    n: int
    """Common problems of the accuracy comparison."""
    delta_pp: float
    """Accuracy of `by` minus `dominated`, pp."""
    ci_lo: float | None
    """Its 95% CI, lower."""
    ci_hi: float | None
    """Upper."""
    p_holm: float | None
    """Holm-adjusted accuracy p."""
    cost_n: int
    """Common problems of the cost comparison."""
    saving: float
    """Mean per-problem cost of `dominated` minus `by`."""
    saving_ci_lo: float | None
    """Its 95% t-interval, lower."""
    saving_ci_hi: float | None
    """Upper."""
    p_holm_cost: float
    """Holm-adjusted signed-rank p of the cost difference."""
    sentence: str
    """The finding in plain words."""


class MatchedBudget(Section):
    """A sampler's pass@k at a costlier arm's budget, paired against it (`stats.matched_budget`)."""

    metric: str
    """The cost the budget is matched on."""
    sampler: str
    """Label of the arm with several samples per problem."""
    sampler_name: str
    """Its name."""
    reference: str
    """Label of the costlier arm."""
    reference_name: str
    """Its name."""
    budget: float
    """The reference's mean cost per trial."""
    cost_per_sample: float
    """The sampler's mean cost per sample."""
    k_exact: float
    """budget / cost per sample."""
    k: int
    """floor(k_exact), at least 1."""
    max_samples: int
    """Most samples any problem has."""
    clipped_problems: int
    """Problems with fewer than k samples (their pass@k is taken at all their samples)."""
    n: int
    """Common problems."""
    sampler_pass_at_k: float
    """Mean per-problem pass@k of the sampler."""
    reference_pass_rate: float
    """Mean per-problem pass rate of the reference."""
    delta_pp: float
    """Sampler minus reference, pp."""
    ci_lo: float | None
    """Bootstrap 95% CI, lower."""
    ci_hi: float | None
    """Upper."""
    p_wilcoxon: float
    """Wilcoxon signed-rank p (not Holm-adjusted)."""
    note: str
    """Degenerate-input note."""
    sentence: str
    """The finding in plain words."""


class CostComparison(Section):
    """Cost as an outcome: per arm, per pair, the frontier and matched budgets (empty in older reports)."""

    metric: str = "tokens"
    """The cost the frontier is shown on by default (`stats --cost`)."""
    arms: list[ArmCostCI] = Field(default_factory=list)
    """Each arm's costs with intervals."""
    pairs: list[CostPair] = Field(default_factory=list)
    """Each comparison of the family on each metric."""
    frontier: list[FrontierPoint] = Field(default_factory=list)
    """Each arm on the tokens, LLM-calls and wall-clock charts."""
    dominance: list[Dominance] = Field(default_factory=list)
    """Which arm dominates which, per metric."""
    matched_budget: list[MatchedBudget] = Field(default_factory=list)
    """Samplers at costlier arms' budgets, per metric."""

    def for_metric(self, metric: str | None = None) -> tuple[list[FrontierPoint], list[Dominance], list[MatchedBudget]]:
        """The frontier points, dominance rows and matched budgets of one metric (default: the chosen one)."""
        m = metric or self.metric
        return ([p for p in self.frontier if p.metric == m], [d for d in self.dominance if d.metric == m],
                [b for b in self.matched_budget if b.metric == m])
