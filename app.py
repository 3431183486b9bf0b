"""ExecuGraph dashboard entry point: navigation and the shared sidebar only (a router)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from execugraph.safety.inert_text import md_text
from execugraph.safety.redaction import install_log_scrub
from execugraph.store import StoreReadOnlyError
from ui import access, keys, url_state
from ui.resources import ensure_background_worker, health, preload_chart_frontend, settings, store, warm_up
from ui.views.health import health_lines, sidebar_lines

# A local icon: a Material icon name makes the browser fetch it from fonts.gstatic.com on every page load.
ICON = str(Path(__file__).resolve().parent / "docs" / "favicon.png")
st.set_page_config(page_title="ExecuGraph", page_icon=ICON, layout="wide", initial_sidebar_state="auto")
st.session_state[keys.ROUTED] = True
keys.init_state(st.session_state)
install_log_scrub()  # the server's log lines never carry a secret the process holds

PAGES = [
    st.Page("pages/synthesize.py", title="Synthesize", icon=":material/bolt:", default=True),
    st.Page("pages/batch.py", title="Batch", icon=":material/grid_view:"),
    st.Page("pages/runs.py", title="Runs", icon=":material/history:"),
    st.Page("pages/trace.py", title="Trace", icon=":material/timeline:"),
    st.Page("pages/retrieval.py", title="Retrieval", icon=":material/search:"),
    st.Page("pages/ablations.py", title="Ablations", icon=":material/science:"),
    st.Page("pages/statistics.py", title="Statistics", icon=":material/functions:"),
    st.Page("pages/tests.py", title="Tests", icon=":material/fact_check:"),
    st.Page("pages/export.py", title="Export / Import", icon=":material/ios_share:"),
]

# Narrow screens: Streamlit collapses the sidebar only below 768 px, so at 800 px it kept 300 px of an 800 px
# window. Below 1000 px it is 13rem wide instead (the page links and health lines still fit); style only, no space.
st.html(
    "<style>@media (max-width: 1000px) { section[data-testid='stSidebar'] "
    "{ width: 13rem !important; min-width: 13rem !important; max-width: 13rem !important; } }</style>"
)

page = st.navigation(PAGES, position="hidden")  # drawn below: config.toml hides the pages/ list Streamlit shows first
# A shared dashboard: nothing below runs before sign-in. After `st.navigation`, so a link to `/statistics` asks for
# the token and then opens Statistics: before it, the sign-in rerun had no page to go back to and opened Synthesize.
access.require_access(settings())

with st.sidebar:
    for entry in PAGES:
        st.page_link(entry)
    st.caption("Health")
    icons = {"ok": ":green[●]", "warn": ":orange[●]", "fail": ":red[●]"}
    checks = health()
    # One short line per component (the whole messages under "Health details"); a problem keeps a visible one-line
    # reason. The messages in full took half the sidebar at 1400 px (issue 41). No `help=` icon: at 800 px (a 13rem
    # sidebar) it wrapped onto a line of its own.
    with st.container(gap="xsmall"):
        for line in sidebar_lines(checks):
            st.markdown(f"{icons[line.level]} {md_text(line.text)}")
            if line.reason:
                st.caption(md_text(line.reason))
    with st.expander("Health details"):
        for check in health_lines(checks):
            st.caption(f"**{check.name}**: {check.detail}" + (f" - {check.fix}" if check.fix and check.level != "ok"
                                                                else ""))
preload_chart_frontend()  # so the first page with a chart does not wait for the browser to load plotly

current = store()  # a database that cannot be used: the CLI's sentence, and the page stops here
if current.read_only:
    st.info(f"Read-only mode: {current.read_only_note}.", icon=":material/lock:")
else:
    ensure_background_worker()  # once per process and database: batches launched anywhere get run

try:
    page.run()
except StoreReadOnlyError as exc:  # a write this page did not guard: say so instead of a traceback
    st.warning(f"Not recorded: {exc}.", icon=":material/lock:")
finally:  # st.stop() and st.rerun() included: what the page chose reaches the URL in one update (one Back)
    # Once per server process, after the first page is drawn (a thread importing SciPy and LangGraph beside it
    # slowed it down): the other pages' imports happen while this one is read.
    warm_up()
    url_state.flush()
