"""Export / Import page: download a publication bundle for chosen runs, import a bundle or published results
(zip upload), rescore a run under the current sandbox to list the verdicts that flipped, and reproduce a
published study (import, rescore under both protocols, report what holds up)."""

import streamlit as st

from ui import page_start, views
from ui.widgets import empty_state

store = page_start.open_page("Export / Import")
export_tab, import_tab, rescore_tab, reproduce_tab = st.tabs(["Export", "Import", "Rescore", "Reproduce"])
try:
    from ui import export_parts
except ImportError as exc:  # the publication package ships with issue 9; until then say what is coming
    export_parts = None
    st.info(
        f"Bundles, imports and rescoring are not installed in this build ({exc}). They arrive with issue 9.",
        icon=":material/construction:",
    )

has_runs = bool(views.run_choices(store, limit=1))
with export_tab:
    if not has_runs:
        empty_state(
            "No runs to export yet. Synthesize a problem or launch a batch first.",
            page="pages/batch.py",
            label="Launch a batch",
        )
    elif export_parts:
        export_parts.export_panel(store)
with import_tab:
    if export_parts:
        export_parts.import_panel(store)
with rescore_tab:
    if export_parts:
        export_parts.rescore_panel(store)
with reproduce_tab:
    if export_parts:
        from ui import reproduce_parts

        reproduce_parts.reproduce_panel(store)
