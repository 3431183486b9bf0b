"""One paired comparison (arm b against arm a) as one frozen type, so its fields are declared once.

Why: the comparison's numbers used to be re-typed by the computation, the table writers, the report rows, the
Statistics view and the charts (issue 39). `paired` computes a `PairedComparison`; a report keeps it as JSON in
`report_model.PairSection` (the file format, with a docstring per field), and `PairSection.comparison` reads it back
as this type, which every table, row and chart renders from (`tables`, `report_rows`, `figures.report_figures`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

__all__ = ["PairedComparison", "ROW_KEYS", "ShownNames"]

# The keys of a comparison's row (`PairedComparison.row`), in the order tables and charts have always read them.
ROW_KEYS = ("a", "b", "n", "problems_differ", "majority_discordant", "delta_pp", "ci_lo", "ci_hi", "p_wilcoxon",
            "p_mcnemar", "p_holm", "p_holm_mcnemar", "note")
_NOT_IN_JSON = ("trials", "a_name", "b_name")  # `as_dict` leaves these out: the report adds the names itself


class ShownNames:
    """`a_shown`/`b_shown` for anything with `a`, `b`, `a_name` and `b_name` (this type and the report's section)."""

    @property
    def a_shown(self) -> str:
        """a's name, else its label."""
        return self.a_name or self.a  # type: ignore[attr-defined]

    @property
    def b_shown(self) -> str:
        """b's name, else its label."""
        return self.b_name or self.b  # type: ignore[attr-defined]


@dataclass(frozen=True)
class PairedComparison(ShownNames):
    """Result of comparing arm b against arm a (delta = b - a, percentage points), as computed and as rendered."""

    a: str  # label of arm a (the baseline in a baseline family)
    b: str  # label of arm b
    n: int  # common problems
    problems_differ: int  # pass rates differ at all: the paper's "Disc." (Wilcoxon's n)
    majority_discordant: int  # majority outcomes differ: McNemar's b + c
    delta_pp: float  # mean per-problem difference b - a, pp
    ci_lo: float | None  # Newcombe's paired 95% interval, lower end, pp (None in a report that lost it)
    ci_hi: float | None  # ... upper end
    p_wilcoxon: float  # Wilcoxon signed-rank p (the primary test)
    p_mcnemar: float  # exact McNemar p on majority outcomes
    wilcoxon_method: str  # exact, asymptotic or none
    p_holm: float | None = None  # Holm-adjusted p_wilcoxon over the family (None until adjusted)
    p_holm_mcnemar: float | None = None  # Holm-adjusted p_mcnemar
    a_only: list[str] = field(default_factory=list)  # solved (majority) by a, not by b
    b_only: list[str] = field(default_factory=list)  # solved (majority) by b, not by a
    note: str = ""  # degenerate-input note
    p_min_wilcoxon: float | None = 1.0  # smallest p the Wilcoxon test could give here (None in older reports)
    p_min_mcnemar: float | None = 1.0  # smallest exact McNemar p for b + c discordant problems
    explanation: str = ""  # what the numbers can and cannot say, in words (`paired.explain`)
    trials: int = 1  # fewest trials per problem and arm: sizes the power sentence (not part of the report)
    a_name: str | None = None  # display names (a report's; None while computing: pages fall back to the label)
    b_name: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The computed fields as the report's JSON holds them (lists copied), without `trials` and the names."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _NOT_IN_JSON}
        out["a_only"], out["b_only"] = list(self.a_only), list(self.b_only)
        return out

    @classmethod
    def from_section(cls, section: Any) -> PairedComparison:
        """A report's comparison (a `report_model.PairSection`, not imported: it imports this module) as this type."""
        return cls(**{f.name: getattr(section, f.name) for f in fields(cls) if f.name != "trials"})

    @property
    def ci(self) -> tuple[float | None, float | None]:
        """The 95% interval (lo, hi) in pp."""
        return self.ci_lo, self.ci_hi

    def row(self) -> dict[str, Any]:
        """The comparison as one table or chart row (`ROW_KEYS`), arms by name."""
        values = {**{k: getattr(self, k) for k in ROW_KEYS}, "a": self.a_shown, "b": self.b_shown}
        return {k: values[k] for k in ROW_KEYS}

    def label(self, baseline: bool) -> str:
        """Its name on a chart axis: the arm against a baseline, else 'b - a'."""
        return self.b_shown if baseline else f"{self.b_shown} - {self.a_shown}"

    def against(self, a_is_reference: bool) -> tuple[str, str, float, float | None, float | None]:
        """(arm, reference, delta, lo, hi) oriented as arm minus reference, whichever side the reference is."""
        if a_is_reference:
            return self.b_shown, self.a_shown, self.delta_pp, self.ci_lo, self.ci_hi
        return (self.a_shown, self.b_shown, -self.delta_pp, None if self.ci_hi is None else -self.ci_hi,
                None if self.ci_lo is None else -self.ci_lo)
