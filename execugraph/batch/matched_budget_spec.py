"""What `batch --match-budget CHEAP=COSTLY[:measure]` asks for and what was planned (`batch.matched_plan` plans it).

Kept apart from the planner so the batch spec can hold it without importing the store or the planner.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Measure = Literal["tokens", "calls", "time", "model-time"]
MEASURES: tuple[str, ...] = ("tokens", "calls", "time", "model-time")
STATS_COST = {"tokens": "tokens", "calls": "calls", "time": "wallclock", "model-time": "model-time"}  # `stats --cost`
UNITS = {"tokens": "tokens", "calls": "LLM calls", "time": "s wall-clock", "model-time": "s model time"}


class MatchedBudgetPlan(BaseModel):
    """What `--match-budget` asked for and, once queued, what was planned and why (kept in the run config)."""

    model_config = ConfigDict(extra="forbid")

    cheap: str  # the arm that gets several samples per problem
    costly: str  # the arm whose budget per trial it is matched to
    measure: Measure = "tokens"
    cheap_cost: float | None = None  # stored mean cost per sample of `cheap`
    costly_cost: float | None = None  # stored mean cost per trial of `costly`
    history_trials: dict[str, int] = Field(default_factory=dict)  # arm -> stored done trials the costs rest on
    history_runs: list[int] = Field(default_factory=list)
    samples: int | None = None  # samples per problem `cheap` gets (None: not planned yet)
    needed: int | None = None  # samples the budget would want with the margin, before the cap
    samples_per_trial: float = 1.0  # samples one trial of `cheap` draws (a best-of-N arm's recorded N), as stats counts
    extra_seeds: list[int] = Field(default_factory=list)  # seeds only `cheap` runs
    text: str = ""  # the plan in words

    @property
    def stats_cost(self) -> str:
        """The `stats --cost` word of the measure."""
        return STATS_COST[self.measure]


def parse_match_budget(text: str) -> MatchedBudgetPlan:
    """`CHEAP=COSTLY[:tokens|calls|time|model-time]` -> an unplanned MatchedBudgetPlan; ValueError otherwise."""
    pair, measure = text.strip(), "tokens"
    head, sep, tail = pair.rpartition(":")
    if sep and tail in MEASURES:
        pair, measure = head, tail
    cheap, eq, costly = pair.partition("=")
    if not eq or not cheap.strip() or not costly.strip():
        raise ValueError(f"--match-budget {text!r}: use CHEAP=COSTLY[:{'|'.join(MEASURES)}], "
                         "e.g. single-oneshot=multi-full:tokens")
    return MatchedBudgetPlan(cheap=cheap.strip(), costly=costly.strip(), measure=measure)  # type: ignore[arg-type]


def check_plan(plan: MatchedBudgetPlan, arms: list[str]) -> None:
    """Both arms must be arms of the batch, and different."""
    for name in (plan.cheap, plan.costly):
        if name not in arms:
            raise ValueError(f"match_budget: {name!r} is not one of the batch's conditions ({', '.join(arms)})")
    if plan.cheap == plan.costly:
        raise ValueError("match_budget: the cheaper and the costlier condition must differ")
