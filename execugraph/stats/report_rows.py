"""Tables and chart rows cut from the statistics report (`execugraph.stats.build_report`).

The report is the single source of the numbers; these functions only reshape
it, so the Statistics and Ablations pages can never disagree with the CLI or
the exported summary. Arms are shown by their names (`execugraph.domain.run_names`);
`label` stays the stable key a report uses internally.
"""

from __future__ import annotations

from typing import Any, TypedDict

from execugraph.stats.report_model import StatsReport

REFERENCE_CONDITION = "multi-full"


class ArmRateRow(TypedDict):
    """One arm's pooled pass rate with its CI (a bar of the pass-rate chart)."""

    arm: str
    label: str
    pass_rate: float | None
    ci_lo: float | None
    ci_hi: float | None
    problems: int
    trials: int
    passed: int


class CategoryRow(TypedDict):
    """One arm's pass rate in one category."""

    arm: str
    category: str
    pass_rate: float | None
    ci_lo: float | None
    ci_hi: float | None
    trials: int


class ErrorRow(TypedDict):
    """One arm's failed trials of one error class."""

    arm: str
    error_class: str
    count: int
    share: float


class PassAtKRow(TypedDict):
    """One arm's pass@k at one k."""

    arm: str
    k: int
    pass_at_k: float | None
    problems: int
    skipped: int


# One comparison by arm name (delta b - a, pp): `comparison.PairedComparison.row()`, keys `comparison.ROW_KEYS`;
# the fields are declared once, on the comparison, not again here.
PairRow = dict[str, Any]
FamilyRow = PairRow  # ... with its forest-plot `label` added (`family_rows`)


class DeltaRow(TypedDict):
    """One arm against the reference arm (arm minus reference, pp)."""

    arm: str
    reference: str
    delta_pp: float
    ci_lo: float | None
    ci_hi: float | None
    n: int
    p_holm: float | None


def arm_rate_rows(report: StatsReport) -> list[ArmRateRow]:
    """Pass rate with its 95% CI for every arm, in report order."""
    return [
        {
            "arm": a.shown,
            "label": a.label,
            "pass_rate": a.pass_rate,
            "ci_lo": a.ci_lo,
            "ci_hi": a.ci_hi,
            "problems": a.problems,
            "trials": a.trials,
            "passed": a.passed,
        }
        for a in report.arms
    ]


def category_rows(report: StatsReport) -> list[CategoryRow]:
    """Pass rate with its CI per (arm, category)."""
    return [
        {
            "arm": a.shown,
            "category": cat,
            "pass_rate": r.pass_rate,
            "ci_lo": r.ci_lo,
            "ci_hi": r.ci_hi,
            "trials": r.trials,
        }
        for a in report.arms
        for cat, r in a.categories.items()
    ]


def error_rows(report: StatsReport) -> list[ErrorRow]:
    """Share of failed trials per error class and arm (the error taxonomy)."""
    return [
        {"arm": a.shown, "error_class": e.error_class, "count": e.count, "share": e.share}
        for a in report.arms
        for e in a.errors
    ]


def pass_at_k_rows(report: StatsReport) -> list[PassAtKRow]:
    """pass@k per arm and k (None where no problem has k trials)."""
    return [
        {
            "arm": a.shown,
            "k": r.k,
            "pass_at_k": r.pass_at_k,
            "problems": r.problems,
            "skipped": r.skipped,
        }
        for a in report.arms
        for r in a.pass_at_k
    ]


def pairs_table(report: StatsReport) -> list[PairRow]:
    """The family's paired comparisons by arm name: delta is b minus a in percentage points, CI, adjusted p."""
    return [c.row() for c in report.comparisons]


def excluded_rows(report: StatsReport) -> list[dict[str, str]]:
    """Pairs left out of the family, and why (different benchmarks, no common problem)."""
    return [{"a": x.a_name or x.a, "b": x.b_name or x.b, "reason": x.reason} for x in report.excluded]


def _is_reference(label: str, name: str, reference: str) -> bool:
    return reference in (label, name) or label.endswith(f":{reference}")


def deltas_against(report: StatsReport, reference: str = REFERENCE_CONDITION) -> list[DeltaRow]:
    """Each arm's delta against the reference arm (arm minus reference), oriented whichever way the pair was.

    `reference` may be an arm's label, name or condition.
    """
    rows: list[DeltaRow] = []
    for c in report.comparisons:
        a_ref, b_ref = _is_reference(c.a, c.a_shown, reference), _is_reference(c.b, c.b_shown, reference)
        if a_ref == b_ref:
            continue
        arm, against, delta, lo, hi = c.against(a_is_reference=a_ref)
        rows.append({"arm": arm, "reference": against, "delta_pp": delta, "ci_lo": lo, "ci_hi": hi, "n": c.n,
                     "p_holm": c.p_holm})
    return rows


def ungraded_flags(report: StatsReport) -> list[dict[str, str]]:
    """Arms with trials that were never graded (errors, unfinished), with the report's flag text."""
    return [{"arm": a.shown, "flag": a.flag} for a in report.arms if a.flag]


def family_rows(report: StatsReport) -> list[FamilyRow]:
    """The family as forest-plot rows, one per comparison, labelled 'b - a' (or just the arm against a baseline)."""
    baseline = report.family.is_baseline
    return [{**c.row(), "label": c.label(baseline)} for c in report.comparisons]


def method_lines(report: StatsReport) -> list[tuple[str, str]]:
    """The report's method notes as (what, how) in reading order, for a page to print as text."""
    titles = {
        "family": "Comparisons",
        "delta": "Delta",
        "ci": "Confidence interval of a delta",
        "rate_ci": "Confidence interval of a pass rate",
        "wilcoxon": "Wilcoxon signed-rank test",
        "mcnemar": "McNemar test",
        "holm": "Multiple comparisons",
        "majority_rule": "Solved (majority rule)",
        "categories": "Per-category comparisons",
        "sampling": "Sampling control",
    }
    method = report.method
    ordered = [k for k in titles if k in method] + sorted(k for k in method if k not in titles)
    return [(titles.get(k, k.replace("_", " ").capitalize()), str(method[k])) for k in ordered]
