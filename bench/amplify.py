"""Amplified tests per benchmark: inputs added per problem (median, max), time, mutation score original vs amplified.

Usage: .venv/bin/python bench/amplify.py [--per-problem N] [--seed S] [--humaneval-n N] [--internal30-n N]
(`--humaneval-n 0` / `--internal30-n 0`: every problem; the defaults take a reproducible sample so
`make bench` stays short).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from execugraph.amplify.adequacy import suite_adequacy  # noqa: E402
from execugraph.amplify.build import DEFAULT_PER_PROBLEM, amplify_benchmark  # noqa: E402
from execugraph.amplify.distinguish import SEARCH_BUDGET, distinguishable_report  # noqa: E402
from execugraph.benchmarks import load_humaneval, load_internal30, select_problems  # noqa: E402


def _one(pool, name: str, problems: list, seed: int, per_problem: int, budget: int) -> None:
    whole = time.perf_counter()
    started = time.perf_counter()
    suite = amplify_benchmark(pool, name, problems, seed=seed, per_problem=per_problem)
    amplify_s = time.perf_counter() - started
    started = time.perf_counter()
    found = suite_adequacy(pool, problems, suite.stored_problems())
    adequacy_s = time.perf_counter() - started
    added = [p.added for p in suite.problems]
    total = found["total"]
    print(f"== {name}: {len(problems)} problems, {sum(added)} inputs added "
          f"(median {statistics.median(added):g}, max {max(added)} per problem; "
          f"{sum(1 for a in added if a == 0)} problems got none) in {amplify_s:.1f} s")
    print(f"   mutation score: original {total['original_score']:.1%} ({total['original_killed']}/{total['mutants']}),"
          f" amplified {total['amplified_score']:.1%} ({total['amplified_killed']}/{total['mutants']}); "
          f"{total['only_amplified']} mutants only the amplified tests kill ({adequacy_s:.1f} s)")
    for pid, score in found["problems"].items():
        if score["only_amplified"]:
            print(f"   {pid}: {', '.join(score['only_amplified'])}")
    started = time.perf_counter()
    target = distinguishable_report(pool, problems, suite.stored_problems(), seed=seed, budget=budget)
    t = target["total"]
    print(f"   95% target: {t['missed']} mutants the original tests miss, {t['distinguishable']} distinguishable, "
          f"{t['amplified_killed']} of those killed by the amplified tests = {t['share']:.1%} "
          f"({t['search_inputs']} search inputs answered, {time.perf_counter() - started:.1f} s)")
    print(f"   distinguishability: {t['how']}")
    for pid, score in target["problems"].items():
        if score["survivors"]:
            print(f"   survives amplified, distinguishable: {pid}: {', '.join(score['survivors'])}")
    print(f"   {name} total {time.perf_counter() - whole:.1f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-problem", type=int, default=DEFAULT_PER_PROBLEM)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--humaneval-n", type=int, default=40)
    parser.add_argument("--internal30-n", type=int, default=0)
    parser.add_argument("--search-budget", type=int, default=SEARCH_BUDGET,
                        help="candidate inputs per problem in the distinguishability search")
    args = parser.parse_args()
    from sandbox import SandboxPool

    internal = load_internal30()
    humaneval = load_humaneval()
    if args.internal30_n:
        internal = select_problems(internal, n=args.internal30_n, seed=args.seed)
    if args.humaneval_n:
        humaneval = select_problems(humaneval, n=args.humaneval_n, seed=args.seed)
    with SandboxPool() as pool:
        _one(pool, "internal30", internal, args.seed, args.per_problem, args.search_budget)
        _one(pool, "humaneval", humaneval, args.seed, args.per_problem, args.search_budget)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
