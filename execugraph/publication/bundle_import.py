"""Import an ExecuGraph bundle (see `layout`): validate every file completely, then write it in one transaction.

Lossless: every column of every row is restored, timestamps included, and the
bundle-local ids are mapped to fresh database ids in file order, so exporting
the imported runs again gives the same bytes. A run keeps its kind (a batch
stays a batch); its config gains an `imported_from` marker holding the bundle's
content digest, which export leaves out and which makes importing the same
bundle twice a no-op. Problems the bundle carries are stored when the database
does not have them; a stored problem that differs is kept and reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from sqlalchemy import select

from execugraph.publication import layout
from execugraph.publication.bulk import insert_missing_problems, insert_rows, transaction
from execugraph.publication.formats import IssueCollector, iter_jsonl, load_json_object
from execugraph.publication.results import ImportedRun, ImportResult, content_digest, runs_mentioning, trial_count
from execugraph.publication.source import FileSet
from execugraph.store.models import (
    EXECUTION_PURPOSES,
    FEEDBACK_SOURCES,
    RUN_KINDS,
    RUN_STATUSES,
    TEST_SOURCES,
    TRIAL_STATUSES,
    Execution,
    LLMCall,
    ProblemRecord,
    RetrievalHit,
    Run,
    Step,
    Trial,
)

OPTIONAL_FILES = (layout.STEPS, layout.LLM_CALLS, layout.EXECUTIONS, layout.RETRIEVAL_HITS, layout.PROBLEMS)
UNIMPORTABLE_STATUSES = ("queued", "running")


def find_bundle_root(fileset: FileSet) -> str | None:
    """The folder of `fileset` holding bundle.json ('' for the top), or None when it is not a bundle."""
    candidates = sorted(
        path.rpartition("/")[0]
        for path in fileset.files
        if path.rpartition("/")[2] == layout.MANIFEST and path.count("/") <= 1
    )
    return candidates[0] if candidates else None


@dataclass
class ParsedBundle:
    """Validated rows of a bundle, still numbered with bundle-local ids, in file order."""

    digest: str
    tables: dict[str, list[tuple[int, dict[str, Any]]]] = field(default_factory=dict)  # file -> (line, values)


def _check_choice(
    issues: IssueCollector, file: str, line: int, values: dict[str, Any], name: str, allowed: tuple
) -> None:
    value = values.get(name)
    if value is not None and value not in allowed:
        issues.add(file, line, name, f"must be one of {', '.join(allowed)}; got {value!r}")


def _unique_ids(issues: IssueCollector, file: str, rows: list[tuple[int, dict[str, Any]]]) -> set[int]:
    seen: dict[int, int] = {}
    for line, values in rows:
        ident = values.get("id")
        if not isinstance(ident, int):
            continue
        if ident in seen:
            issues.add(file, line, "id", f"duplicate id {ident} (first on line {seen[ident]})")
        else:
            seen[ident] = line
    return set(seen)


def _decode_file(files: dict[str, bytes], name: str, issues: IssueCollector, extra: tuple[str, ...] = ()) -> list:
    if name not in files:
        return []
    codec = layout.CODECS[name]
    return [
        (line, codec.decode(obj, line, issues, extra=extra) | _extras(obj, extra))
        for line, obj in iter_jsonl(files[name], name, issues)
    ]


def _extras(obj: dict[str, Any], extra: tuple[str, ...]) -> dict[str, Any]:
    return {f"_{name}": obj[name] for name in extra if name in obj}


def parse_bundle(fileset: FileSet, root: str) -> ParsedBundle:
    """Read and check every file of the bundle at `root`; raises BundleFormatError listing what is wrong."""
    files = fileset.under(root)
    issues = IssueCollector()
    manifest = load_json_object(files[layout.MANIFEST], layout.MANIFEST, issues)
    if manifest is not None:
        if manifest.get("format") != layout.FORMAT:
            issues.add(layout.MANIFEST, None, "format", f"expected {layout.FORMAT!r}, got {manifest.get('format')!r}")
        elif manifest.get("format_version") != layout.FORMAT_VERSION:
            issues.add(
                layout.MANIFEST,
                None,
                "format_version",
                f"this ExecuGraph reads version {layout.FORMAT_VERSION}; got {manifest.get('format_version')!r}",
            )
    issues.raise_if_any()
    for required in (layout.RUNS, layout.TRIALS):
        if required not in files:
            issues.add(required, None, None, "missing from the bundle")
    issues.raise_if_any()

    parsed = ParsedBundle(digest=content_digest(files))
    t = parsed.tables
    t[layout.RUNS] = _decode_file(files, layout.RUNS, issues)
    t[layout.TRIALS] = _decode_file(files, layout.TRIALS, issues, extra=(layout.TRIAL_DERIVED,))
    for name in OPTIONAL_FILES:
        t[name] = _decode_file(files, name, issues)
    if not t[layout.RUNS]:
        issues.add(layout.RUNS, None, None, "holds no runs")
    _check_runs(t[layout.RUNS], issues)
    run_ids = _unique_ids(issues, layout.RUNS, t[layout.RUNS])
    trial_ids, step_trial = _check_trials_and_steps(t, run_ids, issues)
    _check_children(t, trial_ids, step_trial, issues)
    _check_problems(t[layout.PROBLEMS], issues)
    issues.raise_if_any()
    return parsed


def _check_runs(rows: list[tuple[int, dict[str, Any]]], issues: IssueCollector) -> None:
    ids = {v.get("id") for _, v in rows}
    for line, v in rows:
        _check_choice(issues, layout.RUNS, line, v, "kind", RUN_KINDS)
        _check_choice(issues, layout.RUNS, line, v, "status", RUN_STATUSES)
        if v.get("status") in UNIMPORTABLE_STATUSES:
            issues.add(layout.RUNS, line, "status", f"{v['status']!r}: only finished runs can be imported")
        parent = v.get("parent_run_id")
        if parent is not None and (parent not in ids or parent == v.get("id")):
            issues.add(layout.RUNS, line, "parent_run_id", f"{parent} is not another run of this bundle")
        tags = v.get("tags")
        if isinstance(tags, list) and not all(isinstance(x, str) for x in tags):
            issues.add(layout.RUNS, line, "tags", "must be a list of strings")
        if isinstance(v.get("config"), dict) and layout.IMPORT_MARKER in v["config"]:
            issues.add(layout.RUNS, line, "config", f"key {layout.IMPORT_MARKER!r} is reserved for the importer")


def _check_trials_and_steps(
    t: dict[str, list], run_ids: set[int], issues: IssueCollector
) -> tuple[set[int], dict[int, int]]:
    """Check trials and steps; returns the trial ids and step id -> trial id."""
    trials = t[layout.TRIALS]
    trial_ids = _unique_ids(issues, layout.TRIALS, trials)
    keys: dict[tuple, int] = {}
    for line, v in trials:
        if v.get("run_id") is not None and v["run_id"] not in run_ids:
            issues.add(layout.TRIALS, line, "run_id", f"run {v['run_id']} is not in {layout.RUNS}")
        _check_choice(issues, layout.TRIALS, line, v, "status", TRIAL_STATUSES)
        _check_choice(issues, layout.TRIALS, line, v, "test_source", TEST_SOURCES)
        _check_choice(issues, layout.TRIALS, line, v, "feedback_source", FEEDBACK_SOURCES)
        key = tuple(v.get(k) for k in ("run_id", "problem_id", "condition", "seed", "trial_index"))
        if key in keys:
            issues.add(
                layout.TRIALS,
                line,
                "trial_index",
                f"same run, problem, condition, seed and trial index as line {keys[key]}",
            )
        keys.setdefault(key, line)
        claimed = v.get(f"_{layout.TRIAL_DERIVED}", None)
        if f"_{layout.TRIAL_DERIVED}" in v:
            derived = layout.trial_verdict(v.get("status"), v.get("passed"), v.get("error_class"))
            if claimed != derived:
                issues.add(
                    layout.TRIALS,
                    line,
                    layout.TRIAL_DERIVED,
                    f"says {claimed!r} but passed/status/error_class say {derived!r}",
                )
    step_trial: dict[int, int] = {}
    seqs: dict[tuple[int, int], int] = {}
    for line, v in t[layout.STEPS]:
        if v.get("trial_id") is not None and v["trial_id"] not in trial_ids:
            issues.add(layout.STEPS, line, "trial_id", f"trial {v['trial_id']} is not in {layout.TRIALS}")
        key = (v.get("trial_id"), v.get("seq"))
        if key in seqs:
            issues.add(layout.STEPS, line, "seq", f"trial {key[0]} already has step {key[1]} (line {seqs[key]})")
        seqs.setdefault(key, line)
        if isinstance(v.get("id"), int):
            step_trial[v["id"]] = v.get("trial_id")
    _unique_ids(issues, layout.STEPS, t[layout.STEPS])
    return trial_ids, step_trial


def _check_children(
    t: dict[str, list], trial_ids: set[int], step_trial: dict[int, int], issues: IssueCollector
) -> None:
    for name in (layout.LLM_CALLS, layout.EXECUTIONS, layout.RETRIEVAL_HITS):
        _unique_ids(issues, name, t[name])
        for line, v in t[name]:
            trial = v.get("trial_id")
            if trial is not None and trial not in trial_ids:
                issues.add(name, line, "trial_id", f"trial {trial} is not in {layout.TRIALS}")
            step = v.get("step_id")
            if step is not None:
                if step not in step_trial:
                    issues.add(name, line, "step_id", f"step {step} is not in {layout.STEPS}")
                elif step_trial[step] != trial:
                    issues.add(name, line, "step_id", f"step {step} belongs to trial {step_trial[step]}, not {trial}")
    for line, v in t[layout.LLM_CALLS]:
        messages = v.get("messages")
        if isinstance(messages, list) and not all(
            isinstance(m, dict) and "role" in m and "content" in m for m in messages
        ):
            issues.add(layout.LLM_CALLS, line, "messages", "must be a list of {'role': ..., 'content': ...} objects")
    for line, v in t[layout.EXECUTIONS]:
        _check_choice(issues, layout.EXECUTIONS, line, v, "purpose", EXECUTION_PURPOSES)
    for line, v in t[layout.RETRIEVAL_HITS]:
        if v.get("technique_id") == "":
            issues.add(layout.RETRIEVAL_HITS, line, "technique_id", "must not be empty")


def _check_problems(rows: list[tuple[int, dict[str, Any]]], issues: IssueCollector) -> None:
    seen: dict[tuple, int] = {}
    for line, v in rows:
        key = (v.get("benchmark"), v.get("problem_id"))
        if key in seen:
            issues.add(layout.PROBLEMS, line, "problem_id", f"{key[0]}/{key[1]} already on line {seen[key]}")
        seen.setdefault(key, line)
        if isinstance(v.get("tests"), list) and not all(isinstance(x, dict) for x in v["tests"]):
            issues.add(layout.PROBLEMS, line, "tests", "must be a list of sandbox test objects")
            continue
        try:
            ProblemRecord(**v).to_problem()
        except (ValidationError, TypeError) as exc:
            issues.add(layout.PROBLEMS, line, None, f"not a valid problem ({exc})")


def _strip(values: dict[str, Any], *names: str) -> dict[str, Any]:
    return {k: v for k, v in values.items() if k not in names and not k.startswith("_")}


def _problem_differs(conn: Any, row: dict[str, Any]) -> bool:
    table = ProblemRecord.__table__  # type: ignore[attr-defined]
    stored = conn.execute(
        select(table).where(table.c.benchmark == row["benchmark"], table.c.problem_id == row["problem_id"])
    ).first()
    if stored is None:
        return False
    return ProblemRecord(**dict(stored._mapping)).to_problem() != ProblemRecord(**row).to_problem()


def import_bundle(store: Any, fileset: FileSet, root: str) -> ImportResult:
    """Import the bundle at `root` of `fileset` (all or nothing); runs already imported from it are not duplicated."""
    parsed = parse_bundle(fileset, root)
    t = parsed.tables
    result = ImportResult(source="bundle")
    existing: dict[int, int] = {}
    for db_id, _title, config in runs_mentioning(store, parsed.digest):
        marker = config.get(layout.IMPORT_MARKER) or {}
        if marker.get("bundle_sha256") == parsed.digest and isinstance(marker.get("run"), int):
            existing.setdefault(marker["run"], db_id)

    runs = [v for _, v in t[layout.RUNS]]
    new_runs = [r for r in runs if r["id"] not in existing]
    new_run_ids = {r["id"] for r in new_runs}
    trials = [v for _, v in t[layout.TRIALS] if v["run_id"] in new_run_ids]
    new_trials = {v["id"] for v in trials}

    def keep(name: str) -> list[dict[str, Any]]:
        return [v for _, v in t[name] if v["trial_id"] in new_trials]

    run_map = dict(existing)
    with transaction(store) as conn:
        run_rows = []
        for r in new_runs:
            config = dict(r["config"]) | {layout.IMPORT_MARKER: {"bundle_sha256": parsed.digest, "run": r["id"]}}
            run_rows.append(_strip(r, "id", "parent_run_id") | {"config": config, "parent_run_id": None})
        for r, db_id in zip(new_runs, insert_rows(conn, Run.__table__, run_rows), strict=True):  # type: ignore[attr-defined]
            run_map[r["id"]] = db_id
        runs_t = Run.__table__  # type: ignore[attr-defined]
        for r in new_runs:
            if r["parent_run_id"] is not None:
                conn.execute(
                    runs_t.update()
                    .where(runs_t.c.id == run_map[r["id"]])
                    .values(parent_run_id=run_map[r["parent_run_id"]])
                )
        trial_rows = [_strip(v, "id") | {"run_id": run_map[v["run_id"]]} for v in trials]
        trial_map = dict(zip((v["id"] for v in trials), insert_rows(conn, Trial.__table__, trial_rows), strict=True))  # type: ignore[attr-defined]
        steps = keep(layout.STEPS)
        step_rows = [_strip(v, "id") | {"trial_id": trial_map[v["trial_id"]]} for v in steps]
        step_map = dict(zip((v["id"] for v in steps), insert_rows(conn, Step.__table__, step_rows), strict=True))  # type: ignore[attr-defined]
        for name, model in ((layout.LLM_CALLS, LLMCall), (layout.EXECUTIONS, Execution)):
            rows = [
                _strip(v, "id")
                | {
                    "trial_id": trial_map[v["trial_id"]],
                    "step_id": None if v["step_id"] is None else step_map[v["step_id"]],
                }
                for v in keep(name)
            ]
            insert_rows(conn, model.__table__, rows)  # type: ignore[attr-defined]
        hits = [_strip(v, "id") | {"trial_id": trial_map[v["trial_id"]]} for v in keep(layout.RETRIEVAL_HITS)]
        insert_rows(conn, RetrievalHit.__table__, hits)  # type: ignore[attr-defined]
        problems = [v for _, v in t[layout.PROBLEMS]]
        for p in problems:
            if _problem_differs(conn, p):
                result.warnings.append(
                    f"problem {p['benchmark']}/{p['problem_id']} is already stored with different content; "
                    "kept the stored copy"
                )
        insert_missing_problems(conn, problems)

    counts: dict[int, int] = {}
    for v in trials:
        counts[v["run_id"]] = counts.get(v["run_id"], 0) + 1
    for r in runs:
        if r["id"] in existing:
            result.runs.append(ImportedRun(existing[r["id"]], r["title"], trial_count(store, existing[r["id"]]), False))
        else:
            result.runs.append(ImportedRun(run_map[r["id"]], r["title"], counts.get(r["id"], 0)))
    if existing:
        result.warnings.append(
            f"{len(existing)} of {len(runs)} run(s) of this bundle were imported before (bundle sha256 "
            f"{parsed.digest[:12]}); not duplicated"
        )
    return result
