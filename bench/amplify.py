"""Amplified tests per benchmark: inputs added per problem (median, max), time, mutation score original vs amplified.

Usage: .venv/bin/python bench/amplify.py [--per-problem N] [--seed S] [--humaneval-n N] [--internal30-n N]
(the defaults, 0: every problem of HumanEval-164 and internal-30; N > 0 takes a reproducible sample).
The amplification time is what the 300 s target is about and is printed against it; the adequacy
and distinguishability runs after it are measurement (every mutant of every reference run in the
sandbox) and are timed apart. Each figure comes with the 1-minute load average when it was taken.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from execugraph.amplify.adequacy import suite_adequacy  # noqa: E402
from execugraph.amplify.build import DEFAULT_PER_PROBLEM, amplify_benchmark  # noqa: E402
from execugraph.amplify.distinguish import SEARCH_BUDGET, distinguishable_report  # noqa: E402
from execugraph.benchmarks import load_humaneval, load_internal30, select_problems  # noqa: E402

TARGET_S = 300.0  # amplification of one benchmark, on 2 cores


def _load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def _one(pool, name: str, problems: list, seed: int, per_problem: int, budget: int) -> None:
    whole = time.perf_counter()
    started = time.perf_counter()
    suite = amplify_benchmark(pool, name, problems, seed=seed, per_problem=per_problem)
    amplify_s = time.perf_counter() - started
    added = [p.added for p in suite.problems]
    verdict = "within" if amplify_s <= TARGET_S else "OVER"
    print(f"== {name}: {len(problems)} problems, {sum(added)} inputs added "
          f"(median {statistics.median(added):g}, max {max(added)} per problem; "
          f"{sum(1 for a in added if a == 0)} problems got none); digest {suite.digest[:12]}")
    print(f"   amplification: {amplify_s:.1f} s ({verdict} the {TARGET_S:.0f} s target; {os.cpu_count()} cores, "
          f"{_load()})", flush=True)
    started = time.perf_counter()
    found = suite_adequacy(pool, problems, suite.stored_problems())
    adequacy_s = time.perf_counter() - started
    total = found.total
    print(f"   mutation score: original {total.original_score:.1%} ({total.original_killed}/{total.mutants}),"
          f" amplified {total.amplified_score:.1%} ({total.amplified_killed}/{total.mutants}); "
          f"{total.only_amplified} mutants only the amplified tests kill (measurement: {adequacy_s:.1f} s, "
          f"{_load()})", flush=True)
    for pid, score in found.problems.items():
        if score.only_amplified:
            print(f"   {pid}: {', '.join(score.only_amplified)}")
    started = time.perf_counter()
    target = distinguishable_report(pool, problems, suite.stored_problems(), seed=seed, budget=budget)
    t = target["total"]
    print(f"   95% target: {t['missed']} mutants the original tests miss, {t['distinguishable']} distinguishable, "
          f"{t['amplified_killed']} of those killed by the amplified tests = {t['share']:.1%} "
          f"({t['search_inputs']} search inputs answered for the {t['searched_problems']} problems with a mutant "
          f"both suites miss; measurement: {time.perf_counter() - started:.1f} s, {_load()})")
    print(f"   distinguishability: {t['how']}")
    for pid, score in target["problems"].items():
        if score["survivors"]:
            print(f"   survives amplified, distinguishable: {pid}: {', '.join(score['survivors'])}")
    print(f"   {name} total {time.perf_counter() - whole:.1f} s (amplification {amplify_s:.1f} s + measurement)",
          flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-problem", type=int, default=DEFAULT_PER_PROBLEM)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--humaneval-n", type=int, default=0)
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
