"""Statistics speed: the report over a 56-run family with our exact signed-rank test against scipy's, side by side.

Builds plain trial records for 56 runs (HumanEval-sized and internal-30-sized arms,
four conditions, 1 or 5 trials per problem, seeded), then in one process:

1. every per-problem difference vector the report tests (each pair, each category of
   each pair) through `scipy.stats.wilcoxon(method="exact")` and through
   `execugraph.stats.signed_rank.exact_signed_rank_p`: seconds for each, the ratio,
   and how many p-values differ (must be 0: the same floats);
2. `build_report_from_records` end to end, twice (the second run is the warm one a
   page rerun sees), with the share of it spent in signed-rank tests.

    .venv/bin/python bench/statistics_speed.py [--runs 56] [--seed 0]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from scipy import stats as sps  # noqa: E402

from execugraph.stats import build_report_from_records  # noqa: E402
from execugraph.stats.signed_rank import exact_signed_rank_p  # noqa: E402


def family(runs: int, seed: int) -> list[dict[str, Any]]:
    """Trial records of `runs` runs: odd runs on 164 problems x 1 trial, even ones on 30 x 5."""
    rng = random.Random(seed)
    conditions = ["single-oneshot", "single-retry", "multi-full", "multi-no-planner"]
    records = []
    for r in range(1, runs + 1):
        bench = "humaneval" if r % 2 else "internal30"
        problems, trials = (164, 1) if bench == "humaneval" else (30, 5)
        skill = rng.uniform(0.4, 0.9)
        for p in range(problems):
            for t in range(trials):
                records.append({
                    "run_id": str(r), "problem_id": f"{bench}_{p}", "category": f"c{p % 5}",
                    "condition": conditions[r % 4], "seed": t, "trial_index": 0, "passed": rng.random() < skill,
                    "benchmark": bench, "tokens_in": rng.randint(100, 4000), "tokens_out": rng.randint(50, 500),
                    "llm_calls": rng.randint(1, 9), "wallclock_s": rng.uniform(1, 60),
                })
    return records


def difference_vectors(records: list[dict[str, Any]]) -> list[np.ndarray]:
    """The non-zero per-problem differences of every pair of runs on the same benchmark, and of each category."""
    rates: dict[str, dict[str, list[int]]] = {}
    category: dict[str, str] = {}
    for rec in records:
        rates.setdefault(rec["run_id"], {}).setdefault(rec["problem_id"], []).append(int(rec["passed"]))
        category[rec["problem_id"]] = rec["category"]
    mean = {run: {p: sum(v) / len(v) for p, v in per.items()} for run, per in rates.items()}
    runs = sorted(mean, key=int)
    out = []
    for i, a in enumerate(runs):
        for b in runs[i + 1:]:
            common = sorted(set(mean[a]) & set(mean[b]))
            if not common:
                continue
            d = np.round(np.array([mean[b][p] - mean[a][p] for p in common]), 12)
            groups = [d] + [d[[category[p] == c for p in common]] for c in sorted({category[p] for p in common})]
            out.extend(g[g != 0] for g in groups if np.count_nonzero(g))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=56)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    records = family(args.runs, args.seed)
    vectors = difference_vectors(records)
    started = time.perf_counter()
    reference = [float(sps.wilcoxon(d, method="exact").pvalue) for d in vectors]
    scipy_s = time.perf_counter() - started
    started = time.perf_counter()
    ours = [exact_signed_rank_p(d) for d in vectors]
    ours_s = time.perf_counter() - started
    differ = sum(a != b for a, b in zip(reference, ours, strict=True))
    print(f"signed-rank tests: {len(vectors):,} difference vectors; scipy {scipy_s:.2f} s, ours {ours_s:.3f} s "
          f"({scipy_s / max(ours_s, 1e-9):.1f}x); p-values that differ: {differ}")
    run_ids = sorted({r["run_id"] for r in records}, key=int)
    started = time.perf_counter()
    build_report_from_records(records, run_ids)
    cold = time.perf_counter() - started
    profile = cProfile.Profile()
    started = time.perf_counter()
    profile.enable()
    report = build_report_from_records(records, run_ids)
    profile.disable()
    warm = time.perf_counter() - started
    stats = pstats.Stats(profile)
    in_tests = sum(row[3] for key, row in stats.stats.items() if key[2] in {"wilcoxon_p"})  # type: ignore[attr-defined]
    print(f"build_report_from_records, {args.runs} runs, {len(report.pairs):,} pairs: first {cold:.2f} s, "
          f"again {warm:.2f} s (profiled; {in_tests / max(warm, 1e-9):.0%} in signed-rank tests)")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
