"""The run folders of the published layout: their files, the fields of a record, and the checks.

A run folder holds `trials.jsonl` (one record per trial) and optionally
`run_meta.json` and `run_summary.json`. `parse_folder` validates every record
(types, required fields, non-negative counts, timestamps) and keeps the last
of repeated keys; a bad field is reported with its file, line and field.
How records become store rows is `published_import`'s part.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from execugraph.domain.json_types import JsonObject
from execugraph.publication.formats import IssueCollector, Row, decode_datetime, load_json_object
from execugraph.publication.source import FileSet

TRIALS_FILE = "trials.jsonl"
META_FILE = "run_meta.json"
SUMMARY_FILE = "run_summary.json"
_HUMANEVAL_ID = re.compile(r"^humaneval_\d+$")

ERROR_CLASSES = {
    "none": None,
    "": None,
    "runtime": "runtime_error",
    "syntax": "syntax_error",
    "memory": "memory_limit",
}
TEST_SOURCES = {
    "deterministic": "problem",
    "benchmark": "problem",
    "problem": "problem",
    "generated": "generated",
    "smoke": "smoke",
}
# Error classes a record may carry besides ERROR_CLASSES' spellings: our verdicts and trial errors.
KNOWN_ERROR_CLASSES = frozenset({
    "passed", "wrong_answer", "runtime_error", "syntax_error", "timeout", "memory_limit", "output_limit",
    "sandbox_violation", "harness_error", "llm_error", "failed",
})
# field -> (accepted JSON types, required)
_INT = (int,)
_NUM = (int, float)
_STR = (str,)
RECORD_FIELDS: dict[str, tuple[tuple[type, ...], bool]] = {
    "problem_id": (_STR, True),
    "condition": (_STR, True),
    "seed": (_INT, True),
    "trial": (_INT, True),
    "passed": ((bool,), True),
    "category": (_STR, False),
    "source": (_STR, False),
    "model_planner": (_STR, False),
    "model_generator": (_STR, False),
    "retry_budget": (_INT, False),
    "tests_total": (_INT, False),
    "tests_passed": (_INT, False),
    "retries_used": (_INT, False),
    "error_class": (_STR, False),
    "test_source": (_STR, False),
    "wallclock_s": (_NUM, False),
    "tokens_in": (_INT, False),
    "tokens_out": (_INT, False),
    "llm_calls": (_INT, False),
    "code": (_STR, False),
    "stderr": (_STR, False),
    "timestamp": ((int, float, str), False),
    "passed_original": ((bool,), False),
    "error_class_original": (_STR, False),
    "rescore_status": (_STR, False),
    "grading_protocol": (_STR, False),  # harness readers record how their verdicts were graded
}
_NON_NEGATIVE = (
    "seed",
    "trial",
    "retry_budget",
    "tests_total",
    "tests_passed",
    "retries_used",
    "tokens_in",
    "tokens_out",
    "llm_calls",
)


def run_folders(fileset: FileSet) -> list[str]:
    """Folders (relative to the input's root, '' for the root itself) that hold a trials.jsonl, sorted."""
    return sorted(path.rpartition("/")[0] for path in fileset.files if path.rpartition("/")[2] == TRIALS_FILE)


def folder_path(fileset: FileSet, folder: str) -> str:
    """`<input name>/<folder>`, or just the input's name when the input is itself one run folder (provenance)."""
    return f"{fileset.name}/{folder}" if folder else fileset.name


def folder_titles(fileset: FileSet, folders: list[str]) -> dict[str, str]:
    """Each run folder's title: its own name, with as many parent folders as it takes to tell two apart.

    A zip named like its top folder (`grid.zip` holding `grid/e1_mf/`) used to give `grid/grid/e1_mf`;
    the run is `e1_mf`, and `a/e1_mf` vs `b/e1_mf` only when both exist.
    """
    paths = {f: folder_path(fileset, f).split("/") for f in folders}
    depth = dict.fromkeys(folders, 1)
    while True:
        titles = {f: "/".join(parts[-depth[f]:]) for f, parts in paths.items()}
        clashes = [f for f in folders if list(titles.values()).count(titles[f]) > 1 and depth[f] < len(paths[f])]
        if not clashes:
            return titles
        for f in clashes:
            depth[f] += 1


def benchmark_of(source: str | None, category: str | None, problem_id: str = "") -> str:
    """Our benchmark for a published record: its problem id when we know it, else `source`, else `category`."""
    from execugraph.benchmarks.internal30 import INTERNAL30

    if problem_id in INTERNAL30:
        return "internal30"
    if _HUMANEVAL_ID.match(problem_id or ""):
        return "humaneval"
    for hint in (source or "", category or ""):
        key = hint.strip().lower()
        if key.startswith("humaneval"):
            return "humaneval"
        if key.startswith("internal"):
            return "internal30"
        if key.startswith("apps"):
            return "apps"
    return ""


def record_timestamp(value: Any) -> datetime:
    """A record's `timestamp` (Unix seconds or ISO 8601 with an offset) as an aware UTC datetime."""
    if isinstance(value, str):
        return decode_datetime(value)
    if isinstance(value, bool) or not math.isfinite(float(value)):
        raise ValueError(f"expected Unix seconds or an ISO 8601 date-time, got {value!r}")
    return datetime.fromtimestamp(float(value), tz=UTC)


@dataclass
class RunFolder:
    """One validated run folder, ready to write."""

    folder: str
    title: str  # the run's name: the folder's own name (see folder_titles)
    path: str  # where it came from: <input name>/<folder>
    digest: str
    records: list[tuple[int, JsonObject]]  # (line, published-layout record, as read) after de-duplication
    raw_count: int  # records before de-duplication
    meta: JsonObject | None  # run_meta.json as read, kept in the run's config
    summary: JsonObject | None  # run_summary.json as read, kept in the run's config
    # Harness readers (publication.harness): config merged into the run's, and run columns set as given.
    extra_config: JsonObject | None = None
    run_fields: Row | None = None
    benchmark: str | None = None  # every trial's benchmark, where the reader knows it (MBPP+), else benchmark_of


def check_record(file: str, line: int, rec: JsonObject, issues: IssueCollector) -> bool:
    """Whether one record has every required field with the right type and sane values; faults go to `issues`."""
    ok = True
    for name, (types, required) in RECORD_FIELDS.items():
        if name not in rec or rec[name] is None:
            if required:
                issues.add(file, line, name, "missing")
                ok = False
            continue
        value = rec[name]
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            wanted = " or ".join(t.__name__ for t in types)
            issues.add(file, line, name, f"expected {wanted}, got {value!r}")
            ok = False
            continue
        if name in _NON_NEGATIVE and value < 0:
            issues.add(file, line, name, f"must be >= 0, got {value}")
            ok = False
    for name in ("problem_id", "condition"):
        if isinstance(rec.get(name), str) and not rec[name].strip():
            issues.add(file, line, name, "must not be empty")
            ok = False
    total, passed = rec.get("tests_total"), rec.get("tests_passed")
    if isinstance(total, int) and isinstance(passed, int) and not isinstance(passed, bool) and passed > total:
        issues.add(file, line, "tests_passed", f"{passed} is more than tests_total {total}")
        ok = False
    if "timestamp" in rec and rec["timestamp"] is not None:
        try:
            record_timestamp(rec["timestamp"])
        except (ValueError, TypeError, OverflowError, OSError) as exc:
            issues.add(file, line, "timestamp", str(exc))
            ok = False
    return ok


def parse_folder(fileset: FileSet, folder: str, issues: IssueCollector, title: str | None = None) -> RunFolder:
    """Validate one run folder; issues name files by their path within the input."""
    files = fileset.under(folder)
    prefix = f"{folder}/" if folder else ""
    file = f"{prefix}{TRIALS_FILE}"
    kept: dict[tuple, tuple[int, JsonObject]] = {}
    raw = 0
    for line, rec in files.jsonl(TRIALS_FILE, file, issues):
        raw += 1
        if check_record(file, line, rec, issues):
            key = (rec["problem_id"], rec["condition"], rec["seed"], rec["trial"])
            kept[key] = (line, rec)  # last record wins; dict keeps the first position
    if raw == 0:
        issues.add(file, None, None, "holds no trial records")
    meta = load_json_object(files[META_FILE], f"{prefix}{META_FILE}", issues) if META_FILE in files else None
    summary = (
        load_json_object(files[SUMMARY_FILE], f"{prefix}{SUMMARY_FILE}", issues) if SUMMARY_FILE in files else None
    )
    digest = files.digest((TRIALS_FILE, META_FILE, SUMMARY_FILE))
    path = folder_path(fileset, folder)
    return RunFolder(folder, title or path.rpartition("/")[2], path, digest, list(kept.values()), raw, meta, summary)
