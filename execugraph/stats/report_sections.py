"""The per-run and per-arm sections of the statistics report (`report_model.StatsReport`), and their shared base.

Why a module of their own: a run's and an arm's sections (rates with CIs, pass@k, errors, sources,
retries, cost) are most of the report's shape; `report_model` holds the comparisons and the whole.
Field order is the JSON key order.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Section(BaseModel):
    """Frozen, closed, documented: a typo in a field name fails loudly instead of reading as missing."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class RateCI(Section):
    """A pooled pass rate with its 95% CI over problems (all None without trials: no data, not 0%)."""

    problems: int
    """Problems with at least one trial."""
    trials: int
    """Counted trials."""
    passed: int
    """Trials that passed."""
    pass_rate: float | None
    """passed / trials."""
    ci_lo: float | None
    """Lower end of the 95% Wilson score interval over problems (`stats.rates`)."""
    ci_hi: float | None
    """Upper end of that CI."""


class ConditionTally(Section):
    """A run's trials of one condition."""

    trials: int
    """Counted trials of the condition."""
    passed: int
    """Of them, passed."""
    pass_rate: float | None
    """passed / trials (None without trials)."""


class RunSection(Section):
    """One run of the report: its identity and its pooled pass rate over the arms drawn from it."""

    id: str
    """The run id (a bundle id in an export)."""
    title: str | None = None
    """The run's title as stored."""
    name: str = ""
    """Display name (`domain.run_names.run_name`); readers fall back to the title, then the id."""
    kind: str | None = None
    """The run's kind (batch, rescore, ...)."""
    model: str | None = None
    """The generator's model spec."""
    problems: int
    """Problems with trials."""
    trials: int
    """Counted trials."""
    passed: int
    """Passed trials."""
    pass_rate: float | None
    """Pooled pass rate."""
    ci_lo: float | None
    """Lower 95% CI bound of the pass rate."""
    ci_hi: float | None
    """Upper 95% CI bound of the pass rate."""
    categories: dict[str, RateCI] = Field(default_factory=dict)
    """Pass rate per problem category, categories sorted."""
    conditions: dict[str, ConditionTally] = Field(default_factory=dict)
    """Trials per condition, conditions sorted."""
    not_counted: dict[str, int] = Field(default_factory=dict)
    """Trials left out by status (queued, running, cancelled)."""


class PassAtK(Section):
    """One row of an arm's pass@k table (unbiased estimator)."""

    k: int
    """Samples drawn."""
    pass_at_k: float | None
    """Mean pass@k over the problems with at least k trials (None when none has)."""
    problems: int
    """Problems used."""
    skipped: int
    """Problems with fewer than k trials."""


class ErrorShare(Section):
    """Share of an arm's failed trials in one error class."""

    error_class: str
    """The error class ("unknown" when none was recorded)."""
    count: int
    """Failed trials of that class."""
    share: float
    """count / failed trials."""


class SourceShare(Section):
    """Trials graded (or fed back) by one source, and how they fared."""

    source: str
    """The test or feedback source."""
    trials: int
    """Trials from that source."""
    share: float
    """Share of the arm's trials."""
    passed: int
    """Of them, passed."""
    pass_rate: float
    """passed / trials."""


class RetriesUsed(Section):
    """Trials that used exactly `retries_used` retries."""

    retries_used: int
    """Retries the trials used."""
    trials: int
    """How many trials."""
    share: float
    """Share of the arm's trials."""
    passed: int
    """Of them, passed."""
    pass_rate: float
    """passed / trials."""


class MetricSummary(Section):
    """Mean, median and total of one cost metric over the trials that recorded it."""

    recorded: int
    """Trials that recorded the metric."""
    mean: float | None
    """Mean per recorded trial."""
    median: float | None
    """Median per recorded trial."""
    total: float | None
    """Sum over recorded trials (None when not finite, by the report's JSON rule)."""


class ArmCost(Section):
    """Per-trial cost of an arm (`stats.costs.cost_summary`)."""

    wallclock_s: MetricSummary
    """Wall-clock seconds."""
    tokens_in: MetricSummary
    """Prompt tokens."""
    tokens_out: MetricSummary
    """Completion tokens."""
    tokens: MetricSummary
    """tokens_in + tokens_out where both exist."""
    llm_calls: MetricSummary
    """LLM calls."""


class Ungraded(Section):
    """Trials of an arm that were never graded."""

    errors: int
    """Trials that ended in an error (counted as failures)."""
    unfinished: int
    """Trials not finished (left out)."""


class Agreement(Section):
    """How often repeated trials of a problem agreed."""

    problems: int
    """Problems with two or more trials."""
    all_passed: int
    """Of them, every trial passed."""
    all_failed: int
    """Of them, every trial failed."""
    min_trials: int
    """The fewest trials any problem with trials has."""


class ArmSection(Section):
    """One arm (a run, or one condition of a run): rates, pass@k, errors, sources, retries, cost."""

    label: str
    """Stable key of the arm in the report (run id, condition or run:condition)."""
    name: str = ""
    """Display name; readers fall back to the label."""
    run: str
    """The arm's run id."""
    condition: str | None = None
    """The arm's condition (None: the whole run)."""
    model: str | None = None
    """The generator's model spec."""
    benchmarks: list[str] = Field(default_factory=list)
    """Benchmarks its trials name, sorted."""
    retry_budget: int | None = None
    """The retry budget (None: unknown)."""
    best_of_n: int = 1
    """Samples per trial (1 unless best-of-N)."""
    problems: int
    """Problems with trials."""
    trials: int
    """Counted trials."""
    passed: int
    """Passed trials."""
    pass_rate: float | None
    """Pooled pass rate."""
    ci_lo: float | None
    """Lower 95% CI bound."""
    ci_hi: float | None
    """Upper 95% CI bound."""
    categories: dict[str, RateCI] = Field(default_factory=dict)
    """Pass rate per category, sorted."""
    pass_at_k: list[PassAtK] = Field(default_factory=list)
    """pass@k for the default k values."""
    errors: list[ErrorShare] = Field(default_factory=list)
    """Error taxonomy of failed trials, largest first."""
    test_sources: list[SourceShare] = Field(default_factory=list)
    """What graded the trials."""
    feedback_sources: list[SourceShare] = Field(default_factory=list)
    """What fed the retries."""
    retries_used: list[RetriesUsed] = Field(default_factory=list)
    """Trials by retries used."""
    cost: ArmCost
    """Per-trial cost."""
    not_counted: dict[str, int] = Field(default_factory=dict)
    """Trials left out by status."""
    ungraded: Ungraded | None = None
    """Trials never graded (None in reports written before it was recorded)."""
    flag: str | None = None
    """The warning shown wherever the arm is compared (None when every trial was graded)."""
    agreement: Agreement | None = None
    """Agreement of repeated trials (None in older reports)."""

    @property
    def shown(self) -> str:
        """The name a page shows: the arm's name, else its label."""
        return self.name or self.label

    @property
    def graded_trials(self) -> int:
        """Counted trials less those that ended in an error (never graded)."""
        return max(self.trials - (self.ungraded.errors if self.ungraded else 0), 0)
