"""Which comparisons form the family a report tests (and Holm adjusts over).

A family is every arm against one baseline, all pairs, or pairs named one by one
(`reproduce --families`, where a study fixes its own comparisons). By default it
only holds pairs that can be compared at all: arms that ran the same benchmark
and share at least one problem. Other pairs are listed apart with the reason,
never shown as a zero effect, and never counted in Holm's m.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from execugraph.stats.records import ArmData

ALL_PAIRS = "all pairs"
BASELINE = "baseline"
CHOSEN_PAIRS = "chosen pairs"
NO_COMMON_PROBLEMS = "no common problems"


@dataclass(frozen=True)
class Family:
    """`baseline`: an arm's label, name or condition (None: all pairs); `comparable_only`: drop cross-benchmark pairs;
    `pairs`: (a, b) arms named like a baseline, compared as b - a (instead of a baseline or all pairs)."""

    baseline: str | None = None
    comparable_only: bool = True
    pairs: tuple[tuple[str, str], ...] | None = None

    def __post_init__(self) -> None:
        if self.pairs is not None and self.baseline is not None:
            raise ValueError("a family has a baseline or chosen pairs, not both")

    @property
    def mode(self) -> str:
        if self.pairs is not None:
            return CHOSEN_PAIRS
        return ALL_PAIRS if self.baseline is None else BASELINE


def resolve_baseline(arms: Sequence[ArmData], wanted: str) -> int:
    """Index of the arm `wanted` names: its label, then its name, then its condition when that is unique."""
    for attribute in ("label", "name"):
        for i, arm in enumerate(arms):
            if getattr(arm, attribute) == wanted:
                return i
    by_condition = [i for i, arm in enumerate(arms) if arm.condition == wanted]
    if len(by_condition) == 1:
        return by_condition[0]
    choices = ", ".join(repr(a.name or a.label) for a in arms)
    if by_condition:
        raise ValueError(f"baseline {wanted!r} matches {len(by_condition)} arms; name one of: {choices}")
    raise ValueError(f"baseline {wanted!r} is not one of the arms: {choices}")


def known_benchmarks(arm: ArmData) -> set[str]:
    """Benchmarks the arm's trials name ('' = not recorded, which says nothing either way)."""
    return {b for b in arm.benchmarks if b}


def why_not_comparable(a: ArmData, b: ArmData, *, comparable_only: bool) -> str | None:
    """None when the pair belongs in the family, else the reason it is listed apart."""
    bench_a, bench_b = known_benchmarks(a), known_benchmarks(b)
    if comparable_only and bench_a and bench_b and not bench_a & bench_b:
        return f"different benchmarks ({', '.join(sorted(bench_a))} vs {', '.join(sorted(bench_b))})"
    if a.tallies.keys().isdisjoint(b.tallies):  # stops at the first common problem
        return NO_COMMON_PROBLEMS
    return None


def plan_family(arms: Sequence[ArmData], family: Family) -> tuple[list[tuple[int, int]], list[dict]]:
    """(pairs as (a, b) arm indices with delta = b - a, excluded pairs with their reason), in arm order.

    All pairs: every earlier arm against every later one. Baseline: the baseline as a,
    each other arm as b, so every delta reads "arm minus baseline". Chosen pairs: as named.
    """
    if family.pairs is not None:
        candidates = [(resolve_baseline(arms, a), resolve_baseline(arms, b)) for a, b in family.pairs]
        same = [arms[i].name or arms[i].label for i, j in candidates if i == j]
        if same:
            raise ValueError(f"a pair compares an arm with itself: {same[0]!r}")
    elif family.baseline is None:
        candidates = list(combinations(range(len(arms)), 2))
    else:
        base = resolve_baseline(arms, family.baseline)
        candidates = [(base, i) for i in range(len(arms)) if i != base]
    pairs, excluded = [], []
    for i, j in candidates:
        reason = why_not_comparable(arms[i], arms[j], comparable_only=family.comparable_only)
        if reason is None:
            pairs.append((i, j))
        else:
            excluded.append(
                {
                    "a": arms[i].label,
                    "b": arms[j].label,
                    "a_name": arms[i].name,
                    "b_name": arms[j].name,
                    "reason": reason,
                }
            )
    return pairs, excluded


def describe(arms: Sequence[ArmData], family: Family, pairs: int, excluded: int) -> dict:
    """The family as the report states it (and the Method text explains)."""
    base = None if family.baseline is None else arms[resolve_baseline(arms, family.baseline)]
    return {
        "mode": family.mode,
        "baseline": base.label if base else None,
        "baseline_name": base.name if base else None,
        "comparable_only": family.comparable_only,
        "comparisons": pairs,
        "excluded": excluded,
    }
