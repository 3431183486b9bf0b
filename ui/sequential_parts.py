"""Statistics page: sequential batches' own decisions, and a replay of what a sequential design would have saved."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from execugraph.safety.inert_text import md_text, one_line
from ui import statistics_url, url_state

if TYPE_CHECKING:
    from execugraph.store import Store

BASE, OTHER, LOOKS, ORDERS, GO = ("stats.replay.base", "stats.replay.other", "stats.replay.looks",
                                  "stats.replay.orders", "stats.replay.go")


def stops(store: Store, run_ids: list[int]) -> None:
    """What stopped each sequential batch among the runs: the repeated CI and p its comparisons may quote."""
    from execugraph.sequential.summary import alpha_of, describe, state_of

    for run_id in run_ids:
        run = store.get_run(run_id)
        lines = describe(state_of(run), alpha=alpha_of(run)) if run is not None else []
        if lines:
            st.info(f"**Run {run_id}** {md_text(lines[0])}  \n" + "  \n".join(md_text(x) for x in lines[1:]) +
                    "  \nThe paired p-values above ignore the interim looks; quote these.",
                    icon=":material/fast_forward:")


def stored_arm(label: str, run_ids: list[int]) -> str:
    """The `RUN` or `RUN:CONDITION` a report's arm label stands for (one run's arms are labelled by condition)."""
    return label if ":" in label or label.isdigit() else f"{run_ids[0]}:{label}"


def replay_section(store: Store, arms: list[tuple[str, str]], run_ids: list[int]) -> None:
    """Replay two of the compared arms through a sequential design in random problem orders; the two arms are
    in the URL (`?replay=<arm>&replay_vs=<arm>`, defaults left out) so a link reopens the same replay."""
    if len(arms) < 2 or not run_ids:
        return
    with st.expander("What a sequential batch would have saved (replay)"):
        labels = [label for label, _ in arms]
        names = dict(arms)
        a, b = st.columns(2)
        statistics_url.adopt_choice("replay", BASE, labels, "Replay baseline arm")
        if st.session_state.get(BASE) not in labels:
            st.session_state[BASE] = labels[0]
        base = a.selectbox("Baseline arm", labels, key=BASE, format_func=lambda x: one_line(names.get(x, x)))
        url_state.publish("replay", BASE, base, default=labels[0])
        others = [x for x in labels if x != base]
        statistics_url.adopt_choice("replay_vs", OTHER, others, "Replay compared arm")
        if st.session_state.get(OTHER) not in others:
            st.session_state[OTHER] = others[0]
        other = b.selectbox("Compared arm", others, key=OTHER, format_func=lambda x: one_line(names.get(x, x)))
        url_state.publish("replay_vs", OTHER, other, default=others[0])
        c, d = st.columns(2)
        looks = c.number_input("Looks", min_value=2, max_value=50, value=10, step=1, key=LOOKS)
        orders = d.number_input("Problem orders", min_value=10, max_value=2000, value=200, step=10, key=ORDERS)
        if st.button("Replay", key=GO, icon=":material/replay:"):
            _show(store, stored_arm(base, run_ids), stored_arm(other, run_ids), int(looks), int(orders))


def _show(store: Store, base: str, other: str, looks: int, orders: int) -> None:
    from execugraph.sequential.design import SequentialDesign
    from execugraph.sequential.replay import replay_runs

    try:
        with st.spinner("Replaying..."):
            (label_a, label_b), got = replay_runs(store, base, other, design=SequentialDesign(looks=looks),
                                                  orders=orders)
    except ValueError as exc:
        st.error(f"Cannot replay: {md_text(exc)}", icon=":material/error:")
        return
    full = "significant" if got.full_significant else "not significant"
    cols = st.columns(3)
    cols[0].metric("Same decision as the full data", f"{got.agreement:.0%}")
    cols[1].metric("Trials used", f"{got.mean_trials_fraction:.0%}")
    cols[2].metric("Type-I error (A/A)", f"{got.type1_error:.1%}")
    st.caption(md_text(
        f"{label_b} vs {label_a}: {got.problems} paired problems, full data {got.full_delta * 100:+.1f} pp "
        f"(z = {got.full_z:.2f}, {full} at 0.05); over {got.orders} random orders the sequential design stopped "
        f"at look {got.mean_stop_look:.1f} of {got.looks} on average ("
        + ", ".join(f"{k}: {v}" for k, v in sorted(got.stops.items())) + "). Type-I error: the same replay with "
        "each problem's arms swapped at random."))
