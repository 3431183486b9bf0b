"""Batch form: "released after / before" dates, shown when the benchmark's problems carry release dates; the batch
then runs only the problems released in that window (`execugraph.batch.release_window`)."""

from __future__ import annotations

from typing import Any

import streamlit as st

AFTER = "batch.released_after"
BEFORE = "batch.released_before"
OFFERED = "batch.release_window_offered"  # whether this run of the form showed the dates


def window_inputs(problems: list[Any]) -> None:
    """The two date inputs and how many problems carry a date (nothing when none does)."""
    dated = [p for p in problems if getattr(p, "release_date", "")]
    st.session_state[OFFERED] = bool(dated)
    if not dated:
        return
    a, b = st.columns(2)
    a.date_input("Released after (empty = no bound)", value=None, key=AFTER, format="YYYY-MM-DD",
                 help="run only the problems released strictly after this date (e.g. a model's training cutoff)")
    b.date_input("Released before (empty = no bound)", value=None, key=BEFORE, format="YYYY-MM-DD",
                 help="... and strictly before this date")
    undated = len(problems) - len(dated)
    first, last = min(p.release_date for p in dated), max(p.release_date for p in dated)
    st.caption(f"{len(dated)} problem(s) released {first} .. {last}"
               + (f"; {undated} without a release date, left out when a date is set." if undated else "."))


def window_fields() -> dict[str, str | None]:
    """BatchSpec's `released_after` / `released_before` as the form has them (empty when the dates were not shown)."""
    s = st.session_state
    if not s.get(OFFERED):
        return {}
    return {"released_after": s[AFTER].isoformat() if s.get(AFTER) else None,
            "released_before": s[BEFORE].isoformat() if s.get(BEFORE) else None}
