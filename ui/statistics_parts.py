"""The Statistics page's sections: the family's paired table and forest plot, the pairs left out, flips,
pass@k, category rates, the method in words, and the downloads."""

from __future__ import annotations

import json

import streamlit as st

from execugraph.figures.report_figures import comparison_figure
from execugraph.safety.inert_text import md_text, one_line
from execugraph.stats.cost_tables import with_cost_columns
from execugraph.stats.report_model import StatsReport
from execugraph.stats.tables import category_paired_table, category_table, paired_table
from ui import frontier_parts, statistics_url, url_state, views
from ui.keys import Statistics
from ui.publish import chart, literal_rows, table_view, tables_download
from ui.views.formatting import MISSING, number
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
        table_view(with_cost_columns(paired_table(report), report, frontier_parts.chosen_metric()), key="stats.pairs")
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
        for p in report.comparisons
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
    pair = report.comparisons[names.index(chosen)]
    a, b = st.columns(2)
    a.markdown(f"**Solved only by {md_text(pair.a_name)}** ({len(pair.a_only)})")
    a.dataframe({"problem": pair.a_only}, hide_index=True)
    b.markdown(f"**Solved only by {md_text(pair.b_name)}** ({len(pair.b_only)})")
    b.dataframe({"problem": pair.b_only}, hide_index=True)
    st.caption(report.method["majority_rule"])


def pass_at_k_table(report: StatsReport) -> list[dict[str, str]]:
    """One row per arm, pass@k in percent like every other rate on the page; every arm has every k column, with
    an em dash where no problem has k trials (never a blank a data frame would show as None)."""
    table: dict[str, dict[str, str]] = {}
    columns: dict[str, None] = {}
    for row in views.pass_at_k_rows(report):
        column = f"pass@{row['k']} (%)"
        columns.setdefault(column)
        table.setdefault(row["arm"], {"arm": row["arm"]})[column] = number(row["pass_at_k"], ".1f", scale=100.0)
    ordered = sorted(columns, key=lambda c: int(c[5:].split(" ")[0]))
    return [{"arm": cells["arm"], **{c: cells.get(c, MISSING) for c in ordered}} for cells in table.values()]


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
