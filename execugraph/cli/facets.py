"""`stats`: the pass rate per arm by difficulty and by platform of stored runs (`execugraph.stats.facets`)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from execugraph.domain.json_types import JsonObject

if TYPE_CHECKING:
    from execugraph.stats.report_model import StatsReport


def stored_facets(args: argparse.Namespace, report: StatsReport, run_ids: Sequence[str]) -> JsonObject:
    """facet -> rows for the runs' problems that carry a difficulty or platform (empty when none does)."""
    from execugraph.cli.store import open_store
    from execugraph.verdicts.facet_breakdowns import store_facet_breakdowns

    store = open_store(args, writes=False)
    try:
        return store_facet_breakdowns(store, report, run_ids)
    finally:
        store.close()
