"""Tables and chart rows cut from the statistics report (`execugraph.stats.build_report`).

The report is the single source of the numbers; these functions only reshape
it, so the Statistics and Ablations pages can never disagree with the CLI or
the exported summary.
"""

from __future__ import annotations

from typing import Any

REFERENCE_CONDITION = "multi-full"


def arm_rate_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Pass rate with its 95% CI for every arm, in report order."""
    return [
        {
            "arm": a["label"],
            "pass_rate": a["pass_rate"],
            "ci_lo": a["ci_lo"],
            "ci_hi": a["ci_hi"],
            "problems": a["problems"],
            "trials": a["trials"],
            "passed": a["passed"],
        }
        for a in report.get("arms", [])
    ]


def category_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Pass rate with its CI per (arm, category)."""
    return [
        {
            "arm": a["label"],
            "category": cat,
            "pass_rate": r["pass_rate"],
            "ci_lo": r["ci_lo"],
            "ci_hi": r["ci_hi"],
            "trials": r["trials"],
        }
        for a in report.get("arms", [])
        for cat, r in a.get("categories", {}).items()
    ]


def error_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Share of failed trials per error class and arm (the error taxonomy)."""
    return [
        {"arm": a["label"], "error_class": e["error_class"], "count": e["count"], "share": e["share"]}
        for a in report.get("arms", [])
        for e in a.get("errors", [])
    ]


def pass_at_k_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """pass@k per arm and k (None where no problem has k trials)."""
    return [
        {
            "arm": a["label"],
            "k": r["k"],
            "pass_at_k": r["pass_at_k"],
            "problems": r["problems"],
            "skipped": r["skipped"],
        }
        for a in report.get("arms", [])
        for r in a.get("pass_at_k", [])
    ]


def pairs_table(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The paired comparison table: delta is b minus a in percentage points, with CI and adjusted p-values."""
    return [
        {
            "a": p["a"],
            "b": p["b"],
            "n": p["n"],
            "problems_differ": p["problems_differ"],
            "majority_discordant": p["majority_discordant"],
            "delta_pp": p["delta_pp"],
            "ci_lo": p["ci_lo"],
            "ci_hi": p["ci_hi"],
            "p_wilcoxon": p["p_wilcoxon"],
            "p_mcnemar": p["p_mcnemar"],
            "p_holm": p["p_holm"],
            "p_holm_mcnemar": p["p_holm_mcnemar"],
            "note": p.get("note", ""),
        }
        for p in report.get("pairs", [])
    ]


def _is_reference(label: str, reference: str) -> bool:
    return label == reference or label.endswith(f":{reference}")


def deltas_against(report: dict[str, Any], reference: str = REFERENCE_CONDITION) -> list[dict[str, Any]]:
    """Each arm's delta against the reference arm (arm minus reference), oriented whichever way the pair was."""
    rows = []
    for p in report.get("pairs", []):
        a_ref, b_ref = _is_reference(p["a"], reference), _is_reference(p["b"], reference)
        if a_ref == b_ref:
            continue
        if a_ref:
            arm, delta, lo, hi = p["b"], p["delta_pp"], p["ci_lo"], p["ci_hi"]
        else:
            arm, delta, lo, hi = p["a"], -p["delta_pp"], -p["ci_hi"], -p["ci_lo"]
        rows.append(
            {
                "arm": arm,
                "reference": p["a"] if a_ref else p["b"],
                "delta_pp": delta,
                "ci_lo": lo,
                "ci_hi": hi,
                "n": p["n"],
                "p_holm": p["p_holm"],
            }
        )
    return rows


def ungraded_flags(report: dict[str, Any]) -> list[dict[str, str]]:
    """Arms with trials that were never graded (errors, unfinished), with the report's flag text."""
    return [{"arm": a["label"], "flag": a["flag"]} for a in report.get("arms", []) if a.get("flag")]
