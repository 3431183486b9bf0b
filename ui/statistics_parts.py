"""The Statistics page's sections: the family's paired table and forest plot, the pairs left out, flips,
pass@k, category rates, the method in words, and the downloads."""

from __future__ import annotations

import json

import streamlit as st

from execugraph.figures.report_figures import comparison_figure
from execugraph.safety.inert_text import md_text, one_line
from execugraph.stats.report_model import StatsReport
from execugraph.stats.tables import category_paired_table, category_table, paired_table
from ui import statistics_url, url_state, views
from ui.keys import Statistics
from ui.publish import chart, literal_rows, table_view, tables_download
from ui.widgets import empty_state


def comparisons(report: StatsReport) -> None:
    """The paired table of the chosen family, its figure, and the pairs listed apart with their reason."""
    family = report.family
    excluded = views.excluded_rows(report)
    if not report.pairs and not excluded:
        empty_state("Only one arm to look at: pick a second run, or a run with at least two conditions.")
        return
    st.subheader("Paired comparisons")
    what = "all pairs" if family.mode == "all pairs" else f"each arm against {md_text(family.baseline_name)}"
    st.caption(
        f"{what}: {family.comparisons} comparison(s), Holm-adjusted over exactly these"
        + (f"; {family.excluded} pair(s) not compared (below)" if family.excluded else "")
        + "."
    )
    if report.pairs:
        table_view(paired_table(report), key="stats.pairs")
        limits(report)
        figure = comparison_figure(report)
        if figure is not None:
            chart(figure, key="stats.forest", name="comparisons")
    else:
        st.info("No pair in this family can be compared; the reasons are listed below.", icon=":material/info:")
    if excluded:
        st.markdown(f"**Not compared** ({len(excluded)} pair(s), not counted in Holm's correction)")
        st.table(literal_rows(excluded), hide_index=True)
    if report.pairs:
        flips(report)


def limits(report: StatsReport) -> None:
    """Each pair's explanation of what its numbers cannot say (too few problems to reach 0.05, CI vs p)."""
    lines = [
        f"- **{md_text(p.b_name)} vs {md_text(p.a_name)}:** {md_text(p.explanation)}"
        for p in report.pairs
        if p.explanation
    ]
    if lines:
        st.info("**What these comparisons can and cannot say**\n\n" + "\n".join(lines), icon=":material/info:")


def flips(report: StatsReport) -> None:
    """The problems only one side of a chosen pair solved (majority rule)."""
    st.subheader("Which problems flipped")
    rows = views.pairs_table(report)
    names = [f"{p['b']} vs {p['a']}" for p in rows]
    statistics_url.adopt_choice("pair", Statistics.PAIR, names, "Pair")
    if st.session_state.get(Statistics.PAIR) not in names:
        st.session_state[Statistics.PAIR] = names[0]
    chosen = st.selectbox("Pair", names, key=Statistics.PAIR, format_func=one_line)
    url_state.publish("pair", Statistics.PAIR, chosen, default=names[0])
    pair = report.pairs[names.index(chosen)]
    a, b = st.columns(2)
    a.markdown(f"**Solved only by {md_text(pair.a_name)}** ({len(pair.a_only)})")
    a.dataframe({"problem": pair.a_only}, hide_index=True)
    b.markdown(f"**Solved only by {md_text(pair.b_name)}** ({len(pair.b_only)})")
    b.dataframe({"problem": pair.b_only}, hide_index=True)
    st.caption(report.method["majority_rule"])


def pass_at_k_table(report: StatsReport) -> list[dict[str, str]]:
    """One row per arm, pass@k in percent like every other rate on the page ('-' where no problem has k trials)."""
    table: dict[str, dict[str, str]] = {}
    for row in views.pass_at_k_rows(report):
        value = row["pass_at_k"]
        cell = "-" if value is None else f"{100 * value:.1f}"
        table.setdefault(row["arm"], {"arm": row["arm"]})[f"pass@{row['k']} (%)"] = cell
    return list(table.values())


def rates(report: StatsReport) -> None:
    """pass@k per arm, then pass rate per category with its CI (the publication table)."""
    st.subheader("pass@k")
    st.dataframe(pass_at_k_table(report), hide_index=True, key="stats.passk")
    st.subheader("Pass rate per category")
    table_view(category_table(report), key="stats.categories")
    if any(p.categories for p in report.pairs):
        st.markdown("**Paired comparisons per category** (delta, exact Wilcoxon p, Holm within each comparison)")
        table_view(category_paired_table(report), key="stats.category_pairs")


def method(report: StatsReport) -> None:
    """How every number was computed, as sentences."""
    with st.expander("Method"):
        st.markdown("\n".join(f"- **{md_text(what)}:** {md_text(how)}" for what, how in views.method_lines(report)))


def downloads(report: StatsReport) -> None:
    """The tables for a paper, and the whole report as JSON."""
    st.subheader("Download")
    tables_download(report, key=Statistics.TABLES, stem="statistics")
    st.download_button(
        "Download this report (summary.json)",
        json.dumps(report.to_json_dict(), indent=2),
        file_name="summary.json",
        mime="application/json",
        key=Statistics.DOWNLOAD,
        icon=":material/download:",
    )
