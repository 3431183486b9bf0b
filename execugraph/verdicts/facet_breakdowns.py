"""Difficulty and platform breakdowns of stored runs: their trials and what the store knows of each problem."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from execugraph.domain.json_types import JsonObject
from execugraph.stats.facets import facet_breakdowns
from execugraph.stats.report_model import StatsReport

if TYPE_CHECKING:
    from execugraph.store import Store


def store_facet_breakdowns(store: Store, full: StatsReport, run_ids: Sequence[str]) -> JsonObject:
    """`stats.facets.facet_breakdowns` for stored runs (an empty dict when no problem carries a facet)."""
    from execugraph.store.problem_facets import problem_facets
    from execugraph.verdicts.verdict_sets import trial_records

    keys = [int(r) for r in run_ids if str(r).strip().isdigit()]
    facets = problem_facets(store, keys)
    if not facets:
        return {}
    records = [rec for key in keys for rec in trial_records(store, key)]
    return facet_breakdowns(full, records, facets)
