"""What every page script does first, in one place: a page is also run on its own (a deep link in a fresh
process), so each one sets its session defaults and passes the sign-in gate before drawing anything."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from ui import access, keys, resources, url_state, views
from ui.widgets import empty_state

if TYPE_CHECKING:
    from execugraph.store import Store


def open_page(title: str) -> Store:
    """Session defaults, the sign-in gate (nothing of the page before it), then the page's title; the store."""
    keys.init_state(st.session_state)
    access.guard_page()
    store = resources.store()
    st.title(title)
    return store


def stop_without_runs(store: Store, text: str) -> None:
    """End the page with `text` and a link to the Batch page when the database holds no run yet."""
    if not views.run_choices(store, limit=1):
        empty_state(text, page="pages/batch.py", label="Launch a batch")
        url_state.stop()
