"""Sequential batches on the paper's six main comparisons (replayed) and on simulated paired studies.

Usage: .venv/bin/python bench/sequential.py [--orders N] [--seed S] [--looks K] [--rules R1,R2]
                                           [--simulated [--simulations N]]

**The paper's six comparisons** (internal-30 and HumanEval-164: retry and multi-agent against one-shot,
multi-agent against retry). The paper's per-problem outcomes are not in the repository, so the
comparisons are the stand-ins of `bench/paper_arms.py` (internal-30: the README pictures' simulated study;
HumanEval-164: the published pass rates, exactly). Each is replayed as `sequential-replay` does
(`execugraph.sequential.replay`) in N random problem orders, under the new rule (`hsd-trend`, the default
for new batches) and the old one (`obf-mdd`), and printed beside the targets of issue 38: at most 0.60 of
the trials on average, A/A type-I error (each problem's sign flipped at random) at most 0.05, agreement
with the full-data decision in at least 95% of orders wherever that decision is clear (|z| below 1.7 or
above 2.2; the others are marked "unclear" and not held to it). Monte Carlo error of a rate r over N
orders is sqrt(r (1 - r) / N); it is printed with the A/A figure.

**Simulated studies** (`--simulated`): a two-arm paired batch of P problems with T trials per problem
and arm, under the model of the Batch form's MDD (`execugraph.stats.power`): every problem passes with
p0 in the baseline and p0 + effect in the other arm, p0 = 0.5 - effect / 2. The effect is 0, the planned
MDD, or twice it (capped at a 100-point difference). The fixed design tests the full data once with the
same score statistic at the same level; the sequential one runs the batch's rule. The type-I check there
allows 2 Monte Carlo errors; the power lost against the fixed design is printed, not judged.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # paper_arms

from execugraph.sequential.design import SequentialDesign  # noqa: E402
from execugraph.sequential.simulate import simulate  # noqa: E402

TARGET_USED, TARGET_AA, TARGET_AGREE, CLEAR_BELOW, CLEAR_ABOVE = 0.60, 0.05, 0.95, 1.7, 2.2


def paper(orders: int, seed: int, looks: int | None, rules: list[str]) -> list[str]:
    """Replay the six comparisons under both rules; print per comparison and on average; the targets missed."""
    from paper_arms import comparisons

    from execugraph.sequential.replay import replay

    found = comparisons()
    failed: list[str] = []
    print(f"The paper's six comparisons (stand-ins: bench/paper_arms.py), {orders} random orders each; "
          f"targets: trials used <= {TARGET_USED:.2f} on average, A/A <= {TARGET_AA}, agreement >= "
          f"{TARGET_AGREE:.0%} where |z| < {CLEAR_BELOW} or > {CLEAR_ABOVE}")
    for rule in rules:
        design = SequentialDesign(rule=rule, **({} if looks is None else {"looks": looks}))
        started = time.perf_counter()
        print(f"\nrule {rule} ({design.looks} looks, futility below {design.futility_threshold:.2f} "
              f"{'predictive power on the observed trend' if rule == 'hsd-trend' else 'conditional power at the MDD'})")
        print(f"{'comparison':<40} {'z full':>7} {'used':>6} {'agreement':>9} {'A/A error':>15}  check")
        used_all, aa_all = [], []
        for label, diffs, trials, per_arm in found:
            mdd = design.resolved_mdd(len(diffs), per_arm)
            got = replay(diffs, trials, design=design, mdd=mdd, orders=orders, seed=seed)
            clear = abs(got.full_z) < CLEAR_BELOW or abs(got.full_z) > CLEAR_ABOVE
            se = math.sqrt(max(got.type1_error * (1 - got.type1_error), 1e-12) / orders)
            checks = [f"A/A {'<=' if got.type1_error <= TARGET_AA else '>'} {TARGET_AA}"]
            if clear:
                checks.append(f"agreement {'>=' if got.agreement >= TARGET_AGREE else '<'} {TARGET_AGREE:.0%}")
            else:
                checks.append("agreement: unclear decision, not held to 95%")
            if rule == "hsd-trend" and (got.type1_error > TARGET_AA or (clear and got.agreement < TARGET_AGREE)):
                failed.append(label)
            used_all.append(got.mean_trials_fraction)
            aa_all.append(got.type1_error)
            print(f"{label:<40} {got.full_z:>+7.2f} {got.mean_trials_fraction:>6.2f} {got.agreement:>9.1%} "
                  f"{got.type1_error:>8.3f} +-{se:.3f}  {'; '.join(checks)}")
        mean_used = sum(used_all) / len(used_all)
        print(f"{'average':<40} {'':>7} {mean_used:>6.3f} {'':>9} {sum(aa_all) / len(aa_all):>8.3f}{'':>7}  "
              f"trials used {'<=' if mean_used <= TARGET_USED else '>'} {TARGET_USED:.2f} "
              f"(range {min(used_all):.2f} to {max(used_all):.2f}); {time.perf_counter() - started:.1f} s")
        if rule == "hsd-trend" and mean_used > TARGET_USED:
            failed.append(f"average trials used {mean_used:.3f}")
    return failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=2000, help="random orders per comparison (default 2000)")
    parser.add_argument("--rules", default="hsd-trend,obf-mdd", help="rules to replay (default: the new and the old)")
    parser.add_argument("--simulated", action="store_true", help="also the simulated studies")
    parser.add_argument("--simulations", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--looks", type=int, default=None, help="looks (default: the design's)")
    args = parser.parse_args()
    failed = paper(args.orders, args.seed, args.looks, args.rules.split(","))
    if args.simulated:
        failed += simulated(args)
    if failed:
        print("FAILED: " + "; ".join(failed))
        return 1
    return 0


def simulated(args: argparse.Namespace) -> list[str]:
    """The simulated studies of the module docstring, under the default rule; the scenarios that failed."""
    from execugraph.stats.power import minimum_detectable_difference

    design = SequentialDesign(**({} if args.looks is None else {"looks": args.looks}))
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    failed = []
    print(f"\nSimulated studies: {args.simulations} per scenario, rule {design.rule}, {design.looks} looks, two-sided "
          f"alpha {design.alpha}, futility below {design.futility_threshold:.0%}")
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
                    ok = True  # the price of stopping early, reported: hsd-trend loses 5-9 points at the MDD
                    check = f"power {100 * (got['fixed'] - got['sequential']):+.1f} points below fixed"
                if not ok:
                    failed.append(f"{problems} problems, {trials} trials, effect {label}")
                print(f"{problems:>8} {trials:>6} {label + f' ({effect:.1%})':>10} {got['fixed']:>7.3f} "
                      f"{got['sequential']:>10.3f} {got['used']:>11.1%}  {check}")
    print(f"{time.perf_counter() - started:.1f} s")
    return failed


if __name__ == "__main__":
    raise SystemExit(main())
