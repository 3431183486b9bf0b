"""The Batch page's live panel: progress bars that refresh on their own, with cancel and resume."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st

from execugraph.batch.control import request_cancel, resume
from execugraph.safety.inert_text import md_text
from ui import resources, views
from ui.keys import Batch
from ui.widgets import duration, pct

if TYPE_CHECKING:
    from execugraph.store import Store

ACTIVE = ("queued", "running")


def _line(row: dict[str, Any]) -> str:
    so_far = " so far" if row["status"] in ACTIVE else ""
    parts = [
        f"{row['done']}/{row['total']} trials finished",
        f"passed {row['passed']}/{row['graded']} graded ({pct(row['pass_rate'])}){so_far}",
        f"{row['errors']} errored",
    ]
    if row["running"]:
        parts.append(f"{row['running']} running")
    if row.get("eta_text"):
        parts.append(row["eta_text"])
    elif row["eta_s"] is not None:
        parts.append(f"ETA {duration(row['eta_s'])}")
    return " · ".join(parts)


def _waiting(where: Any, row: dict[str, Any]) -> None:
    """The LLM endpoints this batch's trials are waiting on (they retry until it answers or the budget ends)."""
    for line in row.get("waiting") or []:
        where.warning(md_text(line), icon=":material/cloud_off:")


def _start_worker() -> None:
    resources.start_worker(resources.db_url())


def _resume(store: Store, run_id: int) -> None:
    """Queue the batch again and make sure a worker will take it."""
    resume(store, run_id)
    _start_worker()


def progress_panel(store: Store) -> None:
    """Queued and running batches, then the last finished ones.

    While a batch is queued or running the panel redraws itself every two seconds and, when the last one
    ends, reruns the whole page (so everything on it shows the end); with nothing running it does not poll.
    It is one fragment at one place whether it polls or not, so its id stays the same across reruns: a click
    on a card drawn before the last batch ended (Resume) still finds it, instead of being dropped with
    "Couldn't find fragment with id ..." and leaving the card saying "cancelled".
    """
    live = bool(views.active_batch_ids(store))
    st.fragment(_panel, run_every=2.0 if live else None)(store, live)


def _panel(store: Store, live: bool) -> None:
    rows = views.active_batches(store)
    _draw(store, rows)
    if any(r["status"] in ACTIVE for r in rows) != live:
        st.rerun()  # a batch started (Resume) or the last one ended: redraw the page, which starts or stops polling


def _draw(store: Store, rows: list[dict[str, Any]]) -> None:
    if not rows:
        st.info(
            "No batches yet. Fill in the form below and press **Launch batch**; progress appears here.",
            icon=":material/info:",
        )
        return
    waiting = any(r["status"] in ACTIVE for r in rows)
    if waiting and not store.read_only and not resources.worker_alive():
        st.warning(
            "No background worker is running, so queued batches are not progressing.", icon=":material/warning:"
        )
        st.button("Start worker", key=Batch.START_WORKER, icon=":material/play_arrow:", on_click=_start_worker)
    for row in rows:
        with st.container(border=True, key=f"{Batch.CARD}{row['id']}"):
            # the buttons go under the line, in a row that wraps: a narrow column cut them to "C.." at 800 px
            left, right = st.container(), st.container(horizontal=True)
            status = "cancelling" if row["cancel_requested"] and row["status"] == "running" else row["status"]
            left.markdown(f"**{md_text(row['name'])}** · {status}")
            left.progress(row["done"] / row["total"] if row["total"] else 0.0, text=_line(row))
            if row["error"]:
                left.caption(f":red[{md_text(row['error'])}]")
            _waiting(left, row)
            for line in row.get("sequential") or []:
                left.caption(md_text(line))
            _details(left, row)
            if row["status"] in ACTIVE:
                right.button(
                    "Cancel",
                    key=f"{Batch.CANCEL}{row['id']}",
                    disabled=row["cancel_requested"] or store.read_only,
                    icon=":material/stop:",
                    on_click=request_cancel,
                    args=(store, row["id"]),
                    help="stop after the trials in progress",
                )
                if row["status"] == "running" and row["running"]:
                    right.button(
                        "Cancel now",
                        key=f"{Batch.CANCEL_NOW}{row['id']}",
                        disabled=store.read_only,
                        icon=":material/cancel:",
                        on_click=request_cancel,
                        args=(store, row["id"]),
                        kwargs={"now": True},
                        help="abandon the trials in progress too: recorded as cancelled, rerun on resume",
                    )
            elif row["status"] in ("cancelled", "failed") or (row["done"] < row["total"]
                                                               and not row.get("sequential_stopped")):
                right.button(
                    "Resume",
                    key=f"{Batch.RESUME}{row['id']}",
                    icon=":material/replay:",
                    disabled=store.read_only,
                    on_click=_resume,
                    args=(store, row["id"]),
                )
            else:
                right.page_link("pages/runs.py", label="Results", icon=":material/history:")


def _details(where: Any, row: dict[str, Any]) -> None:
    """Per-condition counts, elapsed time and tokens, links to the trials in flight, and a subset's problems."""
    details = row.get("details")
    if details is None:
        return
    where.caption(md_text(details.summary) + "  \n" + "  \n".join(md_text(line) for line in details.conditions))
    for link in details.in_flight:
        where.page_link("pages/trace.py", label=md_text(link.label), icon=":material/timeline:",
                        query_params={"run": str(link.run_id), "trial": str(link.trial_id)})
    if details.subset:
        with where.expander(f"Random subset: the {len(details.subset)} problems drawn"):
            st.caption(md_text(", ".join(details.subset)))


def scroll_to_launched() -> None:
    """Once after Launch: bring the new batch's card into view (the button is far below it)."""
    run_id = st.session_state.pop(Batch.SCROLL_TO, None)
    if run_id is None:
        return
    target = f".st-key-{Batch.CARD}{int(run_id)}"
    st.html(
        "<script>(function(){let n=0;const go=()=>{const el=window.parent.document.querySelector('" + target
        + "')||document.querySelector('" + target + "');if(el){el.scrollIntoView({block:'start'});"
        "el.setAttribute('tabindex','-1');el.focus({preventScroll:true});}else if(n++<40){setTimeout(go,100);}};"
        "go();})();</script>",
        unsafe_allow_javascript=True,
    )


@st.cache_data(max_entries=64, show_spinner="Simulating the sequential design...")
def sequential_plan(problems: int, per_arm: int, baseline: float, design_json: str, comparisons: int) -> str:
    """The expected savings of a sequential design (simulated once per design, then cached)."""
    from execugraph.sequential.design import SequentialDesign

    design = SequentialDesign.model_validate_json(design_json)
    return views.sequential_plan_text(problems, per_arm, baseline, design, max(1, comparisons))


def launched_notice(store: Store, run_id: int) -> None:
    """What became of the batch this session launched: queued, running, or finished with its outcome."""
    run = store.get_run(run_id)
    if run is None:
        return
    row = next((r for r in views.active_batches(store) if r["id"] == run_id), None)
    name = md_text(row["name"]) if row else f"#{run_id}"
    if run.status in ACTIVE:
        st.success(
            f"Batch {name} is {run.status}; its progress is shown at the top of this page.", icon=":material/check:"
        )
        return
    status = row["status"] if row else run.status  # "done with errors" when trials errored
    outcome = f": passed {row['passed']}/{row['graded']} graded, {row['errors']} errored" if row else ""
    (st.success if status == "done" else st.warning)(f"Batch {name} is {status}{outcome}.", icon=":material/flag:")
    st.page_link(
        "pages/statistics.py",
        label="Compare its conditions in Statistics",
        query_params={"runs": str(run_id)},
        icon=":material/functions:",
    )
