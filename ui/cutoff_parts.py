"""Statistics page: the editable table of model training cutoffs (kept in the store), and the "released after" date
it gives by default: the later cutoff of the compared runs' models."""

from __future__ import annotations

from datetime import date

import streamlit as st

from execugraph.safety.inert_text import md_text
from execugraph.stats.report_model import StatsReport
from execugraph.store import Store
from execugraph.store.model_cutoffs import model_cutoffs, remove_model_cutoffs, set_model_cutoff
from execugraph.verdicts.windows import parse_date
from ui.publish import literal_rows

MODEL = "stats.cutoff_model"
CUTOFF = "stats.cutoff_date"
SAVE = "stats.cutoff_save"
REMOVE = "stats.cutoff_remove"
REMOVE_BUTTON = "stats.cutoff_remove_button"


def default_released_after(store: Store, report: StatsReport) -> date | None:
    """The later training cutoff of the report's models that have one in the table (None when none has)."""
    cutoffs = model_cutoffs(store)
    known = [cutoffs[a.model] for a in report.arms if a.model and a.model in cutoffs]
    return date.fromisoformat(max(known)) if known else None


def _may_write() -> bool:
    from ui.access import current_role
    from ui.resources import settings

    return current_role(settings()) != "viewer"


def cutoff_table(store: Store, report: StatsReport) -> None:
    """The table (model, training cutoff) and, for users who may write, the inputs that add, change or remove rows."""
    cutoffs = model_cutoffs(store)
    editable = _may_write()
    with st.expander(f"Model training cutoffs ({len(cutoffs)})", expanded=False):
        if cutoffs:
            st.table(literal_rows([{"model": m, "training cutoff": d} for m, d in cutoffs.items()]), hide_index=True)
        else:
            st.caption("No cutoffs yet. A model's cutoff becomes the default \"released after\" of its runs.")
        if not editable:
            return
        models = sorted({a.model for a in report.arms if a.model})
        model = st.text_input("Model", value=next((m for m in models if m not in cutoffs), ""), key=MODEL,
                              help="the model spec as the runs record it, e.g. ollama:qwen2.5-coder:7b")
        when = st.date_input("Training cutoff", value=None, key=CUTOFF, format="YYYY-MM-DD")
        if st.button("Save cutoff", key=SAVE):
            _save(store, model, when)
        if cutoffs:
            gone = st.multiselect("Remove", list(cutoffs), key=REMOVE)
            if st.button("Remove selected", key=REMOVE_BUTTON, disabled=not gone):
                remove_model_cutoffs(store, gone)
                st.rerun()


def _save(store: Store, model: str, when: date | None) -> None:
    if not model.strip():
        st.error("Model training cutoffs: field 'model': required (the model spec as runs record it).")
        return
    try:
        cutoff = parse_date(when.isoformat() if when else None, f"Model training cutoffs: {model.strip()}: "
                            "field 'training cutoff'")
    except ValueError as exc:
        st.error(md_text(exc))
        return
    set_model_cutoff(store, model.strip(), cutoff)
    st.rerun()
