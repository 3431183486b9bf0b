"""Runs page: history with filters (rescores collapsed under their run), a per-run summary, rename / tag / delete,
and runs picked for comparison."""

import streamlit as st

from execugraph.safety.inert_text import md_text, one_line
from ui import keys, page_start, run_cost_parts, url_state, views
from ui.keys import Runs
from ui.run_parts import (
    derived_sections,
    detail_chosen,
    detail_run,
    filter_row,
    manage_panel,
    runs_table,
    summary_panel,
)
from ui.trace_picker import link_params
from ui.widgets import empty_state, read_only_notice

store = page_start.open_page("Runs")
if notice := st.session_state.get(Runs.NOTICE):
    st.success(notice, icon=":material/check:")
    st.session_state[Runs.NOTICE] = None

rows = views.run_rows(store, filter_row(store), limit=200)
if not rows:
    if store.list_runs(limit=1):
        empty_state("No run matches these filters. Clear some of them to see more.")
    else:
        empty_state(
            "No runs yet. Synthesize a problem or launch a batch; every run is kept here.",
            page="pages/batch.py",
            label="Launch a batch",
        )
    st.stop()

groups = views.group_runs(store, rows)
runs_table([g.row for g in groups], key="runs.table")
derived_sections(groups)
if len(rows) == 200:
    st.caption("Showing the newest 200 matching runs; narrow the filters to find older ones.")

listed = views.listed_rows(groups)  # each parent followed by its derived runs
labels = {r["id"]: r["name"] for r in listed}
st.session_state[Runs.SELECT] = [r for r in st.session_state[Runs.SELECT] if r in labels]
selected = st.multiselect("Select runs to compare", list(labels), key=Runs.SELECT,
                          format_func=lambda r: one_line(labels[r]))
st.session_state[keys.SELECTED_RUNS] = selected
link = {"runs": ",".join(map(str, selected))} if selected else None
# Links, not buttons: st.switch_page(query_params=...) pushed a history entry for the query string on this page
# and another for the new page, so Back needed two presses; a link is one entry (and opens in a new tab too).
row = st.container(horizontal=True)  # as wide as their labels, wrapping on a narrow screen
row.page_link("pages/statistics.py", label="Compare in Statistics", query_params=link, disabled=not selected,
              icon=":material/functions:")
row.page_link("pages/ablations.py", label="Open in Ablations", query_params=link, disabled=not selected,
              icon=":material/science:")

st.divider()
detail_run(store, labels, selected)  # ?run=4 opens run 4's detail
detail = st.selectbox("Run detail", list(labels), key=Runs.DETAIL, format_func=lambda r: one_line(labels[r]),
                      on_change=detail_chosen)
if url_state.get("run") is not None:  # a link or a choice named a run: the address names the one shown
    url_state.publish("run", Runs.DETAIL, str(detail))
run = store.get_run(detail)
row = next(r for r in listed if r["id"] == detail)
st.caption(
    f"{run.kind} · {run.status} · {md_text(run.benchmark or 'no benchmark')} · models: {md_text(row['models'] or '-')}"
    f" · created {run.created_at:%Y-%m-%d %H:%M} UTC · host {md_text(run.host or '?')}"
)
st.page_link(
    "pages/trace.py",
    label="Step through its trials in Trace",
    query_params=link_params(store, run.id),  # both ids: Trace need not rewrite the URL (one Back leaves)
    icon=":material/timeline:",
)
summary_panel(store, run, row)
run_cost_parts.cost_by_condition(store, run, row)  # tokens, calls, wall-clock and model time per trial
with st.expander("Rename, tag or delete", key=Runs.MANAGE):
    if not read_only_notice(store, "Renaming, tagging and deleting"):
        manage_panel(store, run, row["trials"])
