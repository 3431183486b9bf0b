"""Typed result of the comparison engine (`verdicts.compare.compare_verdict_sets`).

Why: the sensitivity tables and reproduce read the same pairs and conclusions; typed, a
misspelt key fails loudly. Its JSON leaves the full reports out.
"""

from __future__ import annotations

from pydantic import Field

from execugraph.domain.json_types import JsonObject
from execugraph.stats.report_model import CategoryComparison, ExcludedPair, StatsReport
from execugraph.stats.report_sections import Section
from execugraph.stats.sensitivity_sections import Conclusion, PairValues

__all__ = ["ComparedPair", "VerdictSetComparison"]


class ComparedPair(Section):
    """One pair of the family under every verdict set (`compare_verdict_sets`)."""

    a: str
    """Arm a's label."""
    b: str
    """Arm b's label."""
    a_name: str | None
    """Arm a as pages name it."""
    b_name: str | None
    """Arm b as pages name it."""
    by_set: dict[str, PairValues]
    """verdict set -> the pair's numbers under it."""
    conclusion: dict[str, Conclusion]
    """verdict set -> the conclusion it supports."""
    survives: dict[str, bool]
    """verdict set (not the reference) -> same conclusion as the reference set."""
    same_conclusion: bool
    """Every set supports the same conclusion."""
    categories: dict[str, list[CategoryComparison]]
    """verdict set -> the pair's per-category rows."""


class VerdictSetComparison(Section):
    """The family under every verdict set, pair by pair (the first set is the reference)."""

    sets: list[str]
    """Verdict set names, in order."""
    reference: str
    """The reference set (the first)."""
    reports: dict[str, StatsReport] = Field(exclude=True)
    """verdict set -> the full report under it (never in the JSON)."""
    pairs: list[ComparedPair]
    """The family's pairs."""
    excluded: list[ExcludedPair]
    """Pairs listed apart under the reference set."""
    holm_family_size: dict[str, int]
    """verdict set -> Holm's m."""
    alpha: float
    """The significance level."""

    def as_dict(self) -> JsonObject:
        """Everything but the reports, as the plain dict a JSON file (reproduce.json) is built from."""
        return self.model_dump()
