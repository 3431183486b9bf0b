"""The Batch form's sentence about a sequential design before launch: looks, level, expected savings, in true words."""

from __future__ import annotations

from execugraph.sequential.design import SequentialDesign


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def detectable_mdd(design: SequentialDesign, problems: int, per_arm: int) -> float | None:
    """The difference the plan is judged at: `design.mdd`, else the planned MDD; None when none is detectable."""
    if design.mdd is not None:
        return design.mdd
    if problems < 2:
        return None
    from execugraph.stats.power import minimum_detectable_difference

    found = minimum_detectable_difference(problems, max(1, per_arm), 0.5, alpha=design.alpha)
    return None if found.mdd_pp is None else found.mdd_pp / 100.0


def looks_text(design: SequentialDesign, problems: int) -> str:
    """'10 looks', or '3 looks (10 asked: ...)' when the batch has fewer problems than looks asked."""
    used = len(design.look_sizes(max(1, problems)))
    if used == design.looks:
        return _count(used, "look")
    return (f"{_count(used, 'look')} ({design.looks} asked: with {_count(problems, 'problem')} a look can come at most "
            f"once per problem)")


def plan_text(problems: int, per_arm: int, baseline: float, design: SequentialDesign, comparisons: int) -> str:
    """What a sequential design is expected to save, under the planned difference and under none (simulated)."""
    from execugraph.sequential.simulate import expected_savings

    comparisons = max(1, comparisons)
    head = (f"Sequential: {looks_text(design, problems)}, each of {_count(comparisons, 'comparison')} against the "
            f"first condition at level {design.alpha:g}/{comparisons} (rule {design.rule}).")
    if problems < 2:
        return head + " A paired comparison needs at least 2 problems, so there is nothing to stop early."
    mdd = detectable_mdd(design, problems, per_arm)
    effect = design.resolved_mdd(problems, per_arm) if mdd is None else mdd
    got = expected_savings(problems, per_arm, min(baseline, 0.99), design=design, mdd=effect, comparisons=comparisons)
    null = f"**{got['saved_under_null']:.0%}**"
    if mdd is None:
        return (f"{head} No improvement is detectable with {_count(problems, 'problem')}, so no planned difference "
                f"is simulated; expected to save about {null} of a comparison's trials if there is none "
                "(300 simulated batches).")
    if got["power"] == 0 and got["fixed_power"] == 0:
        power = (f"neither it nor the full grid finds a {mdd * 100:.1f} pp difference in the simulations (too few "
                 "problems)")
    else:
        power = f"power {got['power']:.0%} against {got['fixed_power']:.0%} for the full grid"
    return (f"{head} Expected to save about **{got['saved_under_effect']:.0%}** of a comparison's trials if the "
            f"difference is {mdd * 100:.1f} pp and {null} if there is none; {power} (300 simulated batches).")
