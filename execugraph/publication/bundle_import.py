"""Import an ExecuGraph bundle (see `layout`): check every file completely, then write it in one transaction.

Lossless: every column of every row is restored, timestamps included, and the
bundle-local ids are mapped to fresh database ids in file order, so exporting
the imported runs again gives the same bytes. A run keeps its kind (a batch
stays a batch); its config gains an `imported_from` marker holding the bundle's
content digest, which export leaves out and which makes importing the same
bundle twice a no-op. Problems the bundle carries are stored when the database
does not have them; a stored problem that differs is kept and reported.

Both passes stream: `bundle_checks.check_bundle` reads every line keeping only
ids, then the write pass reads the files again and inserts their rows a chunk
at a time inside one transaction, so memory stays flat however large the
bundle, and a failure anywhere (a damaged member met late included) rolls the
whole import back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from execugraph.publication import layout
from execugraph.publication.bundle_checks import OPTIONAL_FILES, UNIMPORTABLE_STATUSES, check_bundle, decoded
from execugraph.publication.formats import IssueCollector, Row
from execugraph.publication.results import ImportedRun, ImportResult
from execugraph.publication.source import FileSet, FileView
from execugraph.store.bulk_insert import BATCH, BulkWriter, TableModel, bulk_writes
from execugraph.store.models import Execution, LLMCall, ProblemRecord, RetrievalHit, Run, Step, Trial
from execugraph.store.run_reads import runs_mentioning, trial_count

if TYPE_CHECKING:
    from execugraph.store import Store

__all__ = ["OPTIONAL_FILES", "UNIMPORTABLE_STATUSES", "find_bundle_root", "import_bundle"]


def find_bundle_root(fileset: FileSet) -> str | None:
    """The folder of `fileset` holding bundle.json ('' for the top), or None when it is not a bundle."""
    candidates = sorted(
        path.rpartition("/")[0]
        for path in fileset.files
        if path.rpartition("/")[2] == layout.MANIFEST and path.count("/") <= 1
    )
    return candidates[0] if candidates else None


def _strip(values: Row, *names: str) -> Row:
    return {k: v for k, v in values.items() if k not in names and not k.startswith("_")}


def _problem_differs(bulk: BulkWriter, row: Row) -> bool:
    stored = bulk.stored_problem(row["benchmark"], row["problem_id"])
    return stored is not None and stored != ProblemRecord(**row).to_problem()


def _copy(
    bulk: BulkWriter,
    files: FileView,
    name: str,
    model: TableModel,
    keep: Callable[[Row], bool],
    row: Callable[[Row], Row],
    extra: tuple[str, ...] = (),
) -> dict[int, int]:
    """Insert `row(v)` for each line `v` of `name` that `keep` accepts, a chunk at a time; bundle id -> new id."""
    issues = IssueCollector()
    new_ids: dict[int, int] = {}
    bundle_ids: list[int] = []
    rows: list[Row] = []

    def flush() -> None:
        new_ids.update(zip(bundle_ids, bulk.insert(model, rows), strict=True))
        bundle_ids.clear()
        rows.clear()

    for _, v in decoded(files, name, issues, extra):
        issues.raise_if_any()  # the file changed since it was checked
        if keep(v):
            bundle_ids.append(v["id"])
            rows.append(row(v))
            if len(rows) >= BATCH:
                flush()
    issues.raise_if_any()
    flush()
    return new_ids


def import_bundle(store: Store, fileset: FileSet, root: str) -> ImportResult:
    """Import the bundle at `root` of `fileset` (all or nothing); runs already imported from it are not duplicated."""
    files = fileset.under(root)
    index = check_bundle(files)
    result = ImportResult(source="bundle")
    existing: dict[int, int] = {}
    for db_id, _title, config in runs_mentioning(store, index.digest):
        marker = config.get(layout.IMPORT_MARKER) or {}
        if marker.get("bundle_sha256") == index.digest and isinstance(marker.get("run"), int):
            existing.setdefault(marker["run"], db_id)

    runs = [v for _, v in index.runs]
    new_runs = [r for r in runs if r["id"] not in existing]
    new_run_ids = {r["id"] for r in new_runs}
    run_map = dict(existing)
    with bulk_writes(store) as bulk:
        run_rows = []
        for r in new_runs:
            config = dict(r["config"]) | {layout.IMPORT_MARKER: {"bundle_sha256": index.digest, "run": r["id"]}}
            run_rows.append(_strip(r, "id", "parent_run_id") | {"config": config, "parent_run_id": None})
        for r, db_id in zip(new_runs, bulk.insert(Run, run_rows), strict=True):
            run_map[r["id"]] = db_id
        for r in new_runs:
            if r["parent_run_id"] is not None:
                bulk.link_parent_run(run_map[r["id"]], run_map[r["parent_run_id"]])
        trial_map = _copy(
            bulk,
            files,
            layout.TRIALS,
            Trial,
            lambda v: v["run_id"] in new_run_ids,
            lambda v: _strip(v, "id") | {"run_id": run_map[v["run_id"]]},
            extra=(layout.TRIAL_DERIVED,),
        )
        step_map = _copy(
            bulk,
            files,
            layout.STEPS,
            Step,
            lambda v: v["trial_id"] in trial_map,
            lambda v: _strip(v, "id") | {"trial_id": trial_map[v["trial_id"]]},
        )
        for name, model in ((layout.LLM_CALLS, LLMCall), (layout.EXECUTIONS, Execution)):
            _copy(
                bulk,
                files,
                name,
                model,
                lambda v: v["trial_id"] in trial_map,
                lambda v: (
                    _strip(v, "id")
                    | {
                        "trial_id": trial_map[v["trial_id"]],
                        "step_id": None if v["step_id"] is None else step_map[v["step_id"]],
                    }
                ),
            )
        _copy(
            bulk,
            files,
            layout.RETRIEVAL_HITS,
            RetrievalHit,
            lambda v: v["trial_id"] in trial_map,
            lambda v: _strip(v, "id") | {"trial_id": trial_map[v["trial_id"]]},
        )
        _store_problems(bulk, files, result)

    counts: dict[int, int] = {}
    for run_id in index.trial_run.values():
        counts[run_id] = counts.get(run_id, 0) + 1
    for r in runs:
        if r["id"] in existing:
            result.runs.append(ImportedRun(existing[r["id"]], r["title"], trial_count(store, existing[r["id"]]), False))
        else:
            result.runs.append(ImportedRun(run_map[r["id"]], r["title"], counts.get(r["id"], 0)))
    if existing:
        result.note(
            f"{len(existing)} of {len(runs)} run(s) of this bundle were imported before (bundle sha256 "
            f"{index.digest[:12]}); not duplicated"
        )
    return result


def _store_problems(bulk: BulkWriter, files: FileView, result: ImportResult) -> None:
    """Store the bundle's problems the database lacks; report stored ones that differ (the stored copy stays)."""
    issues = IssueCollector()
    chunk: list[Row] = []
    for _, p in decoded(files, layout.PROBLEMS, issues):
        issues.raise_if_any()
        if _problem_differs(bulk, p):
            result.warnings.append(
                f"problem {p['benchmark']}/{p['problem_id']} is already stored with different content; "
                "kept the stored copy"
            )
        chunk.append(p)
        if len(chunk) >= BATCH:
            bulk.insert_missing_problems(chunk)
            chunk.clear()
    issues.raise_if_any()
    bulk.insert_missing_problems(chunk)
