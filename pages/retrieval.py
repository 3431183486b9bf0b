"""Retrieval page: browse and edit the technique library, query it live, and see per-run hit scores."""

import streamlit as st

from execugraph.domain.run_names import run_name
from execugraph.figures import charts
from execugraph.retrieval import LibraryFormatError
from execugraph.safety.inert_text import md_text, one_line
from execugraph.store import trace_reads
from ui import page_start, resources, views
from ui.keys import Retrieval
from ui.publish import plot
from ui.retrieval_parts import live_query, technique_editor
from ui.views.retrieval_gaps import silent_retrieval_runs
from ui.widgets import empty_state

store = page_start.open_page("Retrieval")
st.caption("Techniques the planner can be reminded of under multi-rag: each hit is stored with its trial.")
library_tab, query_tab, runs_tab = st.tabs(["Library", "Live query", "Hits per run"])

with library_tab:
    try:
        library = resources.library()
    except LibraryFormatError as exc:
        st.error(f"The technique library cannot be read: {exc}. Fix it and reload.", icon=":material/error:")
        library = None
    techniques = library.techniques if library is not None else []
    categories = sorted({t.category for t in techniques})
    if st.session_state.get(Retrieval.CATEGORY) not in ["all", *categories]:
        st.session_state[Retrieval.CATEGORY] = "all"
    category = st.selectbox("Category", ["all", *categories], key=Retrieval.CATEGORY, format_func=one_line)
    shown = [t for t in techniques if category in ("all", t.category)]
    if library is not None:
        st.caption(f"{len(shown)} of {len(techniques)} techniques · {views.library_caption(library.ref)}")
    st.dataframe(
        [
            {
                "id": t.id,
                "name": t.name,
                "category": t.category,
                "when to use": t.when_to_use,
                "complexity": t.complexity,
                "tags": ", ".join(t.tags),
            }
            for t in shown
        ],
        hide_index=True,
        height=320,
    )
    technique_editor(techniques)

with query_tab:
    live_query(library)

with runs_tab:
    runs = trace_reads.runs_with_hits(store)
    for line in silent_retrieval_runs(store):  # why a run that used retrieval is not listed
        st.caption(md_text(line), help="only trials whose logs name the techniques retrieved have hits to show")
    if not runs:
        empty_state(
            "No run has retrieval hits yet. Launch a batch with the multi-rag condition, or synthesize with "
            "retrieval on.",
            page="pages/batch.py",
            label="Launch a batch",
        )
    else:
        labels = {r: f"{run_name(r, title)} ({n} hits)" for r, title, n in runs}
        if st.session_state.get(Retrieval.HEATMAP_RUN) not in labels:
            st.session_state[Retrieval.HEATMAP_RUN] = runs[0][0]
        run_id = st.selectbox("Run", list(labels), key=Retrieval.HEATMAP_RUN,
                              format_func=lambda r: one_line(labels[r]))
        matrix = views.hit_matrix(store, run_id)
        plot(
            charts.heatmap(
                matrix["problems"],
                matrix["techniques"],
                matrix["scores"],
                title="Mean retrieval score per problem and technique",
                colour_title="score",
            ),
            key="retr.heatmap",
        )
        if matrix["truncated"]:
            st.caption("Showing the 80 first problems and the 40 most retrieved techniques.")
