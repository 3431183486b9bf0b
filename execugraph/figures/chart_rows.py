"""The rows each chart reads (`execugraph.figures.charts`), as TypedDicts: plain dicts at run time.

Why: the charts are fed by the report's rows (`stats.report_rows`), by dumped report sections
(retry sweep, cost points), by reproduce's verdict-set numbers and by the Trace and Retrieval
pages; naming each shape here says which keys a caller must give. Rows of `stats.report_rows`
(`ArmRateRow`, `CategoryRow`, `ErrorRow`, `FamilyRow`) are used as they are.
"""

from __future__ import annotations

from typing import TypedDict

__all__ = ["CostPoint", "ForestRow", "MatrixPair", "RetrievalHit", "RetryPoint", "StepBar"]


class StepBar(TypedDict):
    """One agent step on the Trace timeline."""

    node: str  # the agent node that ran
    seq: int  # the step's number in the trial
    attempt: int  # the retry attempt it belongs to
    start_s: float  # seconds since the trial's first step
    duration_s: float | None  # how long it ran (None: not recorded)
    llm_calls: int  # LLM calls it made
    tokens_in: int  # prompt tokens
    tokens_out: int  # completion tokens
    cache_hits: int  # LLM calls answered from the cache


class ForestRow(TypedDict, total=False):
    """One comparison as a forest-plot point: a `report_rows.FamilyRow`, or a verdict set's numbers with a label."""

    label: str  # the row's name on the axis
    delta_pp: float  # b minus a, percentage points
    ci_lo: float | None  # 95% CI, lower end, pp
    ci_hi: float | None  # 95% CI, upper end, pp
    n: int  # problems compared
    p_holm: float | None  # Holm-adjusted p (pink below ALPHA)


class MatrixPair(TypedDict, total=False):
    """One comparison as a delta-matrix cell (a `report_rows.FamilyRow`)."""

    a: str  # the column arm's name
    b: str  # the row arm's name
    delta_pp: float  # b minus a, percentage points
    p_holm: float | None  # Holm-adjusted p (a star below ALPHA)


class RetryPoint(TypedDict, total=False):
    """One budget of a retry sweep (`RetryBudgetRow.model_dump()`)."""

    series: str  # the series the budget belongs to (benchmark, condition, model)
    retry_budget: int  # the retry budget
    arms: list[str]  # arm labels at this budget
    names: list[str]  # ... as pages name them
    graded: int | None  # graded trials (0: nothing to draw)
    pass_rate: float | None  # pooled pass rate in [0, 1]
    mean_llm_calls: float | None  # mean LLM calls per trial


class CostPoint(TypedDict, total=False):
    """One arm's cost against its pass rate (`CostAccuracyPoint.model_dump()`)."""

    arm: str  # the arm's label
    name: str  # the arm as pages name it
    pass_rate: float | None  # pooled pass rate in [0, 1] (None: no graded trials)
    graded: int  # graded trials, where known
    mean_llm_calls: float | None  # mean LLM calls per trial
    mean_tokens: float | None  # mean tokens per trial
    mean_wallclock_s: float | None  # mean seconds per trial


class RetrievalHit(TypedDict):
    """One retrieved technique and its similarity to the query."""

    rank: int  # 1 for the best
    name: str  # the technique
    score: float  # cosine similarity
