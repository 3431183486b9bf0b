"""Tables and chart rows cut from the statistics report (`execugraph.stats.build_report`).

The report is the single source of the numbers; these functions only reshape
it, so the Statistics and Ablations pages can never disagree with the CLI or
the exported summary. Arms are shown by their names (`execugraph.store.run_names`);
`label` stays the stable key a report uses internally.
"""

from __future__ import annotations

from typing import Any

REFERENCE_CONDITION = "multi-full"


def _name(section: dict[str, Any]) -> str:
    return str(section.get("name") or section["label"])


def arm_rate_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Pass rate with its 95% CI for every arm, in report order."""
    return [
        {
            "arm": _name(a),
            "label": a["label"],
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
            "arm": _name(a),
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
        {"arm": _name(a), "error_class": e["error_class"], "count": e["count"], "share": e["share"]}
        for a in report.get("arms", [])
        for e in a.get("errors", [])
    ]


def pass_at_k_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """pass@k per arm and k (None where no problem has k trials)."""
    return [
        {
            "arm": _name(a),
            "k": r["k"],
            "pass_at_k": r["pass_at_k"],
            "problems": r["problems"],
            "skipped": r["skipped"],
        }
        for a in report.get("arms", [])
        for r in a.get("pass_at_k", [])
    ]


def pairs_table(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The family's paired comparisons by arm name: delta is b minus a in percentage points, CI, adjusted p."""
    return [
        {
            "a": p.get("a_name") or p["a"],
            "b": p.get("b_name") or p["b"],
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


def excluded_rows(report: dict[str, Any]) -> list[dict[str, str]]:
    """Pairs left out of the family, and why (different benchmarks, no common problem)."""
    return [
        {"a": x.get("a_name") or x["a"], "b": x.get("b_name") or x["b"], "reason": x["reason"]}
        for x in report.get("excluded", [])
    ]


def _is_reference(label: str, name: str, reference: str) -> bool:
    return reference in (label, name) or label.endswith(f":{reference}")


def deltas_against(report: dict[str, Any], reference: str = REFERENCE_CONDITION) -> list[dict[str, Any]]:
    """Each arm's delta against the reference arm (arm minus reference), oriented whichever way the pair was.

    `reference` may be an arm's label, name or condition.
    """
    rows = []
    for p in report.get("pairs", []):
        a_name, b_name = p.get("a_name") or p["a"], p.get("b_name") or p["b"]
        a_ref, b_ref = _is_reference(p["a"], a_name, reference), _is_reference(p["b"], b_name, reference)
        if a_ref == b_ref:
            continue
        if a_ref:
            arm, delta, lo, hi = b_name, p["delta_pp"], p["ci_lo"], p["ci_hi"]
        else:
            arm, delta, lo, hi = a_name, -p["delta_pp"], -p["ci_hi"], -p["ci_lo"]
        rows.append(
            {
                "arm": arm,
                "reference": a_name if a_ref else b_name,
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
    return [{"arm": a.get("name") or a["label"], "flag": a["flag"]} for a in report.get("arms", []) if a.get("flag")]


def family_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The family as forest-plot rows, one per comparison, labelled 'b - a' (or just the arm against a baseline)."""
    baseline = (report.get("family") or {}).get("mode") == "baseline"
    return [{**p, "label": p["b"] if baseline else f"{p['b']} - {p['a']}"} for p in pairs_table(report)]


def method_lines(report: dict[str, Any]) -> list[tuple[str, str]]:
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
    method = report.get("method") or {}
    ordered = [k for k in titles if k in method] + sorted(k for k in method if k not in titles)
    return [(titles.get(k, k.replace("_", " ").capitalize()), str(method[k])) for k in ordered]
