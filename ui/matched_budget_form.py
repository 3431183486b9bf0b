"""The Batch form's "Match the budget of condition X": the cheaper condition gets enough samples (seeds) per problem
to spend X's budget per trial, planned from stored trials when the batch is launched (`batch.matched_plan`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from execugraph.batch.matched_budget_spec import MEASURES, UNITS, MatchedBudgetPlan
from execugraph.safety.inert_text import one_line

if TYPE_CHECKING:
    from execugraph.batch.spec import BatchSpec

# Session keys of this part of the form (kept here: no other page reads them)
COSTLY = "batch.match_budget_of"
CHEAP = "batch.match_budget_cheap"
MEASURE = "batch.match_budget_measure"
NONE = "(none)"


def with_matched_budget(spec: BatchSpec) -> BatchSpec:
    """Draw the choice under the grid and return the spec with it (unchanged when none is chosen or it cannot apply).

    Raises ValueError for a choice the spec refuses (a sequential batch, say), for the form's error line.
    """
    arms = list(spec.arms)
    if len(arms) < 2:
        return spec
    for key, options in ((COSTLY, [NONE, *arms]), (CHEAP, arms), (MEASURE, list(MEASURES))):
        if st.session_state.get(key) not in options:
            st.session_state[key] = options[0]
    a, b, c = st.columns(3)
    a.selectbox("Match the budget of condition", [NONE, *arms], key=COSTLY, format_func=one_line,
                help="queue enough samples (seeds) of a cheaper condition per problem to spend this one's budget per "
                "trial, planned from stored trials of this benchmark and models; Statistics then shows its pass@k "
                "at that budget")
    costly = st.session_state[COSTLY]
    cheaper = [x for x in arms if x != costly]
    if st.session_state[CHEAP] not in cheaper:
        st.session_state[CHEAP] = cheaper[0]
    b.selectbox("with more samples of", cheaper, key=CHEAP, format_func=one_line, disabled=costly == NONE)
    c.selectbox("measured in", list(MEASURES), key=MEASURE, format_func=lambda m: UNITS[m], disabled=costly == NONE)
    if costly == NONE:
        return spec
    plan = MatchedBudgetPlan(cheap=st.session_state[CHEAP], costly=costly, measure=st.session_state[MEASURE])
    return type(spec)(**(spec.model_dump() | {"matched_budget": plan.model_dump()}))
