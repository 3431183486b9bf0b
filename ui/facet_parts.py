"""Statistics page: pass rate per arm by difficulty and by platform (LiveCodeBench), with Wilson CIs and n, beside
the category rates; shown only when the compared problems carry them (`execugraph.stats.facets`)."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from execugraph.stats.report_model import StatsReport
from execugraph.store import Store
from execugraph.verdicts.facet_breakdowns import store_facet_breakdowns
from ui.publish import literal_rows


def _pct(value: float | None) -> str:
    return "" if value is None else f"{100.0 * value:.1f}%"


def breakdowns(store: Store, report: StatsReport, run_ids: Sequence[str]) -> None:
    """One table per facet the problems carry: arm, value, pass rate, 95% Wilson CI, n (problems), trials."""
    found = store_facet_breakdowns(store, report, list(run_ids))
    for facet, rows in found.items():
        st.subheader(f"Pass rate by {facet}")
        st.table(literal_rows([{"arm": r["name"], facet: r["value"], "pass rate": _pct(r["pass_rate"]),
                                "95% CI": "" if r["ci_lo"] is None else f"{_pct(r['ci_lo'])} .. {_pct(r['ci_hi'])}",
                                "n": r["problems"], "trials": f"{r['passed']}/{r['trials']}"} for r in rows]),
                 hide_index=True)
    if found:
        st.caption("95% Wilson score interval over problems (as the category rates); n: problems; a problem "
                   "without the value counts as unknown.")
