"""Reproduce a published study in one call: import its results, rescore under both grading protocols, and say
what holds up (`python -m execugraph reproduce`, and the Reproduce panel of the Export / Import page).

- `reproduce_path(store, path, out_dir, dataset=..., families=...)`: from files on disk;
- `run_study(store, StudyInputs(...))` then `write_study(study, out_dir)`: from inputs already read (uploads);
- `load_dataset(data, name)`, `parse_families(data, name)`: the optional inputs, each fault named by file,
  line and field (`ReproduceError`).

What lives where: `inputs` and `families` (what is read besides the results, and which runs
are compared), `naming` (runs named by the study, never by database id), `verdicts` (each
run under published and rescored verdicts), `study` (the whole pipeline), `conclusions` and
`report_tables` (what holds up), `document` and `writing` (the report as Markdown, HTML,
tables, figures and reproduce.json), `progress`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from execugraph.domain.lazy_names import lazy_names

if TYPE_CHECKING:  # at run time `__getattr__` imports each: the study loads scipy, plotly and LangGraph, which
    # `reproduce --help`, a refused argument or the Reproduce panel's first draw have no use for
    from execugraph.reproduce.inputs import FamilyRequest, ReproduceError, load_dataset, parse_families
    from execugraph.reproduce.progress import Listener, Progress, terminal_line
    from execugraph.reproduce.study import Study, StudyInputs, run_study
    from execugraph.reproduce.writing import DATA_JSON, REPORT_HTML, REPORT_MD, write_study
    from execugraph.store import Store

__all__ = [
    "DATA_JSON",
    "REPORT_HTML",
    "REPORT_MD",
    "FamilyRequest",
    "Progress",
    "ReproduceError",
    "Study",
    "StudyInputs",
    "load_dataset",
    "parse_families",
    "read_small_file",
    "reproduce_path",
    "run_study",
    "terminal_line",
    "write_study",
]


def read_small_file(path: Path, limit: int, what: str) -> bytes:
    """A whole input file (a benchmark file, a families file), refused when it is not a file or exceeds `limit`."""
    from execugraph.configuration.settings import format_size
    from execugraph.inputs.readers import FileRefused, read_capped_file
    from execugraph.publication.formats import Issue
    from execugraph.reproduce.inputs import ReproduceError

    try:
        return read_capped_file(path, limit)
    except FileRefused as exc:
        if exc.kind == "too-large":
            size = format_size(exc.size if exc.size is not None else limit + 1)
            message = f"{what} of {size}, over the limit of {format_size(limit)} (EXECUGRAPH_IMPORT_MAX_BYTES)"
        else:
            message = f"no such {what} (give a file)" if exc.kind != "unreadable" else exc.describe(what)
        raise ReproduceError([Issue(str(path), None, None, message)]) from None


def reproduce_path(
    store: Store,
    path: Path,
    out_dir: Path,
    *,
    dataset: Path | None = None,
    families: Path | None = None,
    max_bytes: int | None = None,
    listener: Listener | None = None,
    workers: int | None = None,
    figures: bool = True,
    amplify: bool = False,
    window: tuple[object, dict[str, str]] | None = None,
) -> tuple[Study, str | None]:
    """Reproduce the results at `path` (folder or .zip) into `out_dir`; returns the study and why figures are
    missing (None when every file was written). Bad inputs raise before anything is imported."""
    from execugraph.configuration.settings import load_settings
    from execugraph.publication.source import read_input
    from execugraph.reproduce.inputs import load_dataset, parse_families
    from execugraph.reproduce.progress import Progress
    from execugraph.reproduce.study import StudyInputs, run_study
    from execugraph.reproduce.writing import write_study

    limit = max_bytes or load_settings().import_max_bytes
    bench = load_dataset(read_small_file(dataset, limit, "benchmark file"), dataset.name) if dataset else None
    requests = parse_families(read_small_file(families, limit, "families file"), families.name) if families else None
    progress = Progress(listener)
    with read_input(path, max_bytes=limit) as fileset:
        inputs = StudyInputs(fileset, bench, requests, families.name if families else None, amplify, window)
        study = run_study(store, inputs, progress=progress, workers=workers)
    return study, write_study(study, out_dir, progress, figures=figures)

# The submodules other packages import (tests/layout/test_package_interfaces.py).
__all__ += [
    "amplified",
    "progress",
]

_HOME = {
    **dict.fromkeys(("FamilyRequest", "ReproduceError", "load_dataset", "parse_families"), "inputs"),
    **dict.fromkeys(("Listener", "Progress", "terminal_line"), "progress"),
    **dict.fromkeys(("Study", "StudyInputs", "run_study"), "study"),
    **dict.fromkeys(("DATA_JSON", "REPORT_HTML", "REPORT_MD", "write_study"), "writing"),
}

__getattr__, __dir__ = lazy_names(__name__, _HOME, __all__)
