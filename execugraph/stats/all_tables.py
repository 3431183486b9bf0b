"""Every table of a report for publication: the accuracy tables, then the cost tables (frontier, budgets)."""

from __future__ import annotations

from execugraph.stats.cost_tables import cost_tables
from execugraph.stats.report_model import StatsReport
from execugraph.stats.tables import Table, accuracy_tables


def publication_tables(report: StatsReport) -> list[Table]:
    """The tables `report` (CLI), the Statistics page's downloads and reproduce write, in that order."""
    return accuracy_tables(report) + cost_tables(report)
