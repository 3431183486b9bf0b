"""Sequential batches on simulated paired studies: type-I error, power and trials used, against the fixed design.

Usage: .venv/bin/python bench/sequential.py [--simulations N] [--seed S] [--looks K]

Each scenario is a two-arm paired batch of P problems with T trials per problem and arm, under
the model of the Batch form's MDD (`execugraph.stats.power`): every problem passes with p0 in the
baseline and p0 + effect in the other arm, p0 = 0.5 - effect / 2. The effect is 0, the planned
MDD, or twice it (capped at a 100-point difference). The fixed design tests the full data once
with the same score statistic at the same level; the sequential one runs the batch's rule
(`execugraph.sequential`, O'Brien-Fleming-type spending, non-binding futility). Monte Carlo error
of a rate r over N simulations is sqrt(r (1 - r) / N); the type-I check allows 2 of them.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from execugraph.sequential.design import SequentialDesign  # noqa: E402
from execugraph.sequential.simulate import simulate  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--looks", type=int, default=10)
    args = parser.parse_args()
    from execugraph.stats.power import minimum_detectable_difference

    design = SequentialDesign(looks=args.looks)
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    failed = []
    print(f"{args.simulations} simulations per scenario, {args.looks} looks, two-sided alpha {design.alpha}, "
          f"futility below {design.futility:.0%} conditional power at the MDD")
    print(f"{'problems':>8} {'trials':>6} {'effect':>10} {'fixed':>7} {'sequential':>10} {'trials used':>11}  check")
    for problems in (30, 164):
        for trials in (1, 5):
            mdd = (minimum_detectable_difference(problems, trials, 0.5, alpha=design.alpha).mdd_pp or 100) / 100
            for label, effect in (("0", 0.0), ("MDD", mdd), ("2xMDD", min(1.0, 2 * mdd))):
                found = simulate(problems, trials, 0.5 - effect / 2, effect, design=design, mdd=mdd,
                                 simulations=args.simulations, rng=rng)
                got = {"fixed": found.fixed_rejects, "sequential": found.sequential_rejects, "used": found.trials_used}
                if effect == 0:
                    limit = design.alpha + 2 * math.sqrt(design.alpha * (1 - design.alpha) / args.simulations)
                    ok = got["sequential"] <= limit
                    check = f"type-I {'<=' if ok else '>'} {limit:.3f}"
                else:
                    ok = got["sequential"] >= got["fixed"] - 0.05
                    check = f"power {'within' if ok else 'more than'} 5 points of fixed"
                if not ok:
                    failed.append(f"{problems} problems, {trials} trials, effect {label}")
                print(f"{problems:>8} {trials:>6} {label + f' ({effect:.1%})':>10} {got['fixed']:>7.3f} "
                      f"{got['sequential']:>10.3f} {got['used']:>11.1%}  {check}")
    print(f"{time.perf_counter() - started:.1f} s")
    if failed:
        print("FAILED: " + "; ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
