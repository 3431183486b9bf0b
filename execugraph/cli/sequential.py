"""`sequential-replay --runs A B`: what a sequential batch would have decided and saved on two finished runs.

An arm is `RUN` (a run of one condition) or `RUN:CONDITION`; the two arms are paired on the
problems both finished, each problem's difference being B's mean pass rate minus A's (an
errored trial has not passed). The replay itself is `execugraph.sequential.replay`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from typing import TYPE_CHECKING

from execugraph.text_safety import terminal_text

if TYPE_CHECKING:
    from execugraph.store import Store

EXIT_BAD_REQUEST = 2


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--runs", nargs=2, required=True, metavar=("A", "B"),
                        help="the baseline arm and the compared arm: RUN or RUN:CONDITION")
    parser.add_argument("--orders", type=int, default=200, help="random problem orders to replay (default 200)")
    parser.add_argument("--looks", type=int, default=10, help="equally spaced looks (default 10)")
    parser.add_argument("--alpha", type=float, default=0.05, help="two-sided level (default 0.05)")
    parser.add_argument("--mdd", type=float, default=None, metavar="PP",
                        help="minimum detectable difference in percentage points (default: the study's planned MDD)")
    parser.add_argument("--futility", type=float, default=0.10, help="futility threshold on conditional power")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")


def arm_rates(store: Store, arm: str) -> tuple[str, dict[str, tuple[float, int]]]:
    """(label, problem -> (mean pass rate, finished trials)) of `RUN` or `RUN:CONDITION`; ValueError if unclear."""
    run_text, _, condition = arm.partition(":")
    try:
        run_id = int(run_text)
    except ValueError:
        raise ValueError(f"bad arm {arm!r}: use RUN or RUN:CONDITION, e.g. 4 or 4:multi-full") from None
    if store.get_run(run_id) is None:
        raise ValueError(f"run {run_id} does not exist")
    trials = [t for t in store.trials_for_run(run_id) if t.status in ("done", "error")]
    conditions = sorted({t.condition for t in trials})
    if condition:
        if condition not in conditions:
            raise ValueError(f"run {run_id} has no finished trials of {condition!r} (it has {', '.join(conditions)})")
    elif len(conditions) > 1:
        raise ValueError(f"run {run_id} has {len(conditions)} conditions ({', '.join(conditions)}): "
                         f"name one, e.g. {run_id}:{conditions[0]}")
    elif not conditions:
        raise ValueError(f"run {run_id} has no finished trials")
    else:
        condition = conditions[0]
    passes: dict[str, list[bool]] = defaultdict(list)
    for t in trials:
        if t.condition == condition:
            passes[t.problem_id].append(t.status == "done" and bool(t.passed))
    return f"{run_id}:{condition}", {p: (sum(v) / len(v), len(v)) for p, v in passes.items()}


def run(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from execugraph.cli.store import open_store
    from execugraph.sequential.design import SequentialDesign
    from execugraph.sequential.replay import replay

    store = open_store(args, writes=False)
    try:
        (label_a, a), (label_b, b) = (arm_rates(store, arm) for arm in args.runs)
        common = sorted(set(a) & set(b))
        design = SequentialDesign(looks=args.looks, alpha=args.alpha, futility=args.futility,
                                  mdd=None if args.mdd is None else args.mdd / 100.0)
        per_arm = max(1, round(sum(a[p][1] for p in common) / max(1, len(common))))
        mdd = design.resolved_mdd(len(common), per_arm)
        result = replay([b[p][0] - a[p][0] for p in common], [a[p][1] + b[p][1] for p in common],
                        design=design, mdd=mdd, orders=args.orders, seed=args.seed)
    except (ValueError, ValidationError) as exc:
        print(f"sequential-replay: {terminal_text(str(exc))}", file=sys.stderr)
        return EXIT_BAD_REQUEST
    out = {"baseline": label_a, "compared": label_b, **result.as_dict()}
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(terminal_text(
        f"{label_b} vs {label_a} on {result.problems} paired problems, {result.orders} orders, {result.looks} looks:\n"
        f"  full data: {result.full_delta * 100:+.1f} pp, z = {result.full_z:.2f}, "
        f"{'significant' if result.full_significant else 'not significant'} at {design.alpha:g}\n"
        f"  sequential: the same decision in {result.agreement:.0%} of orders, using {result.mean_trials_fraction:.0%} "
        f"of the trials (stopping at look {result.mean_stop_look:.1f} on average; "
        + ", ".join(f"{k} {v}" for k, v in sorted(result.stops.items())) + ")\n"
        f"  type-I error on label-swapped (A/A) data: {result.type1_error:.1%}"))
    return 0
