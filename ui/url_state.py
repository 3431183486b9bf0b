"""A page's choices kept in the URL (`?runs=3,4&baseline=...`), so a link reopens the same view.

A value from the URL is applied once (per distinct value), before its widget is drawn; the page then
writes its current choices back, so the address bar always names what is shown. A marker per key
remembers the value written, so writing never re-applies it over a later choice.

Streamlit pushes a browser-history entry for every query-string write, so arriving on a page writes nothing:
defaults are left out, and what a page reached without a link shows (its runs) is deferred and written
together with the user's first change, in one update (one history entry, after which the link names the view).
One user change can make several parts of a page write (runs changed, so a chosen condition is dropped): every
write of a script run is collected and `flush` (at the end of the page, and in app.py) applies them in one update, so one
change is one history entry and one Back press undoes it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import streamlit as st

from execugraph.safety.inert_text import md_text

ALL = "all"  # ?baseline=all: all pairs
_PENDING = "_url.pending"  # {param: value} shown but not yet in the URL (see `defer`)
_WRITES = "_url.writes"  # {param: value or None} this script run wants written (see `write`, `flush`)


def _marker(key: str) -> str:
    return f"_url.{key}"


def split(raw: str) -> list[str]:
    """'a, b,,c' -> ['a', 'b', 'c']."""
    return [part.strip() for part in raw.split(",") if part.strip()]


def current() -> dict[str, str]:
    """The query string as this run will leave it: the URL with the writes not flushed yet applied."""
    now = st.query_params.to_dict()
    for param, value in st.session_state.get(_WRITES, {}).items():
        if value:
            now[param] = value
        else:
            now.pop(param, None)
    return now


def get(param: str) -> str | None:
    """`?param=` as this run will leave it (a write earlier in the run counts)."""
    return current().get(param)


def adopt(param: str, key: str, parse: Callable[[str], Any] = str) -> str | None:
    """Set `st.session_state[key]` from `?param=` when the URL holds a value not applied yet; returns that
    raw value (None when nothing new was applied)."""
    raw = get(param)
    if raw is None or st.session_state.get(_marker(key)) == raw:
        return None
    st.session_state[_marker(key)] = raw
    st.session_state[key] = parse(raw)
    return raw


def defer(params: dict[str, str] | None) -> None:
    """Remember values the view shows that the URL does not name yet (replacing earlier ones): `write` adds
    them to the next change, so arriving adds no history entry and the first change makes the link whole."""
    st.session_state[_PENDING] = dict(params or {})


def write(changes: dict[str, str | None]) -> None:
    """Queue `changes` (None or "" removes a param) and the deferred values for this run's one `flush`.

    One update is one history entry: separate writes made one change take several Back presses to undo.
    """
    shown = current()
    queued = dict(st.session_state.get(_WRITES, {}))
    queued |= {p: v for p, v in st.session_state.get(_PENDING, {}).items() if p not in shown}
    queued |= {p: v or None for p, v in changes.items()}
    st.session_state[_WRITES] = queued
    st.session_state[_PENDING] = {}


def flush() -> None:
    """Apply every write this script run queued in one query-string update (one history entry), if any."""
    queued = st.session_state.get(_WRITES)
    if not queued:
        return
    wanted = current()
    st.session_state[_WRITES] = {}
    if wanted != st.query_params.to_dict():
        st.query_params.from_dict(wanted)


def stop() -> NoReturn:
    """`st.stop()` after flushing: a page that stops early still names its view (AppTest runs a page without
    app.py, whose `finally` flushes on a served dashboard)."""
    flush()
    st.stop()


def publish(param: str, key: str, value: str | None, default: str | None = None) -> None:
    """Write the current choice to `?param=` (removed when None or empty) and mark it as applied.

    A value equal to `default` is not written into a URL that lacks the param: arriving from a link then
    adds no history entry (one Back leaves).
    """
    now = get(param)
    if value and value == default and now is None:
        st.session_state[_marker(key)] = value
        return
    if (value or None) != now:
        write({param: value})
    st.session_state[_marker(key)] = value or None


def joined(values: Sequence[Any]) -> str:
    """[3, 4] -> '3,4'."""
    return ",".join(str(v) for v in values)


def flag(raw: str) -> bool:
    """'1', 'true', 'yes', 'on' -> True; anything else False."""
    return raw.strip().lower() in ("1", "true", "yes", "on")


def warn_unknown(what: str, names: Sequence[Any], outcome: str = "left out") -> None:
    """Say which values from the link this database does not have, and what became of them (never silently)."""
    if names:
        listed = ", ".join(md_text(str(n)) for n in names)
        st.warning(f"{what} from the link not found, {outcome}: {listed}.", icon=":material/link_off:")
