"""The Export / Import page's Reproduce tab: upload a published results folder (zip), optionally its benchmark file
and a families file, and get the reproduction report (`execugraph.reproduce`) with a progress bar and downloads."""

from __future__ import annotations

import io
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import streamlit as st

from execugraph.publication import BundleFormatError
from execugraph.publication.source import format_size, read_zip_bytes
from execugraph.reproduce import (
    REPORT_HTML,
    REPORT_MD,
    Progress,
    ReproduceError,
    StudyInputs,
    load_dataset,
    parse_families,
    run_study,
    write_study,
)
from execugraph.store import Store
from execugraph.suite_files import FileTooLargeError, check_size
from execugraph.text_safety import md_text
from ui import resources
from ui.keys import Reproduce
from ui.widgets import read_only_notice


@dataclass(frozen=True)
class Reproduced:
    """What the last reproduction left for this session: its files (zipped), the HTML report and a summary."""

    name: str
    archive: bytes
    html: str
    markdown: str
    sentences: list[tuple[str, list[str]]]  # (family, one sentence per comparison)
    warnings: list[str]
    missing_figures: str | None
    trials: int
    runs: int
    notes: list[str] = field(default_factory=list)  # about this database ("already imported"): not in the report


def _upload_bytes(upload: Any, limit: int) -> bytes:
    data = upload.getvalue()
    check_size(len(data), limit, "an upload", upload.name, "EXECUGRAPH_UPLOAD_MAX_BYTES")
    return data


def _zip_folder(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(folder).as_posix())
    return buffer.getvalue()


def _reproduce(store: Store, results: Any, dataset: Any, families: Any, figures: bool) -> Reproduced:
    """Run the reproduction with a progress bar; raises on a bad input (before anything is imported)."""
    limits = resources.settings()
    data = _upload_bytes(results, limits.upload_max_bytes)
    bench = load_dataset(_upload_bytes(dataset, limits.upload_max_bytes), dataset.name) if dataset else None
    requests = parse_families(_upload_bytes(families, limits.upload_max_bytes), families.name) if families else None
    bar = st.progress(0.0, text=f"Reading {md_text(results.name)}...")
    progress = Progress(lambda fraction, text: bar.progress(min(1.0, fraction), text=md_text(text)))
    out = Path(tempfile.mkdtemp(prefix="execugraph-reproduce-"))
    try:
        stem = results.name[:-4] if results.name.lower().endswith(".zip") else results.name
        with read_zip_bytes(data, name=stem, label=results.name, max_bytes=limits.import_max_bytes) as fileset:
            study = run_study(store, StudyInputs(fileset, bench, requests, families.name if families else None),
                              progress=progress)
        missing = write_study(study, out, progress, figures=figures)
        sentences = [(f["name"], [c["sentence"] for c in f["comparisons"]]) for f in study.data["families"]]
        result = Reproduced(
            name=stem, archive=_zip_folder(out), html=(out / REPORT_HTML).read_text(encoding="utf-8"),
            markdown=(out / REPORT_MD).read_text(encoding="utf-8"), sentences=sentences,
            warnings=list(study.data["warnings"]), missing_figures=missing if figures else None,
            trials=sum(r["trials"] for r in study.data["runs"]), runs=len(study.data["runs"]),
            notes=list(study.data["local"]["import_notes"]),
        )
    finally:
        shutil.rmtree(out, ignore_errors=True)
    bar.progress(1.0, text=f"Reproduced {result.runs} run(s), {result.trials} trials")
    return result


def reproduce_panel(store: Store) -> None:
    """Upload a study, reproduce it, and show what holds up; the report and everything else download."""
    if read_only_notice(store, "Reproducing a study"):
        return
    limits = resources.settings()
    st.caption(
        "Import a published results folder, rescore every run under both grading protocols (standalone and "
        "with-prompt), and see whether each comparison's conclusion (direction and significance at 0.05 after Holm) "
        "survives. The same as `python -m execugraph reproduce`."
    )
    results = st.file_uploader("Results folder (.zip)", type=["zip"], key=Reproduce.RESULTS,
                               max_upload_size=resources.upload_limit_mb(),
                               help="a published results tree with a trials.jsonl per run folder")
    left, right = st.columns(2)
    dataset = left.file_uploader("Benchmark file (.jsonl, optional)", type=["jsonl"], key=Reproduce.DATASET,
                                 help="the study's problems in the published layout: their tests grade the runs")
    families = right.file_uploader("Families (.json, optional)", type=["json"], key=Reproduce.FAMILIES,
                                   help='[{"name": ..., "runs": [folders], "baseline": folder} or "pairs": '
                                   "[[first, second], ...]]; default: by benchmark and problem set")
    figures = st.checkbox("Figures (SVG, rendered by chromium)", key=Reproduce.FIGURES)
    if results is None:
        st.caption(f"Uploads up to {format_size(limits.upload_max_bytes)}, unpacking to at most "
                   f"{format_size(limits.import_max_bytes)}.")
    elif st.button("Reproduce", key=Reproduce.RUN, type="primary", icon=":material/replay:"):
        try:
            st.session_state[Reproduce.DONE] = _reproduce(store, results, dataset, families, figures)
        except FileTooLargeError as exc:
            st.error(f"Nothing was imported: {md_text(exc)}", icon=":material/error:")
        except (BundleFormatError, ReproduceError) as exc:
            st.error("Nothing was imported: " + "; ".join(map(md_text, exc.issues[:10])), icon=":material/error:")
    done: Reproduced | None = st.session_state.get(Reproduce.DONE)
    if done is not None:
        _show(done)


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
