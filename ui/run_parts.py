"""The Runs page's detail panel: one run's summary (pass rate by condition and category) and its management."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import streamlit as st

from execugraph.figures import charts
from execugraph.safety.inert_text import md_text, one_line
from execugraph.store import RunFilter, run_reads
from ui import url_state
from ui.keys import Runs
from ui.publish import plot
from ui.views.runs_cells import RUN_TABLE_TEXT, SUMMARY_TEXT, shown_rows
from ui.widgets import duration, pct

if TYPE_CHECKING:
    from execugraph.store import Run, Store
    from ui.views.run_groups import RunGroup


LOADED = "_runs.loaded"  # the run whose title and tags the manage panel's boxes hold (not a widget)
MAX_FAMILIES = 20  # parents whose derived runs get a collapsed section; more are named in a caption
COLUMN_CONFIG_HELP = {
    "family": "a run's rescores and other derived runs are listed, collapsed, under the table; a derived run "
    "whose run is not listed here has a row of its own",
    "llm_calls": "LLM calls its trials made (a rescore makes none: it reruns stored programs)",
    "tokens": "tokens in + out of its trials (a rescore: none)",
    "wall_clock": "its finished trials' wall-clock added up; a rescore: how long rescoring took (— if unrecorded)",
}


def runs_table(rows: list[dict[str, Any]], key: str) -> None:
    """A table of run rows (`views.group_runs`), as the Runs page and its derived-run sections draw them."""
    st.dataframe(
        shown_rows(rows, RUN_TABLE_TEXT),  # the pass rate as text: — where nothing is graded yet, never blank
        hide_index=True,
        key=key,
        column_order=table_columns(rows[0]),
        column_config={
            "name": st.column_config.TextColumn("name", width="medium"),
            "pass_rate": st.column_config.TextColumn(  # 33.3% or —, sorting as numbers (ui/views/runs_cells.py)
                "pass rate", width="small", help="passed / graded trials; — : none graded yet", alignment="right",
            ),
            "created": st.column_config.DatetimeColumn("created", format="YYYY-MM-DD HH:mm"),
            "family": st.column_config.TextColumn("derived runs", help=COLUMN_CONFIG_HELP["family"]),
            "llm_calls": st.column_config.NumberColumn("LLM calls", help=COLUMN_CONFIG_HELP["llm_calls"],
                                                       width="small", format="localized"),
            "tokens": st.column_config.NumberColumn("tokens", help=COLUMN_CONFIG_HELP["tokens"], width="small",
                                                    format="localized"),  # 41,760 as the run detail writes it
            "wall_clock": st.column_config.TextColumn("wall clock", help=COLUMN_CONFIG_HELP["wall_clock"],
                                                      width="small"),
        },
    )


FIRST_COLUMNS = ("name", "pass_rate", "llm_calls", "tokens", "wall_clock")  # in view at 1400 px without scrolling


def table_columns(row: Mapping[str, Any]) -> list[str]:
    """The drawn columns: the name (it carries the title and #id), then the numbers compared, then the rest."""
    from ui.views.run_groups import HIDDEN_COLUMNS

    first = [c for c in FIRST_COLUMNS if c in row]
    return first + [c for c in row if c not in HIDDEN_COLUMNS and c not in first]


def family_key(run_id: int) -> str:
    """The session-state key of a run's derived-runs section (True while it is open)."""
    return f"runs.family.{run_id}"


def derived_sections(groups: list[RunGroup]) -> None:
    """Each listed run's rescores (and other derived runs) in a section of their own, collapsed until opened."""
    from ui.views.run_groups import family_count

    families = [g for g in groups if g.children]
    for group in families[:MAX_FAMILIES]:
        noun = "Rescores" if all(c["derived"] == "rescore" for c in group.children) else "Derived runs"
        label = f"{noun} of {md_text(group.row['name'])} ({family_count(group.children)})"
        section = st.expander(label, expanded=False, icon=":material/account_tree:", key=family_key(group.row["id"]),
                              on_change="rerun")
        if section.open:  # drawn only once opened: a closed section costs nothing
            with section:
                runs_table(group.children, key=f"runs.children.{group.row['id']}")
    if len(families) > MAX_FAMILIES:
        st.caption(f"The derived runs of {len(families) - MAX_FAMILIES} more run(s) are not shown; narrow the "
                   "filters to see them, or pick them under Run detail.")


def summary_panel(store: Store, run: Run, row: Mapping[str, Any] | None = None) -> None:
    """Overall numbers, a table per condition, and the condition x category pass-rate heatmap (all SQL-side).

    A rescore (`row["derived"]`) shows its own cost: no token, its rescoring time; its trials' copied
    generation costs are left out, since they are its parent's.
    """
    summary = store.run_summary(run.id)
    overall = summary["overall"]
    rescore = bool(row) and row.get("derived") == "rescore"
    # one wrapping row of content-wide metrics: five equal columns cut labels and values ("100.…") at 800 px
    # gap "medium": "large" is also the gap between wrapped rows, a wide band at 800 px
    row_of_metrics = st.container(horizontal=True, gap="medium")
    m = [row_of_metrics] * 5
    m[0].metric("Graded", f"{overall['graded']}/{overall['trials']}", help="trials judged by their tests / all trials",
                width="content")
    m[1].metric(f"Pass rate ({overall['passed']}/{overall['graded']} graded)", pct(overall["pass_rate"], 1),
                width="content")
    m[2].metric("Errors", overall["errors"], help="trials that ended in an error: not graded, not in the pass rate",
                width="content")
    if rescore:
        m[3].metric("Rescoring took", row.get("wall_clock") or "—", help=COLUMN_CONFIG_HELP["wall_clock"],
                    width="content")
        m[4].metric("Tokens", "0", help="a rescore makes no LLM call (0 calls): it reruns the stored programs",
                    width="content")
        parent = row.get("parent_id")
        st.caption(
            "A rescore: 0 LLM calls, 0 tokens. Its trials keep the retries, tokens and wall-clock of how "
            + (f"run #{parent}" if parent is not None else "the run it rescored")
            + " produced the programs; they are not counted here."
        )
    else:
        m[3].metric("Mean wall clock", duration(overall["mean_wallclock_s"]), width="content")
        m[4].metric("Tokens", f"{overall['tokens_in'] + overall['tokens_out']:,}", width="content")
    if run.error:
        st.error(f"Run error: {md_text(run.error)}", icon=":material/error:")
    if not overall["trials"]:
        st.info("This run has no trials.")
        return
    columns = ["passed", "graded", "pass_rate", "errors", "trials", "mean_retries", "mean_wallclock_s", "llm_calls"]
    if rescore:
        columns = [c for c in columns if c not in ("mean_wallclock_s", "llm_calls")]
    config = {  # text sorting as numbers, an em dash where nothing was graded or finished (ui/views/runs_cells.py)
        # a short label: at 800 px "pass rate (passed/graded)" made the column so wide its right-aligned value
        # was past the table's edge, an empty-looking cell
        "pass_rate": st.column_config.TextColumn("pass rate", help="passed / graded trials; — : none graded",
                                                 alignment="right"),
        "mean_wallclock_s": st.column_config.TextColumn("mean s", alignment="right"),
        "mean_retries": st.column_config.TextColumn("mean retries", alignment="right"),
    }
    left, right = st.columns(2)
    left.caption("By condition")
    left.dataframe(
        shown_rows([{"condition": r["condition"], **{c: r[c] for c in columns}} for r in summary["by_condition"]],
                   SUMMARY_TEXT),
        hide_index=True,
        column_config=config,
    )
    right.caption("By category")
    right.dataframe(
        shown_rows([{"category": r["category"] or "-", **{c: r[c] for c in columns}} for r in summary["by_category"]],
                   SUMMARY_TEXT),
        hide_index=True,
        column_config=config,
    )
    cells = summary["by_condition_category"]
    conditions = list(dict.fromkeys(r["condition"] for r in cells))
    categories = list(dict.fromkeys(r["category"] or "-" for r in cells))
    values = {(r["condition"], r["category"] or "-"): r["pass_rate"] for r in cells}
    if len(conditions) * len(categories) > 1:
        plot(
            charts.heatmap(
                conditions,
                categories,
                [[values.get((c, k)) for k in categories] for c in conditions],
                title="Pass rate (passed / graded) by condition and category",
                colour_title="%",
                percent=True,
            ),
            key="runs.heatmap",
        )


def _ask_delete(run_id: int) -> None:
    st.session_state[Runs.PENDING_DELETE] = run_id


def _keep() -> None:
    st.session_state[Runs.PENDING_DELETE] = None


@st.dialog("Delete this run?", on_dismiss=_keep)
def _confirm_delete(store: Store, run_id: int, title: str, trials: int) -> None:
    """Shown while a deletion is pending; only the explicit button deletes."""
    st.write(
        f"Run #{run_id} *{md_text(title)}* and its {trials} trial(s), with every step, LLM call, sandbox result and "
        "retrieval hit, will be deleted. This cannot be undone."
    )
    left, right = st.columns(2)
    if left.button("Delete permanently", type="primary", key=Runs.DELETE_CONFIRM, icon=":material/delete_forever:"):
        store.delete_run(run_id)  # the id this dialog was opened for, never what the picker holds now
        st.session_state[Runs.NOTICE] = f"Deleted run #{run_id}."
        if url_state.get("run") == str(run_id):
            url_state.write({"run": None})  # the address no longer names a run that is gone
        _keep()
        st.rerun()
    if right.button("Keep it", key=Runs.DELETE_CANCEL):
        _keep()
        st.rerun()


def _acted_on(run_id: int, notice: str) -> None:
    """After a write: say what was done to which run, and keep that run under Run detail.

    Setting the picker sends its new label to the browser: the browser answers with the label it shows, so
    after a rename it sent the old one, which matched no option, and the page fell back to another run.
    """
    st.session_state[Runs.NOTICE] = notice
    st.session_state[Runs.DETAIL] = run_id
    st.session_state[LOADED] = None  # the title and tags boxes show what was stored


def _rename(store: Store, run_id: int) -> None:
    """on_click of Rename: `run_id` is the run the panel was drawn for."""
    store.rename_run(run_id, st.session_state[Runs.RENAME].strip())
    _acted_on(run_id, f"Renamed run #{run_id}.")


def _save_tags(store: Store, run_id: int) -> None:
    """on_click of Save tags: `run_id` is the run the panel was drawn for."""
    store.set_tags(run_id, [t.strip() for t in st.session_state[Runs.TAGS].split(",")])
    _acted_on(run_id, f"Saved the tags of run #{run_id}.")


def manage_panel(store: Store, run: Run, trials: int) -> None:
    """Rename, retag or delete the run (a run a worker is still processing must be cancelled first).

    Each action is a callback given the id of the run drawn here: it acts on the run the page shows, whatever
    the next script run would make of the picker.
    """
    if st.session_state.get(LOADED) != run.id:
        st.session_state.update({LOADED: run.id, Runs.RENAME: run.title, Runs.TAGS: ", ".join(run.tags or [])})
    left, middle, right = st.columns([3, 3, 1], vertical_alignment="bottom")
    left.text_input("Title", key=Runs.RENAME)
    left.button("Rename", key=Runs.RENAME_SAVE, on_click=_rename, args=(store, run.id))
    middle.text_input("Tags (comma separated)", key=Runs.TAGS)
    middle.button("Save tags", key=Runs.TAGS_SAVE, on_click=_save_tags, args=(store, run.id))
    busy = run.kind == "batch" and run.status in ("queued", "running")
    right.button(
        "Delete",
        key=Runs.DELETE,
        icon=":material/delete:",
        disabled=busy,
        on_click=_ask_delete,
        args=(run.id,),
        help="cancel the batch on the Batch page first" if busy else "asks for confirmation",
    )
    if st.session_state.get(Runs.PENDING_DELETE) == run.id:
        _confirm_delete(store, run.id, run.title, trials)


def detail_run(store: Store, labels: Mapping[int, str], selected: list[int]) -> int:
    """The run Run detail shows, after applying a `?run=` link.

    The address decides whenever the picker holds no listed run: the browser sends the label it shows, and
    a label the run no longer has (renamed here or elsewhere) matches no option.
    """
    linked_run(store, labels)
    held = st.session_state.get(Runs.DETAIL)
    if held not in labels:
        raw = (url_state.get("run") or "").strip().removeprefix("#")
        latest = run_reads.latest_finished_run(store, own_only=True)  # never an automatic rescore child
        default = selected[0] if selected else latest if latest in labels else next(iter(labels))
        for candidate in (_named_id(held), int(raw) if raw.isdigit() else None, default):
            if candidate in labels:
                st.session_state[Runs.DETAIL] = candidate
                break
    return st.session_state[Runs.DETAIL]


def _named_id(value: object) -> int | None:
    """The run an id or a run's label names ("title #12" -> 12: the browser's label from before a rename)."""
    if isinstance(value, int) or value is None:
        return value
    found = re.search(r"#(\d+)$", str(value))
    return int(found.group(1)) if found else None


def detail_chosen() -> None:
    """on_change of Run detail: the address names the run picked (one history entry, so Back returns)."""
    run_id = _named_id(st.session_state.get(Runs.DETAIL))
    if run_id is not None:
        url_state.write({"run": str(run_id)})


def linked_run(store: Store, labels: Mapping[int, str]) -> None:
    """Open the run a `?run=<id>` link names under Run detail (once per distinct link value).

    A run this database lacks, or one the filters and the 200-run limit leave out, is named in a warning,
    never dropped silently.
    """
    raw = st.query_params.get("run")
    if raw is None or st.session_state.get(Runs.LINKED) == raw:
        return
    st.session_state[Runs.LINKED] = raw
    text = raw.strip().removeprefix("#")
    run_id = int(text) if text.isdigit() else None
    if run_id in labels:
        st.session_state[Runs.DETAIL] = run_id
        return
    if run_id is not None and store.get_run(run_id) is not None:
        st.warning(f"Run #{run_id} from the link is not listed under these filters; clear them to open it.",
                   icon=":material/link_off:")
        return
    st.warning(f"Run {md_text(raw)} from the link not found in this database.", icon=":material/link_off:")


def filter_row(store: Store) -> RunFilter:
    """Kind, status, benchmark, model, text, tag and date filters; returns what `run_rows` lists by."""
    from datetime import UTC, datetime, time, timedelta

    from ui import views

    choices = views.filter_choices(store)
    f = [*st.columns(4), *st.columns([1.5, 0.7, 1.9])]  # two rows: seven columns broke "Benchmark" at 800 px;
    # the dates get the most room: "yyyy-mm-dd – yyyy-mm-dd" was cut at 800 px
    selects = (
        (Runs.KIND, "Kind", "kind"),
        (Runs.STATUS, "Status", "status"),
        (Runs.BENCHMARK, "Benchmark", "benchmark"),
    )
    for column, (key, label, name) in zip(f, selects, strict=False):
        if st.session_state.get(key) not in ["any", *choices[name]]:
            st.session_state[key] = "any"
        column.selectbox(label, ["any", *choices[name]], key=key, format_func=one_line)
    f[3].text_input("Model", key=Runs.MODEL, placeholder="e.g. qwen")
    f[4].text_input("Search titles", key=Runs.TEXT, placeholder="text in title or benchmark")
    f[5].text_input("Tag", key=Runs.TAG)
    dates = f[6].date_input("Created between", key=Runs.DATES, format="YYYY-MM-DD")
    chosen = {name: None if st.session_state[key] == "any" else st.session_state[key] for key, _, name in selects}
    since = until = None
    if isinstance(dates, tuple | list) and len(dates) == 2:
        since = datetime.combine(dates[0], time.min, tzinfo=UTC)
        until = datetime.combine(dates[1], time.min, tzinfo=UTC) + timedelta(days=1)
    texts = {
        name: st.session_state[key].strip()
        for key, name in ((Runs.MODEL, "model"), (Runs.TEXT, "text"), (Runs.TAG, "tag"))
    }
    return RunFilter(**chosen, **texts, since=since, until=until)
