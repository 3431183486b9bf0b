"""The Runs page's cost per condition: tokens, LLM calls, wall-clock and model time per trial, so a run detail says
what each condition cost beside what it scored (all computed in SQL, `store.cost_history.run_condition_costs`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import streamlit as st

from execugraph.store.cost_history import run_condition_costs

if TYPE_CHECKING:
    from execugraph.store import Run, Store

FORMATS = {"tokens_per_trial": "{:,.1f}", "llm_calls_per_trial": "{:.2f}", "wallclock_s_per_trial": "{:.2f}",
           "model_time_s_per_trial": "{:.2f}"}
CONFIG = {
    "trials": st.column_config.NumberColumn("finished trials", help="done or errored trials: every one was paid for"),
    "tokens_per_trial": st.column_config.TextColumn("tokens / trial", help="tokens in + out"),
    "llm_calls_per_trial": st.column_config.TextColumn("LLM calls / trial"),
    "wallclock_s_per_trial": st.column_config.TextColumn("wall-clock s / trial"),
    "model_time_s_per_trial": st.column_config.TextColumn(
        "model time s / trial", help="the summed duration of the trial's LLM calls; — where no call was stored"),
}


def shown(row: Mapping[str, Any]) -> dict[str, Any]:
    """A cost row as the table shows it: numbers formatted, an em dash where nothing was recorded."""
    return {k: ("—" if v is None else FORMATS[k].format(v)) if k in FORMATS else v for k, v in row.items()}


def cost_by_condition(store: Store, run: Run, row: Mapping[str, Any] | None = None) -> None:
    """A table of each condition's mean cost per trial (left out for a rescore: its costs are its parent's)."""
    if row is not None and row.get("derived") == "rescore":
        return
    rows = run_condition_costs(store, run.id)
    if not rows:
        return
    if all(r["model_time_s_per_trial"] is None for r in rows):
        rows = [{k: v for k, v in r.items() if k != "model_time_s_per_trial"} for r in rows]
    st.caption("Cost per trial by condition (means over finished trials; — : not recorded)")
    st.dataframe([shown(r) for r in rows], hide_index=True, column_config=CONFIG)
