"""Hand computation of every number a reproduction of `published_study` reports, without the statistics engine.

Plain formulas on the study's design: pooled pass rates, per-problem rates, deltas, majority counts, the exact
Wilcoxon p by enumerating every sign assignment, McNemar's exact p from binomial coefficients, Holm's step-down,
the Wilson score interval of a pass rate on the effective number of problems and Newcombe's method 10 for a
paired delta (both written out here from their papers' definitions, with the normal quantile from scipy),
pass@k from binomial coefficients, means and medians of the cost columns the records carry.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from scipy.stats import norm

from tests.support import published_study as S

B, SEED, ALPHA = 10_000, 20_240_611, 0.05
SETS = ("published", "standalone", "with-prompt")
PROTOCOLS = ("standalone", "with-prompt")
ERROR_NAMES = {"runtime": "runtime_error", "wrong_answer": "wrong_answer", "llm_error": "llm_error",
               "sandbox_violation": "sandbox_violation"}


def outcomes(arm: str, vset: str) -> dict[str, tuple[int, int]]:
    """problem -> (trials, passed) of one arm under one set of verdicts."""
    if arm in S.PUBLISHED:
        table = S.PUBLISHED if vset == "published" else S.RESCORED
        return {p: (1, table[arm].get(p, 0)) for p in S.IDS}
    if arm == "e4_bo5":
        return {p: (5, S.BEST_OF_5[p]) for p in S.IDS}
    fails = set(S.NEEDS_PROMPT) if arm == "h1_so" and vset == "standalone" else set()
    return {p: (1, 0 if p in fails else 1) for p in S.HUMANEVAL}


def category(pid: str) -> str:
    return S.PROBLEMS[pid][0] if pid in S.PROBLEMS else "humaneval"


def rate(arm: str, vset: str, problems: Sequence[str] | None = None) -> tuple[int, int, float]:
    """(trials, passed, pooled rate) over `problems` (default all)."""
    table = outcomes(arm, vset)
    chosen = [p for p in table if problems is None or p in problems]
    trials = sum(table[p][0] for p in chosen)
    passed = sum(table[p][1] for p in chosen)
    return trials, passed, passed / trials


def exact_wilcoxon(diffs: Sequence[float]) -> float:
    """Two-sided exact signed-rank p by enumeration (average ranks for ties), zeros dropped."""
    d = [x for x in diffs if abs(x) > 1e-12]
    n = len(d)
    if n == 0:
        return 1.0
    mags = [abs(x) for x in d]
    # the project's convention (scipy's exact method) and plain enumeration agree when all signs are equal or
    # no magnitude is tied: the study is built that way
    assert len({x > 0 for x in d}) == 1 or len({round(m, 9) for m in mags}) == n, d
    order = sorted(range(n), key=lambda i: mags[i])
    ranks = [0.0] * n
    i = 0
    while i < n:
        j = i
        while j + 1 < n and abs(mags[order[j + 1]] - mags[order[i]]) < 1e-12:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    t = sum(r for r, x in zip(ranks, d, strict=True) if x > 0)
    mean = sum(ranks) / 2
    extreme = sum(1 for mask in range(2**n)
                  if abs(sum(ranks[k] for k in range(n) if mask >> k & 1) - mean) >= abs(t - mean) - 1e-9)
    return min(1.0, extreme / 2**n)


def mcnemar(b: int, c: int) -> float:
    n = b + c
    if n == 0:
        return 1.0
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(min(b, c) + 1)) / 2**n)


def holm(ps: Sequence[float]) -> list[float]:
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    out, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        out[i] = running
    return out


Z = float(norm.ppf(0.975))


def wilson_ci(p: float, n: float) -> tuple[float, float]:
    """Wilson (1927): the p0 where |p - p0| = Z sqrt(p0 (1 - p0) / n), i.e. the roots of a quadratic in p0."""
    a, b, c = 1 + Z * Z / n, -(2 * p + Z * Z / n), p * p  # (1 + z^2/n) p0^2 - (2p + z^2/n) p0 + p^2 = 0
    root = math.sqrt(max(0.0, b * b - 4 * a * c))
    return (0.0 if p == 0 else (-b - root) / (2 * a), 1.0 if p == 1 else (-b + root) / (2 * a))


def newcombe_ci(first: Sequence[float], second: Sequence[float]) -> tuple[float, float]:
    """Newcombe (1998) method 10 for mean(first) - mean(second), with AD - BC taken as n^2 cov (exact for 0/1)."""
    n = len(first)
    p1, p2 = sum(first) / n, sum(second) / n
    ad_bc = n * sum(x * y for x, y in zip(first, second, strict=True)) - n * n * p1 * p2
    (l1, u1), (l2, u2) = wilson_ci(p1, n), wilson_ci(p2, n)
    if p1 in (0.0, 1.0) or p2 in (0.0, 1.0):  # an empty margin
        phi = 0.0
    else:
        num = ad_bc - n / 2 if ad_bc > n / 2 else (0.0 if ad_bc >= 0 else ad_bc)
        phi = num / (n * n * math.sqrt(p1 * (1 - p1) * p2 * (1 - p2)))
    lo = p1 - p2 - math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    hi = p1 - p2 + math.sqrt((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2)
    return max(-1.0, lo), min(1.0, hi)


def rate_ci(arm: str, vset: str, problems: Sequence[str] | None = None) -> tuple[float, float]:
    """Wilson on Kish's effective number of problems, (sum of trials)^2 / sum of squared trials."""
    table = outcomes(arm, vset)
    ids = sorted(p for p in table if problems is None or p in problems)
    trials = [table[p][0] for p in ids]
    n_eff = sum(trials) ** 2 / sum(t * t for t in trials)
    return wilson_ci(sum(table[p][1] for p in ids) / sum(trials), n_eff)


def paired(a: str, b: str, vset: str, problems: Sequence[str] | None = None) -> dict:
    """One comparison (delta = b - a) over the common problems, without Holm."""
    ta, tb = outcomes(a, vset), outcomes(b, vset)
    common = sorted(p for p in set(ta) & set(tb) if problems is None or p in problems)
    ra = [ta[p][1] / ta[p][0] for p in common]
    rb = [tb[p][1] / tb[p][0] for p in common]
    diffs = [round(y - x, 12) for x, y in zip(ra, rb, strict=True)]
    a_only = sum(1 for x, y in zip(ra, rb, strict=True) if x > 0.5 >= y)
    b_only = sum(1 for x, y in zip(ra, rb, strict=True) if y > 0.5 >= x)
    lo, hi = newcombe_ci(rb, ra)
    return {"n": len(common), "problems_differ": sum(1 for d in diffs if d != 0),
            "majority_discordant": a_only + b_only, "delta_pp": 100 * sum(diffs) / len(diffs),
            "ci_lo": 100 * lo, "ci_hi": 100 * hi, "p_wilcoxon": exact_wilcoxon(diffs),
            "p_mcnemar": mcnemar(a_only, b_only), "a_rate": sum(ra) / len(ra), "b_rate": sum(rb) / len(rb)}


def family(pairs: Sequence[tuple[str, str]], vset: str) -> list[dict]:
    """The comparisons of a family with Holm over them (Wilcoxon and McNemar)."""
    out = [paired(a, b, vset) for a, b in pairs]
    for row, p in zip(out, holm([r["p_wilcoxon"] for r in out]), strict=True):
        row["p_holm"] = p
    for row, p in zip(out, holm([r["p_mcnemar"] for r in out]), strict=True):
        row["p_holm_mcnemar"] = p
    return out


def categories_of(a: str, b: str) -> list[str]:
    common = set(outcomes(a, "published")) & set(outcomes(b, "published"))
    return sorted({category(p) for p in common})


def category_pairs(a: str, b: str, vset: str) -> list[dict]:
    """Per category of the pair: the comparison over its common problems, Holm over the pair's categories."""
    rows = []
    for cat in categories_of(a, b):
        problems = [p for p in outcomes(a, vset) if category(p) == cat]
        rows.append({"category": cat, **paired(a, b, vset, problems)})
    for row, p in zip(rows, holm([r["p_wilcoxon"] for r in rows]), strict=True):
        row["p_holm"] = p
    return rows


def direction(delta: float) -> int:
    rounded = round(delta, 9)
    return (rounded > 0) - (rounded < 0)


def conclusion(row: dict) -> tuple[int, bool]:
    return direction(row["delta_pp"]), row["p_holm"] < ALPHA


# -- what the records cost, as written --------------------------------------------------------


def records(arm: str) -> list[dict]:
    return S.records_of(arm)


def cost(arm: str) -> dict[str, tuple[float, float]]:
    """metric -> (mean, median) per trial."""
    rs = records(arm)
    columns = {"wall": [r["wallclock_s"] for r in rs], "tokens": [r["tokens_in"] + r["tokens_out"] for r in rs],
               "calls": [r["llm_calls"] for r in rs]}
    return {k: (statistics.fmean(v), statistics.median(v)) for k, v in columns.items()}


def budget(arm: str) -> int:
    """The retry budget the arm's records publish (kept as published: e1_so's records say 3)."""
    return records(arm)[0]["retry_budget"]


def series(arm: str) -> tuple[str, str]:
    """(benchmark, condition without a budget suffix): the arms one sweep may compare."""
    condition = records(arm)[0]["condition"]
    return ("humaneval" if arm.startswith("h") else "internal30", condition)


def retry_sweep(arms: Sequence[str]) -> list[dict]:
    """Rows of the series with two or more budgets (this study has none: each condition ran one budget)."""
    rows = []
    swept = [s for s in dict.fromkeys(series(a) for a in arms) if len({budget(a) for a in arms if series(a) == s}) > 1]
    for key, level in [(s, b) for s in swept for b in sorted({budget(a) for a in arms if series(a) == s})]:
        members = [a for a in arms if series(a) == key and budget(a) == level]
        rs = [r for a in members for r in records(a)]
        passed = sum(rate(a, "published")[1] for a in members)
        rows.append({"budget": level, "trials": len(rs), "pass_rate": passed / len(rs),
                     "retries": statistics.fmean(r["retries_used"] for r in rs),
                     "wall": statistics.fmean(r["wallclock_s"] for r in rs),
                     "tokens": statistics.fmean(r["tokens_in"] + r["tokens_out"] for r in rs),
                     "calls": statistics.fmean(r["llm_calls"] for r in rs)})
    return rows


def errors(arm: str) -> dict[str, float]:
    """Share of failed trials per error class (published verdicts)."""
    failed = [ERROR_NAMES[r["error_class"]] for r in records(arm) if not r["passed"]]
    return {c: failed.count(c) / len(failed) for c in set(failed)}


def sampling(arm: str) -> dict:
    """The sampling control row of an arm (published verdicts)."""
    table = outcomes(arm, "published")
    calls = cost(arm)["calls"][0]
    if arm == "e4_bo5":
        n = 5
        p1 = statistics.fmean(c / t for t, c in table.values())
        pn = statistics.fmean(1 - math.comb(t - c, n) / math.comb(t, n) for t, c in table.values())
        agree = sum(1 for t, c in table.values() if c in (0, t))
        return {"kind": "best-of-N", "n": n, "p1": p1, "pn": pn, "agree": agree, "of": len(table),
                "share": agree / len(table), "per_attempt": calls, "for_n": n * calls}
    kind = {"e1_so": "one-shot", "e2_sr": "retry", "e3_mf": "multi-agent", "h1_so": "one-shot",
            "h2_mf": "multi-agent"}[arm]
    return {"kind": kind, "n": None, "p1": rate(arm, "published")[2], "pn": None, "agree": None, "of": None,
            "share": None, "per_attempt": calls, "for_n": None}


def reused_jobs() -> dict[tuple[str, str], int]:
    """(arm, protocol) -> programs whose identical sandbox job (same program, problem, protocol where the problem
    has a prompt) already ran earlier in the reproduction: runs in folder order, standalone before with-prompt."""
    seen: set[tuple[str, str, str]] = set()
    out = {}
    for arm in S.ARMS:
        for protocol in PROTOCOLS:
            reused = 0
            for r in records(arm):
                if not r["code"]:
                    continue
                key = (r["code"], r["problem_id"], protocol if r["problem_id"] in S.HUMANEVAL else "")
                reused += key in seen
                seen.add(key)
            out[(arm, protocol)] = reused
    return out
