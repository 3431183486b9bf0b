"""The statistics report as typed, frozen models: what `build_report` returns and every page, table and file reads.

Why: the report crosses every boundary of the project (CLI, dashboard, export, reproduction),
so its shape is stated once, here. Field order is the JSON key order: `StatsReport.to_json_dict()`
(and `model_dump(mode="json")`) gives exactly the dict written to `summary.json` and printed by
`stats --json`. `StatsReport.from_json` reads a report back from a file; fields that older
reports lack have defaults (the same ones the readers tolerated before the report was typed).
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field, model_serializer

from execugraph.domain.json_types import JsonObject
from execugraph.stats.comparison import PairedComparison, ShownNames
from execugraph.stats.cost_sections import CostComparison
from execugraph.stats.report_sections import (
    Agreement,
    ArmCost,
    ArmSection,
    ConditionTally,
    ErrorShare,
    MetricSummary,
    PassAtK,
    RateCI,
    RetriesUsed,
    RunSection,
    Section,
    SourceShare,
    Ungraded,
)
from execugraph.stats.sensitivity_sections import ProtocolSensitivity, SuiteSensitivity

REPORT_SCHEMA = 1
BASELINE_MODE = "baseline"  # `family.BASELINE`, repeated so this module imports nothing heavy
OPTIONAL_SECTIONS = ("protocol_sensitivity", "suite_sensitivity", "sequential")

__all__ = [
    "OPTIONAL_SECTIONS",
    "REPORT_SCHEMA",
    "Agreement",
    "ArmCost",
    "ArmNotInSweep",
    "ArmSection",
    "BestOfNSummary",
    "CategoryComparison",
    "ConditionTally",
    "ControlRow",
    "CostAccuracyPoint",
    "CostComparison",
    "EqualBudgetControl",
    "ErrorShare",
    "ExcludedPair",
    "FamilySection",
    "KPoint",
    "MetricSummary",
    "PairSection",
    "PassAtK",
    "RateCI",
    "RetriesUsed",
    "RetryBudgetRow",
    "RunSection",
    "SamplingSection",
    "SequentialRow",
    "SeriesNotASweep",
    "SourceShare",
    "StatsReport",
    "Ungraded",
]


class CategoryComparison(Section):
    """One category of a paired comparison (`stats.category_pairs`)."""

    category: str
    """The category."""
    n: int
    """Common problems of the category."""
    problems_differ: int
    """Of them, with different pass rates."""
    a_rate: float
    """Arm a's mean per-problem rate."""
    b_rate: float
    """Arm b's mean per-problem rate."""
    delta_pp: float
    """b - a in percentage points."""
    p_wilcoxon: float
    """Two-sided Wilcoxon signed-rank p."""
    wilcoxon_method: str
    """exact, asymptotic or none."""
    p_holm: float | None = None
    """Holm over the categories of this comparison."""


class PairSection(Section, ShownNames):
    """One paired comparison of the family: delta = b - a over the common problems (`stats.paired`)."""

    a: str
    """Label of arm a (the baseline in a baseline family)."""
    b: str
    """Label of arm b."""
    n: int
    """Common problems."""
    problems_differ: int
    """Problems whose pass rates differ (Wilcoxon's n)."""
    majority_discordant: int
    """Problems whose majority outcome differs (McNemar's b + c)."""
    delta_pp: float
    """Mean per-problem difference, percentage points."""
    ci_lo: float | None
    """Lower end of Newcombe's 95% interval (method 10), pp."""
    ci_hi: float | None
    """Upper end of that interval, pp."""
    p_wilcoxon: float
    """Wilcoxon signed-rank p."""
    p_mcnemar: float
    """Exact McNemar p."""
    wilcoxon_method: str
    """exact, asymptotic or none."""
    p_holm: float | None = None
    """Holm-adjusted p_wilcoxon over the family."""
    p_holm_mcnemar: float | None = None
    """Holm-adjusted p_mcnemar over the family."""
    a_only: list[str] = Field(default_factory=list)
    """Problems solved (majority) by a only."""
    b_only: list[str] = Field(default_factory=list)
    """Problems solved (majority) by b only."""
    note: str = ""
    """Degenerate-input note."""
    p_min_wilcoxon: float | None = None
    """Smallest attainable Wilcoxon p (None in reports written before it existed)."""
    p_min_mcnemar: float | None = None
    """Smallest attainable McNemar p (None in older reports)."""
    explanation: str = ""
    """What the numbers can and cannot say, in words."""
    a_name: str | None = None
    """Display name of a; readers fall back to the label."""
    b_name: str | None = None
    """Display name of b."""
    ungraded_arms: list[str] = Field(default_factory=list)
    """Labels of a and b that have ungraded trials."""
    categories: list[CategoryComparison] = Field(default_factory=list)
    """The comparison per category."""

    @property
    def comparison(self) -> PairedComparison:
        """This comparison as the one typed model the tables, rows and charts render (`stats.comparison`)."""
        return PairedComparison.from_section(self)


class ExcludedPair(Section):
    """A pair listed apart from the family, and why."""

    a: str
    """Label of arm a."""
    b: str
    """Label of arm b."""
    a_name: str | None = None
    """Name of arm a."""
    b_name: str | None = None
    """Name of arm b."""
    reason: str
    """Why it is not compared."""


class FamilySection(Section):
    """Which comparisons the report tests (`stats.family.describe`)."""

    mode: str = "all pairs"
    """all pairs, baseline or chosen pairs."""
    baseline: str | None = None
    """The baseline arm's label."""
    baseline_name: str | None = None
    """The baseline arm's name."""
    comparable_only: bool = True
    """Whether cross-benchmark pairs are left out."""
    comparisons: int = 0
    """Pairs in the family (Holm's m)."""
    excluded: int = 0
    """Pairs listed apart."""

    @property
    def is_baseline(self) -> bool:
        """Every comparison is an arm against one baseline."""
        return self.mode == BASELINE_MODE


class RetryBudgetRow(Section):
    """One budget of one retry-sweep series (`stats.retries`)."""

    series: str = ""
    """benchmark · condition (· model)."""
    benchmark: str = ""
    """Benchmark(s), '+'-joined ('' unrecorded)."""
    condition: str = ""
    """Condition family (budget suffix stripped)."""
    model: str | None = None
    """Generator model."""
    retry_budget: int
    """The budget."""
    arms: list[str]
    """Labels of the arms pooled at this budget."""
    names: list[str] = Field(default_factory=list)
    """Their names."""
    conditions: list[str] = Field(default_factory=list)
    """Their conditions."""
    trials: int
    """Counted trials."""
    graded: int | None = None
    """Graded trials (None in older reports: all counted ones)."""
    passed: int
    """Passed trials."""
    pass_rate: float | None
    """passed / trials."""
    mean_retries_used: float | None = None
    """Mean retries per trial."""
    mean_llm_calls: float | None
    """Pooled mean LLM calls per trial."""
    mean_tokens: float | None
    """Pooled mean tokens per trial."""
    mean_wallclock_s: float | None
    """Pooled mean wall-clock seconds per trial."""

    @property
    def graded_or_trials(self) -> int:
        """Graded trials, or the counted ones where an older report did not say."""
        return self.trials if self.graded is None else self.graded


class SeriesNotASweep(Section):
    """A series with fewer than two budgets that have graded trials."""

    series: str
    """benchmark · condition (· model)."""
    benchmark: str
    """Benchmark(s)."""
    condition: str
    """Condition family."""
    model: str | None
    """Generator model."""
    retry_budgets: list[int]
    """Its budgets."""
    arms: list[str]
    """Labels of its arms."""
    names: list[str]
    """Their names."""
    note: str
    """Why it is not a sweep."""


class ArmNotInSweep(Section):
    """An arm in no series (no graded trials, or no single condition)."""

    arms: list[str]
    """The arm's label."""
    names: list[str]
    """Its name."""
    note: str
    """Why."""


class CostAccuracyPoint(Section):
    """One arm on the cost-versus-accuracy chart."""

    arm: str
    """The arm's label."""
    pass_rate: float | None
    """Its pass rate (None without trials)."""
    mean_llm_calls: float | None
    """Mean LLM calls per trial."""
    mean_tokens: float | None
    """Mean tokens per trial."""
    mean_wallclock_s: float | None
    """Mean wall-clock seconds per trial."""
    name: str
    """The arm's name."""


class KPoint(Section):
    """pass@k of a best-of-N arm at one k."""

    k: int
    """Samples."""
    pass_at_k: float
    """Unbiased pass@k."""


class BestOfNSummary(Section):
    """pass@1 .. pass@N of a best-of-N arm from the samples its trials recorded."""

    arm: str
    """The arm's label."""
    n: int
    """N."""
    trials_with_samples: int
    """Trials that recorded samples."""
    pass_at_1: float
    """pass@1."""
    pass_at_n: float
    """pass@N (the trial pass rate)."""
    pass_at_k: list[KPoint]
    """The curve, k = 1 .. smallest N drawn."""
    mean_llm_calls: float | None
    """Mean LLM calls per trial."""
    note: str
    """Caveat ('' when every trial drew N)."""
    name: str
    """The arm's name."""


class EqualBudgetControl(Section):
    """A one-shot arm sampled N times at a costlier arm's call budget (`sampling.best_of_n_control`)."""

    sampler: str
    """The one-shot arm's label."""
    reference: str
    """The costlier arm's label."""
    sampler_calls_per_trial: float | None
    """Mean calls per sampler trial."""
    reference_calls_per_trial: float | None
    """Mean calls per reference trial."""
    n: int
    """Samples affordable."""
    pass_at_1: float | None
    """Sampler pass@1."""
    pass_at_n: float | None
    """Sampler pass@N (None when no problem has N samples)."""
    problems: int
    """Problems used for pass@N."""
    skipped: int
    """Problems with fewer than N samples."""
    reference_pass_rate: float
    """The reference's pass rate."""
    note: str
    """Caveat."""
    sampler_name: str
    """The sampler's name."""
    reference_name: str
    """The reference's name."""


class ControlRow(Section):
    """One row of the sampling control (`sampling.control_row`)."""

    arm: str
    """The arm's label."""
    kind: str
    """best-of-N, one-shot, retry, multi-agent or unknown."""
    n: int | None
    """N (None below 2)."""
    pass_at_1: float | None
    """pass@1."""
    pass_at_n: float | None
    """pass@N."""
    problems: int
    """Problems with trials."""
    agree_problems: int
    """Problems with two or more samples."""
    agree: int | None
    """Of them, where every sample agreed."""
    agree_share: float | None
    """agree / agree_problems."""
    calls_per_attempt: float | None
    """LLM calls per sample or attempt."""
    calls_for_pass_at_n: float | None
    """LLM calls pass@N costs."""
    source: str
    """Where the samples come from."""
    name: str
    """The arm's name."""


class SamplingSection(Section):
    """Is a pipeline better than sampling the one-shot model N times?"""

    best_of_n: list[BestOfNSummary] = Field(default_factory=list)
    """Best-of-N arms' pass@k curves."""
    equal_budget: list[EqualBudgetControl] = Field(default_factory=list)
    """One-shot arms at costlier arms' budgets."""
    control: list[ControlRow] = Field(default_factory=list)
    """The sampling control, one row per arm with trials."""


class SequentialRow(Section):
    """One comparison of a sequential batch at its latest look (`sequential.summary.report_section`)."""

    run: int
    """The batch run."""
    comparison: str
    """arm vs baseline."""
    decision: str
    """continue, or why it stopped."""
    look: str | None
    """'i of n'."""
    problems: int | None
    """Problems at that look."""
    planned: int | None
    """Problems planned."""
    delta: float | None
    """Delta in percentage points."""
    ci: tuple[float, float] | None
    """Repeated 95% CI, pp."""
    p_repeated: float | None
    """Repeated (adjusted) p."""
    saved_trials: int
    """Trials the stop saved."""
    lines: list[str]
    """The batch's state in words."""


class StatsReport(Section):
    """The whole report (`stats.report.report_from_arms`), in the key order of its JSON."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", use_attribute_docstrings=True, serialize_by_alias=True, validate_by_name=True
    )

    report_schema: int = Field(default=REPORT_SCHEMA, alias="schema")
    """Version of this shape (`schema` in JSON)."""
    conditions: list[str] | None = None
    """The conditions asked for (None: all)."""
    family: FamilySection = Field(default_factory=FamilySection)
    """The family of comparisons."""
    runs: list[RunSection] = Field(default_factory=list)
    """The runs, in request order."""
    arms: list[ArmSection] = Field(default_factory=list)
    """The arms, in report order."""
    pairs: list[PairSection] = Field(default_factory=list)
    """The family's comparisons, Holm-adjusted over exactly these."""
    excluded: list[ExcludedPair] = Field(default_factory=list)
    """Pairs listed apart."""
    retry_budgets: list[RetryBudgetRow] = Field(default_factory=list)
    """The retry sweep's rows."""
    retry_budget_missing: list[SeriesNotASweep | ArmNotInSweep] = Field(default_factory=list)
    """Series and arms that are not a sweep, and why."""
    unknown_budget: list[str] = Field(default_factory=list)
    """Labels of arms whose retry budget is unknown."""
    cost_vs_accuracy: list[CostAccuracyPoint] = Field(default_factory=list)
    """Pass rate against mean cost, per arm."""
    sampling: SamplingSection = Field(default_factory=SamplingSection)
    """The sampling control."""
    cost_comparison: CostComparison = Field(default_factory=CostComparison)
    """Cost as an outcome: per arm, per pair, the accuracy-cost frontier and matched budgets (`stats.cost_report`)."""
    method: dict[str, str] = Field(default_factory=dict)
    """How each number was computed, in words (free text by topic)."""
    protocol_sensitivity: ProtocolSensitivity | None = None
    """The family under both grading protocols (`verdicts.sensitivity`; added by the CLI and the export)."""
    suite_sensitivity: SuiteSensitivity | None = None
    """The family under amplified tests (`verdicts.suite_sensitivity`; added by the CLI once a run was rescored)."""
    sequential: list[SequentialRow] | None = None
    """Sequential batches' stops (added by the CLI for sequential batches)."""

    @model_serializer(mode="wrap")
    def _without_absent_sections(self, handler: Any) -> Any:
        """Leave the optional sections out of the JSON when absent, as the report dict never had them."""
        data = handler(self)
        for key in OPTIONAL_SECTIONS:
            if data.get(key) is None:
                data.pop(key, None)
        return data

    @classmethod
    def from_json(cls, data: JsonObject) -> StatsReport:
        """A report read back from a file (`summary.json`, a bundle); older reports get the defaults."""
        return cls.model_validate(data)

    def to_json_dict(self) -> JsonObject:
        """The report as the JSON object written to files and printed (same keys, order and values as ever)."""
        return self.model_dump(mode="json")

    def with_sections(self, **sections: Any) -> StatsReport:
        """A copy with optional sections added (`protocol_sensitivity`, `suite_sensitivity`, `sequential`)."""
        unknown = set(sections) - set(OPTIONAL_SECTIONS)
        if unknown:
            raise ValueError(f"not an optional report section: {', '.join(sorted(unknown))}")
        return self.model_copy(update=sections)

    @property
    def comparisons(self) -> list[PairedComparison]:
        """The family's comparisons as the typed model every table, row and chart renders, in report order."""
        return [p.comparison for p in self.pairs]

    @property
    def arm_names(self) -> dict[str, str]:
        """arm label -> the name a page shows."""
        return {a.label: a.shown for a in self.arms}
