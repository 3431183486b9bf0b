"""Hand computation of the cost tables a reproduction of `published_study` reports, without the statistics engine:
per-problem mean costs from the records, the paired t-interval from scipy's t quantile, the exact signed-rank p by
enumeration (`study_hand.exact_wilcoxon`), Holm, the ratio interval over problems written out, the dominance rule
as the method states it, and pass@k at a costlier arm's budget from binomial coefficients."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from scipy.stats import t as t_dist

from tests.support import study_hand as H

METRICS = ("tokens", "tokens_in", "tokens_out", "llm_calls", "wallclock_s")
SHOWN = {"tokens": "tokens", "tokens_in": "tokens in", "tokens_out": "tokens out", "llm_calls": "LLM calls",
         "wallclock_s": "wall-clock s"}
FRONTIER = ("tokens", "llm_calls", "wallclock_s")


def _value(record: dict, metric: str) -> float:
    return float(record["tokens_in"] + record["tokens_out"] if metric == "tokens" else record[metric])


def per_problem(arm: str, metric: str) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for r in H.records(arm):
        out.setdefault(r["problem_id"], []).append(_value(r, metric))
    return out


def arm_interval(arm: str, metric: str) -> tuple[float, float, float]:
    """(mean per trial, lo, hi): ratio of sums, SE^2 = m/(m-1) sum (y_p - R n_p)^2 / N^2, t with m - 1 df."""
    table = per_problem(arm, metric)
    totals = [sum(v) for v in table.values()]
    counts = [len(v) for v in table.values()]
    m, n = len(totals), sum(counts)
    ratio = sum(totals) / n
    se = math.sqrt(m / (m - 1) * sum((y - ratio * c) ** 2 for y, c in zip(totals, counts, strict=True))) / n
    half = t_dist.ppf(0.975, m - 1) * se
    return ratio, ratio - half, ratio + half


def cost_pair(a: str, b: str, metric: str) -> dict:
    ta, tb = per_problem(a, metric), per_problem(b, metric)
    common = sorted(set(ta) & set(tb))
    diffs = [sum(tb[p]) / len(tb[p]) - sum(ta[p]) / len(ta[p]) for p in common]
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    half = t_dist.ppf(0.975, n - 1) * sd / math.sqrt(n)
    flat = sd == 0  # every problem differs by the same amount: no interval (it would have no width)
    return {"n": n, "delta": mean, "lo": None if flat else mean - half, "hi": None if flat else mean + half,
            "p": H.exact_wilcoxon([round(d, 9) for d in diffs]), "flat": flat}


def cost_pairs(pairs: Sequence[tuple[str, str]]) -> dict[str, list[dict]]:
    """metric -> the family's cost comparisons with Holm over them."""
    out = {}
    for metric in METRICS:
        rows = [cost_pair(a, b, metric) for a, b in pairs]
        for row, p in zip(rows, H.holm([r["p"] for r in rows]), strict=True):
            row["p_holm"] = p
        out[metric] = rows
    return out


def dominated(pairs: Sequence[tuple[str, str]], accuracy: list[dict], costs: list[dict]) -> list[dict]:
    """(dominated, by, accuracy of by - dominated, its CI and Holm p, saving, its CI, cost Holm p) per the rule."""
    rows = []
    for (a, b), acc, cost in zip(pairs, accuracy, costs, strict=True):
        if cost["p_holm"] >= H.ALPHA or not cost["delta"]:
            continue
        if cost["flat"]:
            cheaper_b = cost["delta"] < 0  # the same saving everywhere: its sign is sure
        elif not (cost["hi"] < 0 or cost["lo"] > 0):
            continue
        else:
            cheaper_b = cost["hi"] < 0
        delta = acc["delta_pp"] if cheaper_b else -acc["delta_pp"]
        ci = (acc["ci_lo"], acc["ci_hi"]) if cheaper_b else (-acc["ci_hi"], -acc["ci_lo"])
        if delta < 0 and acc["p_holm"] < H.ALPHA:
            continue
        if cost["flat"]:
            saving = (-cost["delta"] if cheaper_b else cost["delta"], None, None)
        else:
            saving = ((-cost["delta"], -cost["hi"], -cost["lo"]) if cheaper_b
                      else (cost["delta"], cost["lo"], cost["hi"]))
        rows.append({"dominated": a if cheaper_b else b, "by": b if cheaper_b else a, "delta": delta, "ci": ci,
                     "p_holm": acc["p_holm"], "saving": saving[0], "lo": saving[1], "hi": saving[2],
                     "p_cost": cost["p_holm"]})
    return rows


def pass_at_k(n: int, c: int, k: int) -> float:
    return 1.0 if n - c < k else 1 - math.comb(n - c, k) / math.comb(n, k)


def matched(pairs: Sequence[tuple[str, str]], metric: str) -> list[dict]:
    """Each arm with repeats at each costlier partner's budget, in pair order (sampler first, then the other way)."""
    rows = []
    for a, b in pairs:
        for sampler, reference in ((a, b), (b, a)):
            samples = H.outcomes(sampler, "published")
            most = max(n for n, _ in samples.values())
            s_cost, r_cost = arm_interval(sampler, metric)[0], arm_interval(reference, metric)[0]
            if most < 2 or r_cost <= s_cost:
                continue
            k = max(1, math.floor(r_cost / s_cost + 1e-9))
            ref = H.outcomes(reference, "published")
            common = sorted(set(samples) & set(ref))
            values = [pass_at_k(*samples[p], min(k, samples[p][0])) for p in common]
            rates = [ref[p][1] / ref[p][0] for p in common]
            lo, hi = H.newcombe_ci(values, rates)
            rows.append({"sampler": sampler, "reference": reference, "k": k, "used": min(k, most),
                         "clipped": sum(1 for p in common if samples[p][0] < k), "at_k": sum(values) / len(values),
                         "ref": sum(rates) / len(rates),
                         "delta": 100 * sum(v - r for v, r in zip(values, rates, strict=True)) / len(values),
                         "ci": (100 * lo, 100 * hi),
                         "p": H.exact_wilcoxon([round(v - r, 12) for v, r in zip(values, rates, strict=True)])})
    return rows


def check_cost_tables(check_table: Any, slug: str, arms: tuple[str, ...], names: dict[str, str],
                      pairs: Sequence[tuple[str, str]], accuracy: list[dict]) -> None:
    """Every cell of the family's cost tables against the hand values (`check_table` is the ledger's)."""
    row: dict[str, Any]
    rows = []
    for arm in arms:
        row = {"arm": names[arm]}
        for metric in FRONTIER:
            mean, lo, hi = arm_interval(arm, metric)
            row |= {f"{metric}_mean": mean, f"{metric}_lo": lo, f"{metric}_hi": hi}
        rows.append(row)
    check_table(f"{slug}-cost_ci", rows)
    costs = cost_pairs(pairs)
    check_table(f"{slug}-cost_paired", [
        {"a": names[a], "b": names[b], "metric": SHOWN[metric], **costs[metric][c]}
        for metric in METRICS for c, (a, b) in enumerate(pairs)])
    check_table(f"{slug}-frontier_tokens", [
        {**r, "dominated": names[r["dominated"]], "by": names[r["by"]]}
        for r in dominated(pairs, accuracy, costs["tokens"])])
    budgets = matched(pairs, "tokens")
    if budgets:
        check_table(f"{slug}-matched_budget_tokens", [
            {**r, "sampler": names[r["sampler"]], "reference": names[r["reference"]]} for r in budgets])
