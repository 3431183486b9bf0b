"""Tables and chart rows cut from the statistics report (`execugraph.stats.build_report`).

The report is the single source of the numbers; these functions only reshape
it, so the Statistics and Ablations pages can never disagree with the CLI or
the exported summary. Arms are shown by their names (`execugraph.domain.run_names`);
`label` stays the stable key a report uses internally.
"""

from __future__ import annotations

from typing import TypedDict

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


class PairRow(TypedDict):
    """One comparison by arm name (delta b - a, pp)."""

    a: str
    b: str
    n: int
    problems_differ: int
    majority_discordant: int
    delta_pp: float
    ci_lo: float | None
    ci_hi: float | None
    p_wilcoxon: float
    p_mcnemar: float
    p_holm: float | None
    p_holm_mcnemar: float | None
    note: str


class FamilyRow(PairRow):
    """A comparison as a forest-plot row, with its label."""

    label: str


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
    return [
        {
            "a": p.a_shown,
            "b": p.b_shown,
            "n": p.n,
            "problems_differ": p.problems_differ,
            "majority_discordant": p.majority_discordant,
            "delta_pp": p.delta_pp,
            "ci_lo": p.ci_lo,
            "ci_hi": p.ci_hi,
            "p_wilcoxon": p.p_wilcoxon,
            "p_mcnemar": p.p_mcnemar,
            "p_holm": p.p_holm,
            "p_holm_mcnemar": p.p_holm_mcnemar,
            "note": p.note,
        }
        for p in report.pairs
    ]


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
    for p in report.pairs:
        a_name, b_name = p.a_shown, p.b_shown
        a_ref, b_ref = _is_reference(p.a, a_name, reference), _is_reference(p.b, b_name, reference)
        if a_ref == b_ref:
            continue
        if a_ref:
            arm, delta, lo, hi = b_name, p.delta_pp, p.ci_lo, p.ci_hi
        else:
            arm, delta, lo, hi = a_name, -p.delta_pp, _neg(p.ci_hi), _neg(p.ci_lo)
        rows.append(
            {
                "arm": arm,
                "reference": a_name if a_ref else b_name,
                "delta_pp": delta,
                "ci_lo": lo,
                "ci_hi": hi,
                "n": p.n,
                "p_holm": p.p_holm,
            }
        )
    return rows


def _neg(value: float | None) -> float | None:
    return None if value is None else -value


def ungraded_flags(report: StatsReport) -> list[dict[str, str]]:
    """Arms with trials that were never graded (errors, unfinished), with the report's flag text."""
    return [{"arm": a.shown, "flag": a.flag} for a in report.arms if a.flag]


def family_rows(report: StatsReport) -> list[FamilyRow]:
    """The family as forest-plot rows, one per comparison, labelled 'b - a' (or just the arm against a baseline)."""
    baseline = report.family.is_baseline
    return [FamilyRow(**p, label=p["b"] if baseline else f"{p['b']} - {p['a']}") for p in pairs_table(report)]


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
