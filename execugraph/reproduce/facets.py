"""A family's pass rate per run by difficulty and by platform (LiveCodeBench), beside its category breakdown.

The published verdicts (the reference set) of the family's runs, with the difficulty and
platform the store kept for each problem (`store.problem_facets`), go through `stats.facets`;
runs are named by the study, never by database id.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from execugraph.domain.json_types import JsonObject
from execugraph.stats.facets import facet_breakdowns, facet_lines
from execugraph.stats.from_records import build_report_from_records
from execugraph.store.problem_facets import problem_facets
from execugraph.verdicts.verdict_sets import PUBLISHED

if TYPE_CHECKING:
    from execugraph.reproduce.families import StudyFamily
    from execugraph.store import Store
    from execugraph.verdicts.verdict_sets import RunVerdicts


def family_facets(store: Store, family: StudyFamily, verdicts: Mapping[int, RunVerdicts],
                  meta: Mapping[str, Mapping[str, object]], n_boot: int, seed: int) -> JsonObject | None:
    """The family's `breakdowns` section of reproduce.json (with its text lines under `lines`); None when no
    problem of its runs carries a difficulty or platform."""
    facets = problem_facets(store, [r.id for r in family.runs])
    if not facets:
        return None
    ids = [r.name for r in family.runs]
    records = [{**rec, "run_id": r.name} for r in family.runs for rec in verdicts[r.id].records[PUBLISHED]]
    full = build_report_from_records(records, ids, runs_meta=meta, family=family.stats_family(), n_boot=n_boot,
                                     seed=seed)
    found = facet_breakdowns(full, records, facets, names={r.name: r.name for r in family.runs})
    return {**found, "lines": facet_lines(found)} if found else None
