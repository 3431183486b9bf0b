"""Import the published layout: a tree of run folders, each with trials.jsonl.

Every folder holding a `trials.jsonl` becomes one Run of kind `import`, titled
after the folder's own name (with parent folders only where two runs would
otherwise share a name; the full path is kept in its config), with optional `run_meta.json` and `run_summary.json` kept in its config.
Each record becomes a Trial (status done) plus, so nothing in the record is
lost and the trace page can show it, one `reference_record` Step holding the
fields that have no Trial column, and one grading Execution holding the code
and stderr with the recorded verdict (policy version `reference`).

Mapping (documented because the statistics depend on it):
- `trial` -> trial_index; the key is (problem_id, condition, seed, trial). The
  published runs contain resumed runs with repeated keys: the last record wins,
  in the position of the first, and the dropped count is reported;
- benchmark: a problem id of our internal-30 is internal-30 and `humaneval_<n>` is
  HumanEval, whatever the record's `source` says (published logs file three
  internal-30 problems adapted from APPS under `apps-introductory`: the source is a
  hint, kept in the trace); otherwise `source` decides (`humaneval/<n>`,
  `internal`, `apps...`), then the category when it names a benchmark;
- `error_class`: `none` (and any class on a passed record) -> no error class;
  runtime -> runtime_error, syntax -> syntax_error, memory -> memory_limit,
  others as written (one we do not know is kept verbatim and reported as a
  warning); the raw value stays in the step;
- `test_source`: deterministic / benchmark / problem -> problem; generated and
  smoke as written; any other value (`none`: a trial that ended before any test
  ran) is kept verbatim and reported as a warning, never a reason to refuse;
- `timestamp` (Unix seconds or ISO 8601) -> finished_at;
- `retry_budget` -> the run config's `retry_budget_by_condition`, as published
  (a one-shot record that says 2 keeps 2; never replaced by a condition's
  default), the most common value where one condition's records differ (a warning);
- a benchmark file of the published layout anywhere in the tree (see
  `published_problems`) is stored as a benchmark of its own and named in every
  run's config (`reference.benchmark_file`), so rescoring uses the tests the runs
  were graded with.

A folder's identity is the SHA-256 of its files; importing a folder whose
content is already stored returns the existing run instead of a duplicate (a
note, not a warning: the folder's own warnings are reported either way).
Every record of every folder is checked before anything is written; a bad
field is refused with its file, line and field.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from execugraph.domain.json_types import JsonObject
from execugraph.publication.formats import IssueCollector, Row
from execugraph.publication.published_problems import BenchmarkFile, find_benchmark_files, problem_rows
from execugraph.publication.published_records import (
    ERROR_CLASSES,
    KNOWN_ERROR_CLASSES,
    RECORD_FIELDS,
    TEST_SOURCES,
    RunFolder,
    benchmark_of,
    folder_titles,
    parse_folder,
    record_timestamp,
    run_folders,
)
from execugraph.publication.results import ImportedRun, ImportResult
from execugraph.publication.source import FileSet
from execugraph.store.bulk_insert import BulkWriter, bulk_writes
from execugraph.store.models import Execution, Run, Step, Trial, utcnow
from execugraph.store.run_reads import runs_by_content_digest, trial_count

if TYPE_CHECKING:
    from execugraph.store import Store

RECORD_NODE = "reference_record"
REFERENCE_POLICY = "reference"
_STEP_FIELDS = (
    "source",
    "model_planner",
    "model_generator",
    "retry_budget",
    "passed_original",
    "error_class_original",
    "rescore_status",
)


def _budget_counts(records: list[JsonObject]) -> dict[str, Counter]:
    """condition -> how many of its records carry each published retry_budget."""
    counts: dict[str, Counter] = {}
    for rec in records:
        if isinstance(rec.get("retry_budget"), int):
            counts.setdefault(rec["condition"], Counter())[rec["retry_budget"]] += 1
    return counts


def _budgets(records: list[JsonObject]) -> dict[str, int]:
    """Retry budget per condition as the records publish it (the most common value; the first on a tie)."""
    return {c: n.most_common(1)[0][0] for c, n in _budget_counts(records).items()}


def _budget_warnings(f: RunFolder) -> list[str]:
    """Conditions whose records publish more than one retry budget: which one the run keeps."""
    out = []
    for condition, counts in _budget_counts([rec for _, rec in f.records]).items():
        if len(counts) > 1:
            values = ", ".join(f"{b} ({n})" for b, n in counts.most_common())
            out.append(f"{f.title}: records of {condition!r} carry retry_budget {values}; "
                       f"kept {counts.most_common(1)[0][0]}, the most common, as the condition's budget")
    return out


def _common(values: list[Any]) -> Any:
    present = [v for v in values if v]
    return Counter(present).most_common(1)[0][0] if present else None


def _summary_warnings(f: RunFolder, passed: int) -> list[str]:
    if not f.summary:
        return []
    out = []
    total = f.summary.get("trials_total")
    n_pass = f.summary.get("n_pass")
    if isinstance(total, int) and total != len(f.records):
        out.append(
            f"{f.title}: run_summary.json says {total} trials, trials.jsonl holds {len(f.records)} after de-duplication"
        )
    if isinstance(n_pass, int) and n_pass != passed:
        out.append(f"{f.title}: run_summary.json says {n_pass} passed, trials.jsonl has {passed}")
    return out


def _value_warnings(f: RunFolder) -> list[str]:
    """Values a published record may carry that we do not know: kept verbatim, reported here."""
    out = []
    records = [rec for _, rec in f.records]
    sources = Counter(r["test_source"] for r in records if isinstance(r.get("test_source"), str)
                      and r["test_source"] not in TEST_SOURCES)
    for value, n in sorted(sources.items()):
        out.append(f"{f.title}: {n} record(s) have test_source {value!r}, which ExecuGraph does not define "
                   f"(known: {', '.join(TEST_SOURCES)}); kept as written")
    classes = Counter(r["error_class"] for r in records if isinstance(r.get("error_class"), str)
                      and r["error_class"] not in ERROR_CLASSES and r["error_class"] not in KNOWN_ERROR_CLASSES)
    for value, n in sorted(classes.items()):
        out.append(f"{f.title}: {n} record(s) have error_class {value!r}, which ExecuGraph does not define; "
                   "kept as written")
    hinted: dict[str, set[str]] = {}
    for r in records:
        ours = benchmark_of(r.get("source"), r.get("category"), r["problem_id"])
        hint = benchmark_of(r.get("source"), None)
        if hint and ours != hint:
            hinted.setdefault(f"{r.get('source')} -> {ours}", set()).add(r["problem_id"])
    for change, ids in sorted(hinted.items()):
        source, _, ours = change.partition(" -> ")
        out.append(f"{f.title}: {', '.join(sorted(ids))} carry source {source!r} but are {ours} problems; "
                   f"filed under {ours} (the source is kept in each trace)")
    return out


def _folder_warnings(f: RunFolder) -> list[str]:
    """What a run folder's own files say is off (repeated records, summary mismatches, unknown values)."""
    out = []
    dropped = f.raw_count - len(f.records)
    if dropped:
        out.append(f"{f.title}: {dropped} repeated (problem, condition, seed, trial) record(s); the last one kept")
    out.extend(_summary_warnings(f, sum(1 for _, r in f.records if r["passed"])))
    out.extend(_value_warnings(f))
    out.extend(_budget_warnings(f))
    return out


def _benchmark_file_for(f: RunFolder, files: list[BenchmarkFile]) -> BenchmarkFile | None:
    """The tree's benchmark file that covers most of this folder's problems (None: none covers any)."""
    ids = {rec["problem_id"] for _, rec in f.records}
    best = max(files, key=lambda b: len(ids & b.ids), default=None)
    return best if best is not None and ids & best.ids else None


def _run_row(f: RunFolder, records: list[JsonObject], finished: list[datetime]) -> Row:
    """The Run row of one folder (its config a JSON column built from the records and the folder's files)."""
    meta = f.meta or {}
    host = meta.get("host")
    versions = {"python": host["python"]} if isinstance(host, dict) and isinstance(host.get("python"), str) else {}
    host_text = " ".join(str(host.get(k)) for k in ("platform", "machine") if isinstance(host, dict) and host.get(k))
    models = {
        role: value
        for role, value in (
            ("planner", _common([r.get("model_planner") for r in records]) or meta.get("model_planner")),
            ("generator", _common([r.get("model_generator") for r in records]) or meta.get("model_generator")),
        )
        if value
    }
    benchmarks = [benchmark_of(r.get("source"), r.get("category"), r["problem_id"]) for r in records]
    conditions = list(dict.fromkeys(r["condition"] for r in records))
    now = utcnow()
    row: Row = {
        "kind": "import",
        "title": f.title,
        "status": "done",
        "config": {
            "reference": {
                "folder": f.path,
                "content_sha256": f.digest,
                "records": f.raw_count,
                "duplicates_dropped": f.raw_count - len(records),
                "run_meta": f.meta,
                "run_summary": f.summary,
            },
            "conditions": {c: {"condition": c} for c in conditions},
            "retry_budget_by_condition": _budgets(records),
        },
        "benchmark": _common(benchmarks),
        "host": host_text,
        "versions": versions,
        "models": models,
        "tags": ["reference"],
        "created_at": min(finished) if finished else now,
        "started_at": min(finished) if finished else None,
        "finished_at": max(finished) if finished else None,
        "progress_total": len(records),
        "progress_done": len(records),
        "progress_passed": sum(1 for r in records if r["passed"]),
    }
    if f.extra_config:
        row["config"].update(f.extra_config)
    if f.run_fields:
        row.update(f.run_fields)
    return row


def _trial_row(rec: JsonObject, finished: datetime | None) -> Row:
    """The Trial row of one checked record."""
    passed = bool(rec["passed"])
    raw_class = rec.get("error_class")
    error_class = None if passed else ERROR_CLASSES.get(raw_class, raw_class) if raw_class is not None else None
    source = rec.get("test_source")
    return {
        "problem_id": rec["problem_id"],
        "benchmark": benchmark_of(rec.get("source"), rec.get("category"), rec["problem_id"]),
        "category": rec.get("category") or "",
        "condition": rec["condition"],
        "seed": rec["seed"],
        "trial_index": rec["trial"],
        "status": "done",
        "passed": passed,
        "tests_passed": rec.get("tests_passed") or 0,
        "tests_total": rec.get("tests_total") or 0,
        "retries_used": rec.get("retries_used") or 0,
        "error_class": error_class,
        "test_source": TEST_SOURCES.get(source, source) if source is not None else None,
        "feedback_source": None,
        "grading_protocol": rec.get("grading_protocol"),
        "final_code": rec.get("code"),
        "explanation": None,
        "message": None,
        "wallclock_s": float(rec.get("wallclock_s") or 0.0),
        "tokens_in": rec.get("tokens_in") or 0,
        "tokens_out": rec.get("tokens_out") or 0,
        "llm_calls": rec.get("llm_calls") or 0,
        "started_at": None,
        "finished_at": finished,
    }


def _step_output(line: int, rec: JsonObject) -> JsonObject:
    """The reference step's output (a JSON column): the record's fields that have no Trial column."""
    out: JsonObject = {"line": line}
    out.update({name: rec[name] for name in _STEP_FIELDS if name in rec})
    for raw in ("error_class", "test_source", "timestamp"):
        if raw in rec:
            out[f"{raw}_raw"] = rec[raw]
    extra = {k: v for k, v in rec.items() if k not in RECORD_FIELDS}
    if extra:
        out["extra"] = extra
    return out


def import_published(
    store: Store, fileset: FileSet, on_progress: Callable[[int, int], None] | None = None
) -> ImportResult:
    """Import every run folder of a published results tree in one transaction: all of it or nothing.

    `on_progress(done, total)` hears of each folder read (total: twice the folders, the
    second half once everything is written)."""
    issues = IssueCollector()
    names = run_folders(fileset)
    titles = folder_titles(fileset, names)
    folders = []
    for folder in names:
        folders.append(parse_folder(fileset, folder, issues, titles[folder]))
        if on_progress is not None:
            on_progress(len(folders), 2 * len(names))
    benchmark_files = find_benchmark_files(fileset, issues)
    issues.raise_if_any()
    result = ImportResult(source="reference")
    for bf in benchmark_files:
        result.warnings.extend(bf.warnings)
    planned: list[tuple[int, RunFolder]] = []  # (position in result.runs, folder to write)
    seen: dict[str, int] = {}
    already = runs_by_content_digest(store, {f.digest for f in folders})  # one read, not one per folder
    for position, f in enumerate(folders):
        if f.digest in seen:
            result.warnings.append(f"{f.title}: same content as {folders[seen[f.digest]].title}; imported once")
            continue
        seen[f.digest] = position
        result.warnings.extend(_folder_warnings(f))  # from the files, whether or not the run is stored already
        if f.digest in already:
            existing = already[f.digest]
            result.runs.append(ImportedRun(existing, f.title, trial_count(store, existing), False, f.path))
            result.note(f"{f.title}: already imported as run {existing}; not duplicated")
            continue
        planned.append((len(result.runs), f))
        result.runs.append(ImportedRun(0, f.title, len(f.records), folder=f.path))
    with bulk_writes(store) as bulk:
        bulk.insert_missing_problems(problem_rows(benchmark_files))
        written = write_folders(bulk, [(f, _benchmark_file_for(f, benchmark_files)) for _, f in planned])
        for (position, _f), run_id in zip(planned, written, strict=True):
            result.runs[position].id = run_id
    if on_progress is not None:
        on_progress(2 * len(names), 2 * len(names))
    return result


def write_folders(bulk: BulkWriter, folders: list[tuple[RunFolder, BenchmarkFile | None]]) -> list[int]:
    """Insert the folders' runs, trials, steps and executions, table by table; returns the run ids in order.

    One INSERT per table and BATCH rows, whatever the number of folders: 10,000 one-record folders are a few
    dozen statements, not 40,000.
    """
    runs, trials, moments = [], [], []  # per folder: run row; flattened: (folder, record, line), moment
    for f, benchmark_file in folders:
        records = [rec for _, rec in f.records]
        finished = [record_timestamp(r["timestamp"]) if r.get("timestamp") is not None else None for r in records]
        run_row = _run_row(f, records, [moment for moment in finished if moment is not None])
        if benchmark_file is not None:
            run_row["config"]["reference"]["benchmark_file"] = benchmark_file.config()
        runs.append(run_row)
        trials.extend((len(runs) - 1, rec, line) for line, rec in f.records)
        moments.extend(finished)
    run_ids = bulk.insert(Run, runs)
    trial_rows = [_trial_row(rec, moment) | {"run_id": run_ids[at]}
                  | ({"benchmark": folders[at][0].benchmark} if folders[at][0].benchmark else {})
                  for (at, rec, _line), moment in zip(trials, moments, strict=True)]
    trial_ids = bulk.insert(Trial, trial_rows)
    step_rows = [
        {
            "trial_id": trial_id,
            "seq": 1,
            "node": RECORD_NODE,
            "attempt": 0,
            "started_at": moment or runs[at]["created_at"],
            "ended_at": moment or runs[at]["created_at"],
            "output": _step_output(line, rec),
        }
        for trial_id, (at, rec, line), moment in zip(trial_ids, trials, moments, strict=True)
    ]
    step_ids = bulk.insert(Step, step_rows)
    policies = [str((f.meta or {}).get("sandbox_policy_version") or REFERENCE_POLICY) for f, _ in folders]
    execution_rows = [
        {
            "trial_id": trial_id,
            "step_id": step_id,
            "purpose": "grading",
            "code": rec.get("code") or "",
            "verdict": "passed" if row["passed"] else (row["error_class"] or "failed"),
            "tests_passed": row["tests_passed"],
            "tests_total": row["tests_total"],
            "results": [],
            "stdout": "",
            "stderr": rec.get("stderr") or "",
            "policy_version": policies[at],
            "isolation": {},
            "duration_s": 0.0,
            "created_at": moment or runs[at]["created_at"],
        }
        for trial_id, step_id, (at, rec, _line), row, moment in zip(
            trial_ids, step_ids, trials, trial_rows, moments, strict=True
        )
    ]
    bulk.insert(Execution, execution_rows)
    return run_ids
