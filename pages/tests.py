"""Tests page: the stored amplified suites, per problem: counts, mutation scores, stored programs they fail."""

import streamlit as st

from execugraph.amplify.stored import amplified_suites
from execugraph.safety.inert_text import one_line
from ui import page_start
from ui.views import tests_help
from ui.views.amplified_tests import suite_tests
from ui.widgets import empty_state

store = page_start.open_page("Tests")
st.caption("Stronger test suites made by `python -m execugraph amplify`: how much they add, and what they catch.")
suites = amplified_suites(store)
if not suites:
    empty_state("No amplified suites in this database yet. Make one with a command below (a few minutes, no LLM).")
    st.markdown(tests_help.WHAT)
    st.code("\n".join(tests_help.commands()), language="bash")
    st.caption("`--problems ID ...` amplifies only some problems; `--reference FILE` brings your own reference "
               "programs; `--no-store` only prints. Then reload this page.")
    st.markdown(tests_help.AFTERWARDS)
    st.stop()
name = st.selectbox("Suite", list(suites), format_func=lambda n: one_line(f"{n} ({suites[n]} problems)"), key="tests_suite")
computed = st.session_state.setdefault("tests_computed", {})
if st.button("Compute mutation scores and check stored passing programs (runs the sandbox)", key="tests_compute"):
    from sandbox import SandboxPool

    with st.spinner("Running mutants and stored programs in the sandbox..."), SandboxPool() as pool:
        computed[name] = suite_tests(store, name, pool)
view = computed.get(name) or suite_tests(store, name)
if view.provenance:
    p = view.provenance
    st.markdown(f"**Provenance:** generator `{p['generator']}`, seed `{p['seed']}`, hypothesis `{p['hypothesis']}`, "
                f"reference digest `{p['reference digest'][:12]}`; base benchmark `{view.base}`")
else:
    st.markdown(f"**Provenance:** not recorded; base benchmark `{view.base}`")
st.dataframe([row.to_row() for row in view.problems], hide_index=True)
if name not in computed:
    st.caption("Mutation scores and stored-program checks are blank until computed (button above).")
