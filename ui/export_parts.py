"""The Export / Import page's three panels: download a publication bundle, import one, rescore a run."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import streamlit as st

from execugraph.grading.suite_files import FileTooLargeError
from execugraph.publication import BundleFormatError, ExportError, ImportResult, bundle_files, layout, zip_bytes
from execugraph.publication.source import format_size
from execugraph.reproduce import ReproduceError
from execugraph.reproduce.progress import grading_text, throttled
from execugraph.safety.inert_text import md_text, one_line
from execugraph.verdicts import rescore_run
from ui import protocol_parts, reproduce_parts, resources, views
from ui.keys import Export
from ui.views.import_upload import UploadRefused, check_uploads, harness_lines, import_uploads
from ui.widgets import empty_state, pct, read_only_notice, run_picker

if TYPE_CHECKING:
    from execugraph.store import Store

# the bundle's logs (`execugraph.publication.layout`): what ran, step by step, call by call
LOG_FILES = (layout.TRIALS, layout.STEPS, layout.LLM_CALLS, layout.EXECUTIONS, layout.RETRIEVAL_HITS, layout.RUN_META)


def _prepare_bundle(store: Store, run_ids: tuple[int, ...], include_host: bool) -> None:
    """Build the selection's bundle into the session (the Prepare button's callback)."""
    try:
        with st.spinner("Collecting every trial, step, LLM call and sandbox run..."):
            files = bundle_files(store, list(run_ids), include_host=include_host)
            st.session_state[Export.BUNDLE] = ((run_ids, include_host), zip_bytes(files), sorted(files))
            st.session_state[Export.PARTS] = ((run_ids, include_host), *bundle_parts(files))
    except (ExportError, LookupError, ValueError) as exc:
        st.session_state[Export.BUNDLE_ERROR] = str(exc)


def bundle_parts(files: dict[str, bytes]) -> tuple[tuple[str, bytes, str], tuple[str, bytes, str]]:
    """The bundle's run config and its logs as downloads of their own: (file name, bytes, mime) each.

    One run: its `config.json`; several: a zip of `config.json` and `configs/run-N.json`. The logs: a zip of
    the trials, steps, LLM calls, sandbox executions and retrieval hits (JSON lines), with `run_meta.json`.
    """
    configs = {n: b for n, b in files.items() if n == layout.CONFIG or n.startswith(f"{layout.CONFIGS_DIR}/")}
    if set(configs) == {layout.CONFIG}:
        config = (layout.CONFIG, configs[layout.CONFIG], "application/json")
    else:
        config = ("configs.zip", zip_bytes(configs), "application/zip")
    logs = {n: b for n, b in files.items() if n in LOG_FILES}
    return config, ("logs.zip", zip_bytes(logs), "application/zip")


def _part_downloads(parts: tuple[Any, ...]) -> None:
    """The run config and the logs, beside the zip."""
    (config_name, config_data, config_mime), (logs_name, logs_data, logs_mime) = parts[1], parts[2]
    row = st.container(horizontal=True)
    row.download_button(f"Run config ({config_name})", config_data, file_name=config_name, mime=config_mime,
                        key=Export.DOWNLOAD_CONFIG, icon=":material/settings:")
    row.download_button(f"Logs ({logs_name}, {len(logs_data) / 1024:.0f} KiB)", logs_data, file_name=logs_name,
                        mime=logs_mime, key=Export.DOWNLOAD_LOGS, icon=":material/receipt_long:")


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
        parts = st.session_state.get(Export.PARTS)
        if parts and parts[0] == prepared[0]:
            _part_downloads(parts)
        st.caption("Contains: " + ", ".join(names))
    summary = json.dumps(resources.report(run_ids).to_json_dict(), indent=2)
    st.download_button(
        "Only summary.json (the Statistics page's report)",
        summary,
        file_name="summary.json",
        mime="application/json",
        key=Export.SUMMARY,
        icon=":material/download:",
    )




def import_panel(store: Store) -> None:
    """Upload a bundle, a published results folder (zip) or harness files, optionally with the problem file their
    ungraded samples are graded on (`import --dataset`), and store them as runs of kind `import`."""
    if read_only_notice(store, "Importing"):
        return
    limits = resources.settings()
    uploads = st.file_uploader(
        "Bundle, results folder (.zip) or harness result files",
        type=["zip", "jsonl", "json"],
        key=Export.IMPORT_UPLOAD,
        max_upload_size=resources.upload_limit_mb(),
        accept_multiple_files=True,
        help="an ExecuGraph bundle, a published results tree with trials.jsonl per run folder (zipped), or "
        "human-eval / EvalPlus / bigcode-evaluation-harness result files, one or several together (e.g. "
        "generations_mbpp.json and evaluation_results.json), or a zip of them",
    )
    dataset = st.file_uploader(
        "Problem file (--dataset, optional)",
        type=["jsonl", "gz"],
        key=Export.IMPORT_DATASET,
        max_upload_size=resources.upload_limit_mb(),
        help="grades samples that carry no verdict (bigcode generations) on its problems: MBPP lines (task_id, "
        "text, code, test_list, test_setup_code; MBPP does not ship, so its generations need it), human-eval's "
        "HumanEval.jsonl(.gz) or the published layout; the same file as `import --dataset`",
    )
    if not uploads:
        st.caption(
            f"Importing the same file twice does not duplicate runs. Uploads up to "
            f"{format_size(limits.upload_max_bytes)}, unpacking to at most {format_size(limits.import_max_bytes)} "
            "(EXECUGRAPH_UPLOAD_MAX_BYTES, EXECUGRAPH_IMPORT_MAX_BYTES)."
        )
        return
    if st.button("Import", key=Export.IMPORT, type="primary", icon=":material/upload:"):
        result = _run_import(store, uploads, dataset, limits)
        if result is not None:
            _show_import(store, result)


def _run_import(store: Store, uploads: list[Any], dataset: Any, limits: Any) -> ImportResult | None:
    """The uploads checked (the Reproduce tab's caps and refusals), the problem file read as the Reproduce tab
    reads it, then imported with a bar following the samples graded on import; None (and one error line) when
    nothing was imported."""
    files = [(Path(u.name).name, u.getvalue()) for u in uploads]
    label = ", ".join(name for name, _ in files)
    slot = st.empty()
    shown: dict[str, Any] = {}

    def grading(done: int, total: int) -> None:
        if "bar" not in shown:
            shown["bar"], shown["start"] = slot.progress(0.0, text=grading_text(done, total)), time.monotonic()
        shown["bar"].progress(done / total if total else 1.0, text=grading_text(done, total))
        shown["total"] = total

    try:
        check_uploads(files, limits.upload_max_bytes, limits.import_max_bytes)
        bench = reproduce_parts.problem_file(dataset, limits)
        with st.spinner(f"Checking and importing {label}..."):
            result = import_uploads(store, files, max_bytes=limits.import_max_bytes, dataset=bench,
                                    on_grading=throttled(grading, every_s=0.25))
    except (FileTooLargeError, UploadRefused) as exc:
        st.error(f"Nothing was imported: {md_text(exc)}", icon=":material/error:")
        return None
    except ReproduceError as exc:  # the problem file: named by file, line and field
        st.error("Nothing was imported: " + "; ".join(map(md_text, exc.issues[:10])), icon=":material/error:")
        return None
    except BundleFormatError as exc:
        st.error(f"Nothing was imported from {md_text(label)}: " + "; ".join(map(md_text, exc.issues[:10])),
                 icon=":material/error:")
        return None
    if "bar" in shown:
        took = time.monotonic() - shown["start"]
        shown["bar"].progress(1.0, text=f"graded {shown['total']:,} samples in {took:.1f} s")
    return result


def _show_import(store: Store, result: ImportResult) -> None:
    """Each run imported (or found), what its harness file says about its verdicts, the warnings, a link."""
    for run in result.runs:
        verb = "Imported" if run.imported else "Already imported"
        st.success(f"{verb}: run #{run.id} {md_text(run.name)} ({run.trials} trials)", icon=":material/check:")
    for line in harness_lines(store, [run.id for run in result.runs]):
        st.info(md_text(line), icon=":material/fact_check:")
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
    run_id = st.selectbox("Run to rescore", list(choices), key=Export.RESCORE_RUN,
                          format_func=lambda r: one_line(choices[r]))
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
