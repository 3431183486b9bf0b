"""Statistics page: a "released after" date, and each comparison on all problems beside the same comparison on
the problems released after it (`execugraph.verdicts.windows`: own n, CI and Holm p, and whether it holds)."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from execugraph.safety.inert_text import md_text
from execugraph.stats.family import Family
from execugraph.stats.report_model import StatsReport
from execugraph.store import Store
from execugraph.verdicts.windows import Window
from ui import cutoff_parts, section_cache
from ui.publish import literal_rows

RELEASED_AFTER = "stats.released_after"


def _pp(value: float | None) -> str:
    return "" if value is None else f"{value:+.1f}"


def _ci(values: dict | None) -> str:
    if not values or values.get("ci_lo") is None or values.get("ci_hi") is None:
        return ""
    return f"{values['ci_lo']:.1f} .. {values['ci_hi']:.1f}"


def _p(value: float | None) -> str:
    return "" if value is None else f"{value:.3g}"


def window_section(store: Store, report: StatsReport, run_ids: Sequence[str], conditions: Sequence[str] | None,
                   family: Family) -> None:
    """The date input and, once a date is chosen, the windowed comparisons beside the full ones."""
    if not report.pairs:
        return
    st.subheader("Contamination window")
    cutoff_parts.cutoff_table(store, report)  # model -> training cutoff; the later one of the runs' is the default
    chosen = st.date_input("Released after (compare again on the problems released after this date)",
                           value=cutoff_parts.default_released_after(store, report), key=RELEASED_AFTER,
                           format="YYYY-MM-DD")
    if chosen is None:
        st.caption("Pick a date to show each comparison also on the problems released after it.")
        return
    section = section_cache.window(store, report, run_ids, conditions, baseline=family.baseline,  # cached per inputs
                                   comparable_only=family.comparable_only, after=chosen.isoformat())
    rows = []
    for pair in section.pairs:
        full, inside = pair.full, pair.windowed or {}
        rows.append({"a": pair.a_name, "b": pair.b_name,
                     "n (all)": full["n"], "delta pp (all)": _pp(full["delta_pp"]), "95% CI (all)": _ci(full),
                     "p holm (all)": _p(full["p_holm"]),
                     "n (window)": inside.get("n", 0), "delta pp (window)": _pp(inside.get("delta_pp")),
                     "95% CI (window)": _ci(pair.windowed), "p holm (window)": _p(inside.get("p_holm")),
                     "holds": {True: "yes", False: "NO", None: "untested"}[pair.holds]})
    st.table(literal_rows(rows), hide_index=True)
    for pair in section.pairs:
        st.markdown(f"- {md_text(pair.sentence)}")
    in_window = section.inside.get(Window(after=chosen.isoformat()).describe(), 0)
    undated = (f"{len(section.undated)} problem(s) without a release date, left out of the window: "
               f"{', '.join(section.undated[:20])}{' ...' if len(section.undated) > 20 else ''}"
               if section.undated else "every problem has a release date")
    st.caption(md_text(f"{in_window} problem(s) released after {chosen.isoformat()}; {undated}."))
