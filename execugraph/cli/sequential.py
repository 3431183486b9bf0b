"""`sequential-replay --runs A B`: what a sequential batch would have decided and saved on two finished runs.

An arm is `RUN` (a run of one condition) or `RUN:CONDITION`; the two arms are paired on the
problems both finished, each problem's difference being B's mean pass rate minus A's (an
errored trial has not passed). The replay itself is `execugraph.sequential.replay`.
"""

from __future__ import annotations

import argparse
import json
import sys

from execugraph.safety.inert_text import terminal_text

EXIT_BAD_REQUEST = 2


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--runs", nargs=2, required=True, metavar=("A", "B"),
                        help="the baseline arm and the compared arm: RUN or RUN:CONDITION")
    parser.add_argument("--orders", type=int, default=200, help="random problem orders to replay (default 200)")
    parser.add_argument("--looks", type=int, default=10, help="equally spaced looks (default 10)")
    parser.add_argument("--alpha", type=float, default=0.05, help="two-sided level (default 0.05)")
    parser.add_argument("--mdd", type=float, default=None, metavar="PP",
                        help="minimum detectable difference in percentage points (default: the study's planned MDD)")
    parser.add_argument("--futility", type=float, default=None,
                        help="futility threshold: predictive power (hsd-trend, default 0.04) or conditional power "
                        "at the MDD (obf-mdd, default 0.10)")
    parser.add_argument("--rule", choices=["hsd-trend", "obf-mdd"], default="hsd-trend",
                        help="hsd-trend (default): Hwang-Shih-DeCani spending, futility on the observed trend; "
                        "obf-mdd: O'Brien-Fleming-type spending, futility at the MDD (batches planned before it)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from execugraph.cli.store import open_store
    from execugraph.sequential.design import SequentialDesign
    from execugraph.sequential.replay import replay_runs

    store = open_store(args, writes=False)
    try:
        design = SequentialDesign(looks=args.looks, alpha=args.alpha, futility=args.futility, rule=args.rule,
                                  mdd=None if args.mdd is None else args.mdd / 100.0)
        (label_a, label_b), result = replay_runs(store, args.runs[0], args.runs[1], design=design,
                                                 orders=args.orders, seed=args.seed)
    except (ValueError, ValidationError) as exc:
        print(f"sequential-replay: {terminal_text(str(exc))}", file=sys.stderr)
        return EXIT_BAD_REQUEST
    out = {"baseline": label_a, "compared": label_b, "rule": design.rule, **result.as_dict()}
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(terminal_text(
        f"{label_b} vs {label_a} on {result.problems} paired problems, {result.orders} orders, {result.looks} looks, "
        f"rule {design.rule}:\n"
        f"  full data: {result.full_delta * 100:+.1f} pp, z = {result.full_z:.2f}, "
        f"{'significant' if result.full_significant else 'not significant'} at {design.alpha:g}\n"
        f"  sequential: the same decision in {result.agreement:.0%} of orders, using {result.mean_trials_fraction:.0%} "
        f"of the trials (stopping at look {result.mean_stop_look:.1f} on average; "
        + ", ".join(f"{k} {v}" for k, v in sorted(result.stops.items())) + ")\n"
        f"  type-I error on label-swapped (A/A) data: {result.type1_error:.1%}"))
    return 0
