"""The Batch page's live panel: progress bars that refresh on their own, with cancel and resume."""

from __future__ import annotations

from typing import Any

import streamlit as st

from execugraph import views
from execugraph.runner import request_cancel, resume
from ui import resources
from ui.keys import Batch
from ui.widgets import duration, pct


def _line(row: dict[str, Any]) -> str:
    parts = [f"{row['done']}/{row['total']} trials", f"pass rate so far {pct(row['pass_rate'])}"]
    if row["running"]:
        parts.append(f"{row['running']} running")
    if row["errors"]:
        parts.append(f"{row['errors']} errored")
    if row["eta_s"] is not None:
        parts.append(f"ETA {duration(row['eta_s'])}")
    return " · ".join(parts)


def _start_worker() -> None:
    resources.start_worker(resources.db_url())


def _resume(store: Any, run_id: int) -> None:
    """Queue the batch again and make sure a worker will take it."""
    resume(store, run_id)
    _start_worker()


@st.fragment(run_every=2.0)
def progress_panel(store: Any) -> None:
    """Queued and running batches, then the last finished ones; redrawn every two seconds."""
    rows = views.active_batches(store)
    if not rows:
        st.info(
            "No batches yet. Fill in the form below and press **Launch batch**; progress appears here.",
            icon=":material/info:",
        )
        return
    waiting = any(r["status"] in ("queued", "running") for r in rows)
    if waiting and not resources.worker_alive():
        left, right = st.columns([4, 1], vertical_alignment="center")
        left.warning(
            "No background worker is running, so queued batches are not progressing.", icon=":material/warning:"
        )
        right.button("Start worker", key=Batch.START_WORKER, icon=":material/play_arrow:", on_click=_start_worker)
    for row in rows:
        with st.container(border=True):
            left, right = st.columns([6, 1], vertical_alignment="center")
            status = "cancelling" if row["cancel_requested"] and row["status"] == "running" else row["status"]
            left.markdown(f"**{row['name']}** · {status}")
            left.progress(row["done"] / row["total"] if row["total"] else 0.0, text=_line(row))
            if row["error"]:
                left.caption(f":red[{row['error']}]")
            if row["status"] in ("queued", "running"):
                right.button(
                    "Cancel",
                    key=f"{Batch.CANCEL}{row['id']}",
                    disabled=row["cancel_requested"],
                    icon=":material/stop:",
                    on_click=request_cancel,
                    args=(store, row["id"]),
                )
            elif row["status"] in ("cancelled", "failed") or row["done"] < row["total"]:
                right.button(
                    "Resume",
                    key=f"{Batch.RESUME}{row['id']}",
                    icon=":material/replay:",
                    on_click=_resume,
                    args=(store, row["id"]),
                )
            else:
                right.page_link("pages/runs.py", label="Results", icon=":material/history:")
