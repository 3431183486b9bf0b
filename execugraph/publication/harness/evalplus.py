"""EvalPlus files: `*_eval_results.json` (new and old layouts) with the samples file beside it.

Why two runs: EvalPlus gives every sample two verdicts, on the base tests and on the
plus tests. `base_status` is the run's published verdict (comparable with HumanEval);
the plus verdict (base and plus both "pass", EvalPlus's own rule) is kept as a second
verdict set, a child run whose config says `verdict_set: evalplus-plus`.
A `solution` is a whole program (graded `standalone`); a `completion` is a body
(graded `with-prompt`). Any status other than "pass" fails, as in EvalPlus.
"""

from __future__ import annotations

from typing import Any

from execugraph.domain.json_types import JsonObject
from execugraph.publication.formats import IssueCollector
from execugraph.publication.harness.common import (
    HarnessOptions,
    HarnessRun,
    completion_text,
    json_document,
    jsonl_objects,
    numbered,
    record,
    source_words,
    stem,
)
from execugraph.publication.source import FileSet

FORMAT = "evalplus"
_STATUS_CLASSES = {"fail": "failed", "timeout": "timeout"}


def status_verdict(status: Any) -> tuple[bool, str | None]:
    """EvalPlus status -> (passed, error class); anything but "pass" is a failure."""
    word = str(status).strip().lower()
    return (True, None) if word == "pass" else (False, _STATUS_CLASSES.get(word, "failed"))


def _code(sample: JsonObject) -> tuple[str, str] | None:
    """(code, protocol) of a sample: a whole `solution` standalone, else a `completion` with its prompt."""
    if isinstance(sample.get("solution"), str):
        return sample["solution"], "standalone"
    text = completion_text(sample.get("completion"))
    return (text, "with-prompt") if text is not None else None


def _samples(fileset: FileSet, path: str | None, issues: IssueCollector) -> dict[str, list[tuple[int, dict]]]:
    """task id -> its sample lines in order of appearance (summary lines skipped)."""
    out: dict[str, list[tuple[int, dict]]] = {}
    if path is None:
        return out
    for number, obj in jsonl_objects(fileset, path, issues, f"{FORMAT} samples"):
        if not isinstance(obj.get("task_id"), str):
            continue
        if _code(obj) is None:
            issues.add(path, number, "solution", f"read as {FORMAT} samples: neither a solution nor a completion text")
            continue
        out.setdefault(obj["task_id"], []).append((number, obj))
    return out


def _details(verdict: Any) -> Any:
    """The details of an old-layout `[status, details]` verdict (failing inputs), None when it has none."""
    return verdict[1] if isinstance(verdict, list) and len(verdict) > 1 else None


def _status(value: Any, file: str, where: str, issues: IssueCollector) -> bool:
    if isinstance(value, str):
        return True
    issues.add(file, None, where, f"read as {FORMAT} eval results: expected a status string, got {value!r}")
    return False


Row = tuple[str, str, Any, Any, Any, Any]  # code, protocol, base status, plus status, base details, plus details


def _new_layout(task_id: str, entries: list[Any], file: str, issues: IssueCollector) -> list[Row]:
    """(code, protocol, base status, plus status, failing base tests, failing plus tests) per new-layout entry."""
    out = []
    for i, entry in enumerate(entries):
        where = f"eval[{task_id!r}][{i}]"
        code = _code(entry) if isinstance(entry, dict) else None
        if code is None:
            issues.add(file, None, f"{where}.solution", f"read as {FORMAT} eval results: missing or not text")
            continue
        if _status(entry.get("base_status"), file, f"{where}.base_status", issues):
            out.append((*code, entry["base_status"], entry.get("plus_status"), entry.get("base_fail_tests"),
                        entry.get("plus_fail_tests")))
    return out


def _old_layout(task_id: str, entry: JsonObject, samples: list[tuple[int, dict]], file: str,
                samples_file: str | None, issues: IssueCollector) -> list[Row]:
    """(code, protocol, base status, plus status, base details, plus details) per sample of the old layout (code
    from the samples file; each verdict a `[status, details]` list)."""
    where = f"eval[{task_id!r}]"
    base, plus = entry.get("base"), entry.get("plus") or []
    if not isinstance(base, list) or not isinstance(plus, list):
        issues.add(file, None, f"{where}.base", f"read as {FORMAT} eval results (old layout): expected lists")
        return []
    if samples_file is None:
        issues.add(file, None, where, f"read as {FORMAT} eval results (old layout): the code is in the samples "
                   "file, and none was found beside it")
        return []
    if len(samples) != len(base):
        issues.add(file, None, f"{where}.base", f"read as {FORMAT} eval results (old layout): {len(base)} "
                   f"verdicts but {samples_file} holds {len(samples)} samples of {task_id}")
        return []
    out = []
    for i, ((_line, sample), status) in enumerate(zip(samples, base, strict=True)):
        first = status[0] if isinstance(status, list) and status else status
        plus_status = plus[i] if i < len(plus) else None
        plus_first = plus_status[0] if isinstance(plus_status, list) and plus_status else plus_status
        code = _code(sample)
        if code is not None and _status(first, file, f"{where}.base[{i}]", issues):
            out.append((*code, first, plus_first, _details(status), _details(plus_status)))
    return out


def read_evalplus(fileset: FileSet, results: str, samples: str | None, options: HarnessOptions,
                  issues: IssueCollector) -> HarnessRun | None:
    """One run (base verdicts) with its plus verdicts, from an eval results file and its samples."""
    doc = json_document(fileset, results, issues, f"{FORMAT} eval results")
    if doc is None:
        return None
    evals = doc.get("eval") if isinstance(doc, dict) else None
    if not isinstance(evals, dict):
        issues.add(results, None, "eval", f"read as {FORMAT} eval results: expected an object of task ids")
        return None
    by_task = _samples(fileset, samples, issues)
    rows: list[tuple[Any, ...]] = []
    layout = "new"
    for task_id, entry in evals.items():
        if isinstance(entry, list):
            found = _new_layout(task_id, entry, results, issues)
        elif isinstance(entry, dict):
            layout = "old"
            found = _old_layout(task_id, entry, by_task.get(task_id, []), results, samples, issues)
        else:
            issues.add(results, None, f"eval[{task_id!r}]", f"read as {FORMAT} eval results: expected a list "
                       "(new layout) or an object with base/plus (old layout)")
            continue
        rows.extend((task_id, *row) for row in found)
    title = stem(samples) if samples else stem(results)
    model = options.model or title
    indices = numbered([r[0] for r in rows])
    base, plus, missing_plus = [], [], 0
    for position, ((task_id, code, protocol, base_status, plus_status, base_details, plus_details), index) in enumerate(
            zip(rows, indices, strict=True), start=1):
        verdict = status_verdict(base_status)
        missing_plus += verdict[0] and plus_status is None
        plus_verdict = status_verdict(plus_status) if verdict[0] and plus_status is not None else (
            verdict if not verdict[0] else (False, "failed"))
        raw = {"base_status": base_status, "plus_status": plus_status}
        base_said = source_words(("base_status", base_status), ("base_fail_tests", base_details))
        plus_said = source_words(("base_status", base_status), ("plus_status", plus_status),
                                 ("plus_fail_tests", plus_details))
        base.append((position, record(task_id, index, code, protocol, options, model, verdict, harness_result=raw,
                                      stderr=base_said)))
        plus.append((position, record(task_id, index, code, protocol, options, model, plus_verdict,
                                      harness_result=raw, stderr=plus_said)))
    files = {k: v for k, v in (("eval_results", results), ("samples", samples)) if v}
    warnings = [f"{results}: {missing_plus} sample(s) carry no plus_status; counted as failing the plus tests"
                ] if missing_plus else []
    extra = {"layout": layout, "date": doc.get("date"), "hash": doc.get("hash")}
    sha = {path: fileset.sha256(path) for path in files.values()}
    return HarnessRun(title, FORMAT, files, sha, base, True, extra=extra, plus=plus, warnings=warnings,
                      by_line=False)


def read_evalplus_samples(fileset: FileSet, samples: str, options: HarnessOptions,
                          issues: IssueCollector) -> HarnessRun:
    """An EvalPlus samples file without its eval results: an ungraded run (graded on import)."""
    by_task = _samples(fileset, samples, issues)
    rows = sorted(((line, task_id, obj) for task_id, items in by_task.items() for line, obj in items))
    if not rows and not issues:
        issues.add(samples, None, None, f"read as {FORMAT} samples: holds no sample lines")
    model = options.model or stem(samples)
    indices = numbered([task_id for _, task_id, _ in rows])
    records = []
    for (line, task_id, obj), index in zip(rows, indices, strict=True):
        code, protocol = _code(obj) or ("", "standalone")
        records.append((line, record(task_id, index, code, protocol, options, model, None)))
    return HarnessRun(stem(samples), FORMAT, {"samples": samples}, {samples: fileset.sha256(samples)}, records, False)
