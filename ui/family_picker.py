"""Choosing the comparison family on Statistics: all pairs, or every arm against a baseline, comparable pairs only."""

from __future__ import annotations

import streamlit as st

from execugraph.safety.inert_text import one_line
from ui.keys import ALL_PAIRS, Statistics

ALL_PAIRS_UP_TO = 4  # with more arms, all pairs (6+) swamp the table: start from a baseline instead


def default_choice(arms: list[tuple[str, str]]) -> str:
    """All pairs for a handful of arms; beyond that, every arm against the first one."""
    return ALL_PAIRS if len(arms) <= ALL_PAIRS_UP_TO else arms[0][0]


def family_picker(arms: list[tuple[str, str]]) -> tuple[str | None, bool]:
    """The baseline arm's label (None: all pairs) and whether only comparable pairs are tested."""
    names = dict(arms)
    options = [ALL_PAIRS, *names]
    if st.session_state.get(Statistics.COMPARE) not in options:
        st.session_state[Statistics.COMPARE] = default_choice(arms)
    row = st.container(horizontal=True, vertical_alignment="bottom")  # wraps: a narrow column cut the toggle
    choice = row.selectbox(
        "Comparisons",
        options,
        width=320,
        key=Statistics.COMPARE,
        format_func=lambda o: "all pairs" if o == ALL_PAIRS else one_line(f"each arm against {names[o]}"),
        help="the family of comparisons Holm's correction runs over: all pairs, or each arm against one baseline",
    )
    row.toggle(
        "Only comparable pairs",
        key=Statistics.COMPARABLE_ONLY,
        help="arms that ran the same benchmark and share at least one problem; other pairs are listed apart "
        "with the reason (pairs with no common problem are never compared)",
    )
    return (None if choice == ALL_PAIRS else choice), bool(st.session_state[Statistics.COMPARABLE_ONLY])
