"""The dashboard, in one tree: `pages/` (one script per page), `views/` (pure view models, no streamlit) and the
Streamlit-side helpers below (with `pages/`, the only code that imports streamlit).

- `resources`: cached shared resources (settings, the store, health, worker, retriever, reports);
- `keys`: every session-state key and its default; `widgets`: pickers and empty states
  several pages share; `steps`: how one agent step looks, live and afterwards;
- one `*_parts` / `*_form` / `*_picker` module per page for its larger pieces (batch,
  export, family picker, protocol, publish, reproduce, retrieval, runs, statistics,
  synthesize, trace); `jobs`: a Synthesize request on a background thread.
Pages call these in a line or two; the work itself is in `execugraph`.
"""
