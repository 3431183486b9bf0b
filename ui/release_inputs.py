"""Batch form: "released after / before" dates, shown when the benchmark's problems carry release dates; the batch
then runs only the problems released in that window (`execugraph.batch.release_window`). "Released after" starts at
the latest training cutoff of the chosen models in the model-cutoff table (Statistics), empty when none is known."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

import streamlit as st

from execugraph.domain.config import ROLES
from execugraph.safety.inert_text import md_text
from ui import keys
from ui.keys import Batch

AFTER = "batch.released_after"
BEFORE = "batch.released_before"
OFFERED = "batch.release_window_offered"  # whether this run of the form showed the dates
DEFAULTED = "batch.released_after_default"  # the default last put into AFTER (replaced while the user keeps it)


def chosen_models(state: Mapping[str, Any]) -> list[str]:
    """The model specs the form's batch would call: the compared models (or the default model) and role overrides."""
    axis = [m for m in state.get(Batch.MODEL_AXIS) or [] if isinstance(m, str)]
    if axis:
        from execugraph.configuration.model_axis import parse_models

        try:
            axis = list(parse_models(",".join(axis)).values())
        except ValueError:  # the form names the bad entry below; the specs as typed still find their cutoffs
            pass
    base = axis or [state.get(Batch.DEFAULT_MODEL) or ""]
    roles = [state.get(Batch.ROLE_MODEL + role) for role in ROLES]
    return list(dict.fromkeys(m for m in [*base, *roles] if isinstance(m, str) and m and m != keys.SAME_AS_DEFAULT))


def cutoff_default(models: list[str], cutoffs: Mapping[str, str]) -> tuple[date | None, str]:
    """(the latest training cutoff among `models`, a caption saying where it came from); (None, why) when no model
    has one."""
    known = {m: cutoffs[m] for m in models if m in cutoffs}
    where = "the model-cutoff table (Statistics, Contamination window)"
    if not known:
        return None, f"No training cutoff of {', '.join(models) or 'the chosen models'} in {where}: no default."
    model = max(known, key=lambda m: known[m])
    others = f", the latest of {len(known)} known" if len(known) > 1 else ""
    return date.fromisoformat(known[model]), (f"Released after defaults to {known[model]}: the training cutoff of "
                                              f"{model} in {where}{others}.")


def _apply_default(default: date | None) -> None:
    """Put `default` into the date unless the user has changed it from the last default (their choice stays)."""
    s = st.session_state
    if AFTER not in s or s[AFTER] == s.get(DEFAULTED):
        s[AFTER] = default
    s[DEFAULTED] = default


def window_inputs(problems: list[Any]) -> None:
    """The two date inputs and how many problems carry a date (nothing when none does)."""
    dated = [p for p in problems if getattr(p, "release_date", "")]
    st.session_state[OFFERED] = bool(dated)
    if not dated:
        return
    from execugraph.store.model_cutoffs import model_cutoffs
    from ui import resources

    default, source = cutoff_default(chosen_models(st.session_state), model_cutoffs(resources.store()))
    _apply_default(default)
    a, b = st.columns(2)
    a.date_input("Released after (empty = no bound)", value=None, key=AFTER, format="YYYY-MM-DD",
                 help="run only the problems released strictly after this date (e.g. a model's training cutoff)")
    b.date_input("Released before (empty = no bound)", value=None, key=BEFORE, format="YYYY-MM-DD",
                 help="... and strictly before this date")
    undated = len(problems) - len(dated)
    first, last = min(p.release_date for p in dated), max(p.release_date for p in dated)
    st.caption(f"{len(dated)} problem(s) released {first} .. {last}"
               + (f"; {undated} without a release date, left out when a date is set." if undated else "."))
    st.caption(md_text(source))  # model specs come from the store and the form: shown, never rendered


def window_fields() -> dict[str, str | None]:
    """BatchSpec's `released_after` / `released_before` as the form has them (empty when the dates were not shown)."""
    s = st.session_state
    if not s.get(OFFERED):
        return {}
    return {"released_after": s[AFTER].isoformat() if s.get(AFTER) else None,
            "released_before": s[BEFORE].isoformat() if s.get(BEFORE) else None}
