"""The Statistics page's view in its URL: `?runs=3,4&conditions=a,b&baseline=<arm>|all&comparable=1`.

Runs go through `widgets.run_picker(url=True)`; this module keeps the rest, applying a link once and
writing every later choice back, and names what a link asks for that is not there.
"""

from __future__ import annotations

import streamlit as st

from ui import url_state
from ui.keys import ALL_PAIRS, Statistics


def adopt_conditions() -> list[str]:
    """Conditions from `?conditions=` when the link is new (the caller warns about absent ones), else []."""
    raw = url_state.adopt("conditions", Statistics.CONDITIONS, url_state.split)
    return url_state.split(raw) if raw else []


def publish_conditions(conditions: list[str]) -> None:
    url_state.publish("conditions", Statistics.CONDITIONS, url_state.joined(conditions))


def _baseline(raw: str) -> str:
    return ALL_PAIRS if raw.strip().lower() == url_state.ALL else raw.strip()


def adopt_family(arms: list[tuple[str, str]]) -> None:
    """Baseline and comparable-only from the link; a baseline that is no arm here is named, then the default used."""
    raw = url_state.adopt("baseline", Statistics.COMPARE, _baseline)
    if raw is not None and _baseline(raw) not in {ALL_PAIRS, *dict(arms)}:
        url_state.warn_unknown("Baseline arm", [raw])
    url_state.adopt("comparable", Statistics.COMPARABLE_ONLY, url_state.flag)


def publish_family(baseline: str | None, comparable_only: bool, default: str | None = None) -> None:
    """Baseline (`default`: the family picker's own choice, not written on arrival) and comparable-only."""
    url_state.publish("baseline", Statistics.COMPARE, url_state.ALL if baseline is None else baseline,
                      default=url_state.ALL if default == ALL_PAIRS else default)
    url_state.publish("comparable", Statistics.COMPARABLE_ONLY, "1" if comparable_only else "0", default="1")


def adopt_choice(param: str, key: str, options: list[str], what: str) -> None:
    """A select box's value from `?param=` (before it is drawn); a value that is no option here is named."""
    raw = url_state.adopt(param, key)
    if raw is not None and raw not in options:
        url_state.warn_unknown(what, [raw])
        del st.session_state[key]
