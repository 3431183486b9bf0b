"""One comparison engine over verdict sets: every surface that shows a pair's p, Holm p or conclusion calls it.

A verdict set is one way of judging the same trials: as run (or as published), rescored
under a grading protocol, under stronger tests. Every set gives each trial a verdict and
leaves the rest alone, so the arms, their problems and therefore the family (which pairs
are compared, and Holm's m) are the same under every set. The engine builds the family's
report under each set with `build_report_from_records` (the arithmetic of `stats
--json` and the Statistics page) and states, per pair, the conclusion each set supports
and whether it is the reference set's (the first one).

The conclusion rule lives here and only here: the direction of delta (shown to one
decimal, so a difference below 1e-9 pp is float noise and counts as none) and whether
the Holm-adjusted Wilcoxon p is below ALPHA.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from execugraph.domain.json_types import JsonObject
from execugraph.stats.bootstrap import DEFAULT_BOOTSTRAP, DEFAULT_SEED
from execugraph.stats.family import Family
from execugraph.stats.from_records import build_report_from_records
from execugraph.stats.paired import ALPHA
from execugraph.stats.report_model import PairSection
from execugraph.stats.sensitivity_sections import Conclusion, PairValues
from execugraph.verdicts.results import ComparedPair, VerdictSetComparison

__all__ = ["ALPHA", "compare_verdict_sets", "conclusion", "direction", "runs_meta", "significant", "survives"]
DELTA_DECIMALS = 9  # deltas closer to 0 than 1e-9 pp are rounding noise of rational pass rates
PAIR_FIELDS = ("n", "problems_differ", "majority_discordant", "delta_pp", "ci_lo", "ci_hi", "p_wilcoxon",
               "wilcoxon_method", "p_holm", "p_mcnemar", "p_holm_mcnemar")


def direction(delta_pp: float) -> int:
    """+1 when b is ahead, -1 when a is, 0 for no difference."""
    rounded = round(float(delta_pp), DELTA_DECIMALS)
    return (rounded > 0) - (rounded < 0)


def significant(p_holm: float | None) -> bool:
    """Holm-adjusted p below ALPHA (no p: not significant)."""
    return p_holm is not None and p_holm < ALPHA


def conclusion(values: PairValues | Mapping[str, Any]) -> Conclusion:
    """The conclusion one verdict set supports for a pair (its numbers, or their JSON): direction and significance."""
    if not isinstance(values, PairValues):
        return Conclusion(direction=direction(values["delta_pp"]), significant=significant(values.get("p_holm")))
    return Conclusion(direction=direction(values.delta_pp), significant=significant(values.p_holm))


def survives(reference: PairValues | Mapping[str, Any], other: PairValues | Mapping[str, Any]) -> bool:
    """Same direction and the same side of ALPHA after Holm as under the reference set."""
    return conclusion(reference) == conclusion(other)


def pair_values(pair: PairSection) -> PairValues:
    """The numbers of one pair that a conclusion rests on (what every surface shows)."""
    return PairValues(**{k: getattr(pair, k) for k in PAIR_FIELDS})


def runs_meta(headers: Iterable[Any]) -> dict[str, JsonObject]:
    """`runs_meta` for `build_report_from_records` from stored run headers (so arms are named as everywhere)."""
    return {
        str(h.id): {"title": h.title, "kind": h.kind, "config": dict(h.config or {}), "benchmark": h.benchmark,
                    "created_at": h.created_at, "models": dict(h.models or {})}
        for h in headers
    }


def compare_verdict_sets(
    records_by_set: Mapping[str, Iterable[Mapping[str, Any] | Any]],
    run_ids: Sequence[str | int],
    conditions: Sequence[str] | None = None,
    *,
    runs_meta: Mapping[str, Mapping[str, Any]] | None = None,
    family: Family | None = None,
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
) -> VerdictSetComparison:
    """The family under every verdict set (the first is the reference), pair by pair.

    Holds `sets` (names in order), `reports` (set -> the full `StatsReport`),
    `pairs` (a, b labels and names, `by_set` values, `conclusion` and `survives` per
    set, `same_conclusion`), `excluded` and `holm_family_size` per set.
    """
    if not records_by_set:
        raise ValueError("no verdict set to compare")
    ids = [str(r) for r in run_ids]
    reports = {
        name: build_report_from_records(list(records), ids, conditions, runs_meta=runs_meta, family=family,
                                        n_boot=n_boot, seed=seed)
        for name, records in records_by_set.items()
    }
    sets = list(reports)
    reference = sets[0]
    keyed = {name: {(p.a, p.b): p for p in report.pairs} for name, report in reports.items()}
    pairs = []
    for key, first in keyed[reference].items():
        by_set = {name: pair_values(keyed[name][key]) for name in sets if key in keyed[name]}
        pairs.append(ComparedPair(
            a=first.a, b=first.b, a_name=first.a_name, b_name=first.b_name,
            by_set=by_set,
            conclusion={name: conclusion(values) for name, values in by_set.items()},
            survives={name: survives(by_set[reference], values) for name, values in by_set.items()
                      if name != reference},
            same_conclusion=len({conclusion(v) for v in by_set.values()}) == 1,
            categories={name: list(keyed[name][key].categories) for name in by_set},
        ))
    return VerdictSetComparison(
        sets=sets,
        reference=reference,
        reports=reports,
        pairs=pairs,
        excluded=list(reports[reference].excluded),
        holm_family_size={name: len(report.pairs) for name, report in reports.items()},
        alpha=ALPHA,
    )
