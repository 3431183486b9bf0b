"""Statistics page: paired comparisons of runs or conditions (n, problems that differ = the paper's Disc.,
majority-discordant, delta, CI, Wilcoxon, McNemar, Holm), a forest plot, which problems flipped, the same
comparisons under both grading protocols, and pass@k; the same report the CLI prints and the export writes."""

import json

import streamlit as st

from execugraph import views
from execugraph.stats import UnknownConditionError, UnknownRunError
from ui import charts, keys, protocol_parts, resources
from ui.keys import Stats
from ui.widgets import empty_state, run_picker

keys.init_state(st.session_state)
store = resources.store()
st.title("Statistics")
if not views.run_choices(store, limit=1):
    empty_state(
        "No runs yet. Launch a batch with two or more conditions, then compare them here.",
        page="pages/batch.py",
        label="Launch a batch",
    )
    st.stop()
left, right = st.columns(2)
with left:
    run_ids = run_picker(
        Stats.RUNS,
        store,
        fallback=lambda: [r for r in [views.latest_finished_run(store, "batch")] if r],
        help="runs are compared in this order; each pair is later minus earlier",
    )
present = views.conditions_in_runs(store, run_ids)
st.session_state[Stats.CONDITIONS] = [c for c in st.session_state[Stats.CONDITIONS] if c in present]
conditions = right.multiselect("Conditions (none = each run's own)", present, key=Stats.CONDITIONS)
if not run_ids:
    empty_state("Pick one run to compare its conditions, or several runs to compare them against each other.")
    st.stop()
try:
    report = resources.report(run_ids, conditions)
except (UnknownRunError, UnknownConditionError, ValueError) as exc:
    st.error(f"Cannot build the report: {exc}", icon=":material/error:")
    st.stop()

for flagged in views.ungraded_flags(report):
    st.warning(f"**{flagged['arm']}**: {flagged['flag']}", icon=":material/warning:")
pairs = views.pairs_table(report)
if not pairs:
    empty_state("Only one arm to look at: pick a second run, or a run with at least two conditions.")
else:
    st.subheader("Paired comparisons")
    fmt = st.column_config.NumberColumn
    st.dataframe(
        pairs,
        hide_index=True,
        column_config={
            "delta_pp": fmt("delta (pp)", format="%+.1f"),
            "ci_lo": fmt("CI low", format="%+.1f"),
            "ci_hi": fmt("CI high", format="%+.1f"),
            "p_wilcoxon": fmt("p Wilcoxon", format="%.4f"),
            "p_mcnemar": fmt("p McNemar", format="%.4f"),
            "p_holm": fmt("p Holm", format="%.4f"),
            "p_holm_mcnemar": fmt("p Holm (McNemar)", format="%.4f"),
        },
    )
    rows = [{**p, "label": f"{p['b']} - {p['a']}"} for p in pairs]
    st.plotly_chart(charts.forest(rows, title="Delta b - a (pp) with 95% CI; pink: Holm p < 0.05"), key="stats.forest")

    st.subheader("Which problems flipped")
    names = [f"{p['b']} vs {p['a']}" for p in pairs]
    if st.session_state.get(Stats.PAIR) not in names:
        st.session_state[Stats.PAIR] = names[0]
    pair = report["pairs"][names.index(st.selectbox("Pair", names, key=Stats.PAIR))]
    a, b = st.columns(2)
    a.markdown(f"**Solved only by {pair['a']}** ({len(pair['a_only'])})")
    a.dataframe({"problem": pair["a_only"]}, hide_index=True)
    b.markdown(f"**Solved only by {pair['b']}** ({len(pair['b_only'])})")
    b.dataframe({"problem": pair["b_only"]}, hide_index=True)
    st.caption(report["method"]["majority_rule"])
    protocol_parts.sensitivity_section(store, run_ids, conditions)

st.subheader("pass@k")
passk = views.pass_at_k_rows(report)
table = {}
for row in passk:
    table.setdefault(row["arm"], {"arm": row["arm"]})[f"pass@{row['k']}"] = row["pass_at_k"]
st.dataframe(list(table.values()), hide_index=True)
with st.expander("Method"):
    st.json(report["method"])
st.download_button(
    "Download this report (summary.json)",
    json.dumps(report, indent=2),
    file_name="summary.json",
    mime="application/json",
    key=Stats.DOWNLOAD,
    icon=":material/download:",
)
