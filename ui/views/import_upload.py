"""The dashboard's Import tab without Streamlit: uploaded files (a zip, or harness files) and an optional problem
file, imported through the same core as `python -m execugraph import FILE --dataset mbpp.jsonl`.

Why here: the tab runs the import inside its script run and only draws; what is read, how several uploaded files
become one input (so a bigcode generations file pairs with its evaluation_results.json, as in a folder) and what
the problem file grades are decided once, testable without a page.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from execugraph.grading.suite_files import check_size
from execugraph.publication.importing import import_fileset
from execugraph.publication.source import FileSet, read_zip_bytes

if TYPE_CHECKING:
    from execugraph.publication.published_problems import BenchmarkFile
    from execugraph.publication.results import ImportResult
    from execugraph.store import Store

UploadedFile = tuple[str, bytes]  # (file name as uploaded, its bytes)
CountFn = Callable[[int, int], None]


class UploadRefused(ValueError):
    """Uploaded results that cannot be read as one input (said in one line)."""


def check_uploads(files: Sequence[UploadedFile], upload_max_bytes: int, import_max_bytes: int) -> None:
    """Refuse, before anything is read (Import and Reproduce tabs alike): a zip beside other files, two files of
    one name (`UploadRefused`), one file over the upload cap, all of them over the import cap (`FileTooLargeError`)."""
    names = [name for name, _ in files]
    if len(files) > 1 and any(n.lower().endswith(".zip") for n in names):
        raise UploadRefused("a zip is uploaded on its own, not beside other files")
    if len(set(names)) != len(names) or not all(names):
        raise UploadRefused("two uploaded files share a name: " + ", ".join(sorted(names)))
    for name, data in files:
        check_size(len(data), upload_max_bytes, "an upload", name, "EXECUGRAPH_UPLOAD_MAX_BYTES")
    check_size(sum(len(d) for _, d in files), import_max_bytes, "the uploaded files", ", ".join(names),
               "EXECUGRAPH_IMPORT_MAX_BYTES")


def import_uploads(store: Store, files: Sequence[UploadedFile], *, max_bytes: int,
                   dataset: BenchmarkFile | None = None, on_grading: CountFn | None = None) -> ImportResult:
    """Import one uploaded zip or harness file (named as `import_zip_bytes` names it), or several harness files
    read together as one folder; `dataset` grades samples without verdicts (MBPP needs it), `on_grading(done,
    total)` hearing each graded sample."""
    if not files:
        raise UploadRefused("nothing was uploaded")
    if len(files) == 1:
        name, data = files[0]
        fileset = _single(name, data, max_bytes)
    else:
        first = files[0][0]
        fileset = FileSet.from_bytes(first.partition(".")[0] or first, dict(files), limit=max_bytes)
        fileset.label = ", ".join(n for n, _ in files)
    with fileset:
        return import_fileset(store, fileset, dataset=dataset, on_grading=on_grading)


def _single(name: str, data: bytes, max_bytes: int) -> FileSet:
    """One upload read as `import_zip_bytes` reads it (a zip, or one .jsonl/.json results file), same names."""
    stem = name[:-4] if name.lower().endswith(".zip") else name
    for suffix in (".jsonl", ".json"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    return read_zip_bytes(data, name=stem, label=name if name != stem else None, max_bytes=max_bytes)


def harness_lines(store: Store, run_ids: Sequence[int]) -> list[str]:
    """What an imported harness run's config says about its verdicts, one line per run that has something to say:
    samples graded on import and, for bigcode, the file's pass@k against ours (`config.harness.pass_at_k_check`)."""
    out = []
    for run_id in run_ids:
        run = store.get_run(run_id)
        harness = (run.config or {}).get("harness") if run is not None else None
        if not isinstance(harness, dict):
            continue
        words = [f"run #{run_id}: {harness.get('format', 'harness')} file, verdicts {harness.get('verdicts', '?')}"]
        check = harness.get("pass_at_k_check")
        if isinstance(check, dict) and check.get("published"):
            ours = check.get("ours") or {}
            pairs = ", ".join(f"{k} {_number(v)} (ours {_number(ours.get(k))})"
                              for k, v in sorted(check["published"].items()))
            verdict = "agrees with" if check.get("agree") else "differs from"
            words.append(f"pass@k check: evaluation_results.json {verdict} the graded verdicts: {pairs}")
        out.append("; ".join(words))
    return out


def _number(value: object) -> str:
    return f"{value:.4f}" if isinstance(value, int | float) else "n/a"
