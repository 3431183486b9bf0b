"""Widgets several pages share: model pickers, run pickers seeded from links, empty states, formatting."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import streamlit as st

from execugraph.configuration.settings import EMBEDDED_MODEL
from execugraph.domain.config import ROLES
from execugraph.safety.inert_text import one_line
from ui import keys, url_state
from ui.views.formatting import duration  # noqa: F401 - the one formatting rule, used by pages via ui.widgets

if TYPE_CHECKING:
    from execugraph.store import Store


def pct(value: float | None, digits: int = 0) -> str:
    """0.4567 -> '46%' (MISSING for None or NaN)."""
    from ui.views.formatting import number  # the tables' formatter (and SciPy with it): not on the first page

    return number(value, f".{digits}f", scale=100.0, suffix="%")


def read_only_notice(store: Store, action: str) -> bool:
    """On a read-only database, say that `action` (e.g. "Launching a batch") is off and why; True when it is."""
    if not getattr(store, "read_only", False):
        return False
    st.info(f"{action} is disabled: {store.read_only_note}.", icon=":material/lock:")
    return True


def empty_state(message: str, *, page: str | None = None, label: str | None = None) -> None:
    """Say there is nothing to show and what to do next, with a link to the page that does it."""
    st.info(message, icon=":material/info:")
    if page:
        st.page_link(page, label=label or "Go there", icon=":material/arrow_forward:")


def model_pickers(
    default_key: str, role_prefix: str, choices: list[str], why_missing: str | None, *, persist: Any = None
) -> tuple[str, dict[str, str]]:
    """Default model plus optional per-role overrides; returns (default spec, {role: spec}).

    `persist` is the pickers' `persist_state` ("session": kept while another page is shown).
    """
    current = st.session_state.get(default_key)
    options = list(dict.fromkeys([*choices, *([current] if current else [])]))
    default = st.selectbox(
        "Model",
        options,
        key=default_key,
        format_func=one_line,
        persist_state=persist,
        help=f"{EMBEDDED_MODEL} is the small embedded model; pulled Ollama models are listed too; "
        "the starting choice is EXECUGRAPH_MODEL",
    )
    if why_missing:
        st.caption(f"{why_missing}; only the embedded model is offered. Start Ollama (`ollama serve`) for more.")
    models: dict[str, str] = {}
    with st.expander("Model per role"):
        role_options = [keys.SAME_AS_DEFAULT, *options]
        for role in ROLES:
            key = role_prefix + role
            if st.session_state.get(key) not in role_options:
                st.session_state[key] = keys.SAME_AS_DEFAULT
            choice = st.selectbox(role.capitalize(), role_options, key=key, persist_state=persist, format_func=one_line)
            if choice != keys.SAME_AS_DEFAULT:
                models[role] = choice
    return default, models


def show_model_problems(problems: Sequence[Any]) -> None:
    """One error per model that cannot answer, naming the fix."""
    for problem in problems:
        st.error(f"**{problem.spec}**: {problem.problem} - {problem.fix}.", icon=":material/error:")


def _parse_ids(raw: str) -> list[int]:
    return [int(part) for part in url_state.split(raw) if part.isdigit()]


def run_picker(
    key: str,
    store: Store,
    *,
    label: str = "Runs",
    fallback: Callable[[], list[int]] | None = None,
    help: str | None = None,
    url: bool = False,
) -> list[int]:
    """A multiselect of runs, preset from a `?runs=1,2` link, else the Runs page selection, else `fallback()`.

    Offers the newest runs plus any run already chosen, however old. With `url`, the choice is written back
    to `?runs=` so the link stays shareable; the runs a page shows on arrival without a link are deferred
    (`url_state.defer`: no history entry), and what a link names that this database lacks stays in it and
    is named in a warning on every run, until the user removes it (a colleague's database may have it).
    """
    from ui.views import run_choices

    raw = url_state.get("runs")
    marker = f"_preset.{key}"
    kept = f"_kept.{key}"  # the last choice, kept while another page is shown (Streamlit drops widget state)
    arrival = f"_arrival.{key}"  # what a page reached without a link preset (not written to the URL)
    missing = f"_missing.{key}"  # parts of the link this database lacks, kept in ?runs=
    preset: list[int] | None = None
    from_link = bool(raw) and st.session_state.get(marker) != ("query", raw)
    if from_link:
        preset, st.session_state[marker] = _parse_ids(raw or ""), ("query", raw)
    elif not st.session_state.get(key) and st.session_state.get(marker) is None:
        preset = list(st.session_state.get(keys.SELECTED_RUNS) or []) or (fallback() if fallback else [])
        st.session_state[marker] = ("default", tuple(preset))
    elif key not in st.session_state and kept in st.session_state:  # back from another page
        preset = list(st.session_state[kept])
    if preset is not None and not from_link:
        st.session_state[arrival] = tuple(preset)
    wanted = preset if preset is not None else list(st.session_state.get(key) or [])
    labels = dict(run_choices(store, include=wanted))
    if from_link:
        st.session_state[missing] = [p for p in url_state.split(raw or "") if not (p.isdigit() and int(p) in labels)]
    elif not raw:
        st.session_state[missing] = []
    unknown = list(st.session_state.get(missing) or [])
    st.session_state[key] = [r for r in wanted if r in labels]
    chosen = st.multiselect(label, list(labels), key=key, format_func=lambda r: one_line(labels.get(r, f"#{r}")),
                            help=help)
    st.session_state[kept] = list(chosen)
    if unknown and url and st.session_state.get(f"{key}.forget"):  # "Remove them from the link" was clicked
        unknown = st.session_state[missing] = []
    if unknown:
        shown = [f"#{p}" if p.isdigit() else p for p in unknown]
        url_state.warn_unknown("Runs", shown, "kept in the link" if url else "left out")
        if url:
            st.button("Remove them from the link", key=f"{key}.forget", icon=":material/link_off:")
    if url:
        value = url_state.joined([*chosen, *unknown])
        if raw is None and tuple(chosen) == st.session_state.get(arrival) and not unknown:
            url_state.defer({"runs": value} if value else None)
        else:
            url_state.defer(None)
            if raw != value:
                url_state.write({"runs": value or None})
        st.session_state[marker] = ("query", value or None)
    return chosen
