"""The first pass over a bundle: every line of every file checked, streamed, keeping only ids and keys.

The importer writes nothing until this pass has gone through the whole bundle
without an issue. What it keeps is small (the runs, and for every other row its
id and the ids it points to), so checking a bundle of millions of rows needs
memory for those numbers only, never for the rows themselves.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from execugraph.publication import layout
from execugraph.publication.formats import IssueCollector, Row, load_json_object
from execugraph.publication.source import FileView
from execugraph.store.models import (
    EXECUTION_PURPOSES,
    FEEDBACK_SOURCES,
    RUN_KINDS,
    RUN_STATUSES,
    TEST_SOURCES,
    TRIAL_STATUSES,
    ProblemRecord,
)

OPTIONAL_FILES = (layout.STEPS, layout.LLM_CALLS, layout.EXECUTIONS, layout.RETRIEVAL_HITS, layout.PROBLEMS)
UNIMPORTABLE_STATUSES = ("queued", "running")


@dataclass
class BundleIndex:
    """What the check pass learnt: the bundle's digest, its runs, and which trial belongs to which run."""

    digest: str
    runs: list[tuple[int, Row]] = field(default_factory=list)  # (line, run values), file order
    trial_run: dict[int, int] = field(default_factory=dict)  # bundle trial id -> bundle run id


def decoded(
    files: FileView, name: str, issues: IssueCollector, extra: tuple[str, ...] = ()
) -> Iterator[tuple[int, Row]]:
    """(line, column values) of every line of bundle file `name`, streamed; `extra` fields come back as `_name`."""
    if name not in files:
        return
    codec = layout.CODECS[name]
    for line, obj in files.jsonl(name, name, issues):
        values = codec.decode(obj, line, issues, extra=extra)
        values.update({f"_{key}": obj[key] for key in extra if key in obj})
        yield line, values


class _Ids:
    """Ids seen in one file, so a repeated one is reported with the line it first appeared on."""

    def __init__(self, file: str, issues: IssueCollector) -> None:
        self.file = file
        self.issues = issues
        self.lines: dict[int, int] = {}

    def see(self, line: int, values: Mapping[str, object]) -> None:
        ident = values.get("id")
        if not isinstance(ident, int):
            return
        if ident in self.lines:
            self.issues.add(self.file, line, "id", f"duplicate id {ident} (first on line {self.lines[ident]})")
        else:
            self.lines[ident] = line


def _check_choice(
    issues: IssueCollector, file: str, line: int, values: Mapping[str, object], name: str, allowed: tuple[str, ...]
) -> None:
    value = values.get(name)
    if value is not None and value not in allowed:
        issues.add(file, line, name, f"must be one of {', '.join(allowed)}; got {value!r}")


def check_bundle(files: FileView) -> BundleIndex:
    """Check the bundle whose files are `files`; raises BundleFormatError listing what is wrong."""
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

    index = BundleIndex(digest=files.digest())  # reads every file once: damage anywhere is found here
    index.runs = list(decoded(files, layout.RUNS, issues))
    if not index.runs:
        issues.add(layout.RUNS, None, None, "holds no runs")
    _check_runs(index.runs, issues)
    run_ids = {v["id"] for _, v in index.runs if isinstance(v.get("id"), int)}
    _check_trials(files, run_ids, index, issues)
    step_trial = _check_steps(files, set(index.trial_run), issues)
    _check_children(files, set(index.trial_run), step_trial, issues)
    _check_problems(files, issues)
    issues.raise_if_any()
    return index


def _check_runs(rows: list[tuple[int, Row]], issues: IssueCollector) -> None:
    ids = _Ids(layout.RUNS, issues)
    known = {v.get("id") for _, v in rows}
    for line, v in rows:
        ids.see(line, v)
        _check_choice(issues, layout.RUNS, line, v, "kind", RUN_KINDS)
        _check_choice(issues, layout.RUNS, line, v, "status", RUN_STATUSES)
        if v.get("status") in UNIMPORTABLE_STATUSES:
            issues.add(layout.RUNS, line, "status", f"{v['status']!r}: only finished runs can be imported")
        parent = v.get("parent_run_id")
        if parent is not None and (parent not in known or parent == v.get("id")):
            issues.add(layout.RUNS, line, "parent_run_id", f"{parent} is not another run of this bundle")
        tags = v.get("tags")
        if isinstance(tags, list) and not all(isinstance(x, str) for x in tags):
            issues.add(layout.RUNS, line, "tags", "must be a list of strings")
        if isinstance(v.get("config"), dict) and layout.IMPORT_MARKER in v["config"]:
            issues.add(layout.RUNS, line, "config", f"key {layout.IMPORT_MARKER!r} is reserved for the importer")


def _check_trials(files: FileView, run_ids: set[int], index: BundleIndex, issues: IssueCollector) -> None:
    ids = _Ids(layout.TRIALS, issues)
    keys: dict[tuple, int] = {}
    derived_key = f"_{layout.TRIAL_DERIVED}"
    for line, v in decoded(files, layout.TRIALS, issues, extra=(layout.TRIAL_DERIVED,)):
        ids.see(line, v)
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
        if derived_key in v:
            derived = layout.trial_verdict(v.get("status"), v.get("passed"), v.get("error_class"))
            if v[derived_key] != derived:
                issues.add(
                    layout.TRIALS,
                    line,
                    layout.TRIAL_DERIVED,
                    f"says {v[derived_key]!r} but passed/status/error_class say {derived!r}",
                )
        if isinstance(v.get("id"), int) and isinstance(v.get("run_id"), int):
            index.trial_run.setdefault(v["id"], v["run_id"])


def _check_steps(files: FileView, trial_ids: set[int], issues: IssueCollector) -> dict[int, int]:
    """Check steps; returns step id -> trial id."""
    ids = _Ids(layout.STEPS, issues)
    step_trial: dict[int, int] = {}
    seqs: dict[tuple[Any, Any], int] = {}
    for line, v in decoded(files, layout.STEPS, issues):
        ids.see(line, v)
        if v.get("trial_id") is not None and v["trial_id"] not in trial_ids:
            issues.add(layout.STEPS, line, "trial_id", f"trial {v['trial_id']} is not in {layout.TRIALS}")
        key = (v.get("trial_id"), v.get("seq"))
        if key in seqs:
            issues.add(layout.STEPS, line, "seq", f"trial {key[0]} already has step {key[1]} (line {seqs[key]})")
        seqs.setdefault(key, line)
        if isinstance(v.get("id"), int):
            step_trial.setdefault(v["id"], v.get("trial_id"))
    return step_trial


def _check_children(files: FileView, trial_ids: set[int], step_trial: dict[int, int], issues: IssueCollector) -> None:
    for name in (layout.LLM_CALLS, layout.EXECUTIONS, layout.RETRIEVAL_HITS):
        ids = _Ids(name, issues)
        for line, v in decoded(files, name, issues):
            ids.see(line, v)
            trial = v.get("trial_id")
            if trial is not None and trial not in trial_ids:
                issues.add(name, line, "trial_id", f"trial {trial} is not in {layout.TRIALS}")
            step = v.get("step_id")
            if step is not None:
                if step not in step_trial:
                    issues.add(name, line, "step_id", f"step {step} is not in {layout.STEPS}")
                elif step_trial[step] != trial:
                    issues.add(name, line, "step_id", f"step {step} belongs to trial {step_trial[step]}, not {trial}")
            if name == layout.LLM_CALLS:
                messages = v.get("messages")
                if isinstance(messages, list) and not all(
                    isinstance(m, dict) and "role" in m and "content" in m for m in messages
                ):
                    issues.add(name, line, "messages", "must be a list of {'role': ..., 'content': ...} objects")
            elif name == layout.EXECUTIONS:
                _check_choice(issues, name, line, v, "purpose", EXECUTION_PURPOSES)
            elif v.get("technique_id") == "":
                issues.add(name, line, "technique_id", "must not be empty")


def _check_problems(files: FileView, issues: IssueCollector) -> None:
    seen: dict[tuple, int] = {}
    for line, v in decoded(files, layout.PROBLEMS, issues):
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
