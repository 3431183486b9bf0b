"""The Retrieval page's technique editor: pick a technique (or a new one), edit its fields, save."""

from __future__ import annotations

from typing import Any

import streamlit as st

from execugraph.retrieval import LibraryFormatError, parse_technique
from ui import resources
from ui.keys import TECHNIQUE_FIELDS, Retr

NEW = "(new technique)"


def _load_fields(techniques: dict[str, Any]) -> None:
    """on_change of the picker: copy the chosen technique into the form's fields (blank for a new one)."""
    chosen = techniques.get(st.session_state[Retr.EDIT])
    for name in TECHNIQUE_FIELDS:
        value = "" if chosen is None else getattr(chosen, name)
        st.session_state[Retr.FIELD + name] = ", ".join(value) if name == "tags" else value


def technique_editor(techniques: list[Any]) -> None:
    """Add a technique or edit one; saving validates it, writes the library file and rebuilds the index."""
    by_id = {t.id: t for t in techniques}
    if st.session_state.get(Retr.EDIT) not in [NEW, *by_id]:
        st.session_state[Retr.EDIT] = NEW
    st.selectbox("Technique to edit", [NEW, *by_id], key=Retr.EDIT, on_change=_load_fields, args=(by_id,),
                 format_func=lambda i: i if i == NEW else f"{i} - {by_id[i].name}")
    editing = st.session_state[Retr.EDIT] != NEW
    with st.form("retr.form"):
        a, b, c = st.columns(3)
        a.text_input("Id", key=Retr.FIELD + "id", disabled=editing, help="lowercase letters, digits, . _ -")
        b.text_input("Name", key=Retr.FIELD + "name")
        c.text_input("Category", key=Retr.FIELD + "category", help="e.g. dynamic-programming, graph, string")
        st.text_area("When to use (what the problems look like)", key=Retr.FIELD + "when_to_use", height=80)
        st.text_area("Key idea", key=Retr.FIELD + "key_idea", height=80)
        a, b = st.columns(2)
        a.text_input("Complexity", key=Retr.FIELD + "complexity")
        b.text_input("Tags (comma separated)", key=Retr.FIELD + "tags")
        st.text_area("Pitfalls", key=Retr.FIELD + "pitfalls", height=68)
        saved = st.form_submit_button("Save technique" if editing else "Add technique", key=Retr.SAVE, type="primary")
    if not saved:
        return
    data: dict[str, Any] = {name: st.session_state[Retr.FIELD + name].strip() for name in TECHNIQUE_FIELDS}
    data["tags"] = [t.strip() for t in data["tags"].split(",") if t.strip()]
    try:
        technique = parse_technique(data)
        with st.spinner("Saving and re-indexing the library..."):
            retriever = resources.retriever()
            (retriever.update_technique if editing else retriever.add_technique)(technique)
    except LibraryFormatError as exc:
        field = f"field '{exc.field}': " if exc.field else ""
        st.error(f"Not saved - {field}{exc.message}.", icon=":material/error:")
        return
    except Exception as exc:  # the model package missing, the file unwritable: say what and how to fix
        st.error(f"Not saved - {type(exc).__name__}: {exc}", icon=":material/error:")
        return
    st.success(f"Saved {technique.id}; the index was rebuilt and live queries use it now.", icon=":material/check:")
