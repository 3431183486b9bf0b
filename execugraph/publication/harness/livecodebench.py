"""LiveCodeBench output files: `Scenario.codegeneration_<n>_<temperature>_eval_all.json`, `..._eval.json` and `....json`.

Why these three: lcb_runner's main writes, per model folder (`output/<model>/`), the
generations (`<scenario>_<n>_<temperature>.json`), the graded copy (`..._eval_all.json`: one
object per problem with its fields, `code_list`, `graded_list`, `pass@1` and `metadata`, a
list of JSON strings) and the metrics (`..._eval.json`: `[pass@k with detail, results by
index, metadata by index]`). The scenario is written `Scenario.codegeneration` by older
runners and `codegeneration` by newer ones. `graded_list` is the published verdict of each
sample; the problem's date, difficulty and platform are kept with every record, the
failure details of `metadata` become the imported grading's words.
`_eval.json` names problems only by their index in the benchmark lcb_runner loaded (sorted
by question_id): beside an `_eval_all.json` or a generations file it is aligned by index
(its per-test results kept, its pass@k checked); alone it can give pass@k and per-sample
verdicts under ids `lcb_index_<i>`, nothing else (no code, no dates, no pairing with
files that name their problems). Programs are graded `with-prompt`: lcb_runner runs its
import block before every program (`benchmarks.livecodebench.LCB_PREAMBLE`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from execugraph.benchmarks.livecodebench import RowFault, problem_id, row_header
from execugraph.domain.json_types import JsonObject
from execugraph.publication.formats import IssueCollector
from execugraph.publication.harness.common import HarnessOptions, HarnessRun, record, source_words
from execugraph.publication.source import FileSet

FORMAT = "livecodebench"
PROTOCOL = "with-prompt"
NAME = re.compile(r"^(?P<prefix>.*?)(?P<scenario>(?:Scenario\.)?codegeneration)_(?P<n>\d+)_(?P<temp>[^_/]+?)"
                  r"(?P<kind>_eval_all|_eval)?\.json$")
_CONTENT = {"eval_all": re.compile(rb'^(?:\xef\xbb\xbf)?\s*\[\s*\{\s*"question_title"\s*:'),
            "eval": re.compile(rb'^(?:\xef\xbb\xbf)?\s*\[\s*\{\s*"pass@\d+"\s*:')}
PEEK_BYTES = 4096
MAX_FILE_BYTES = 1024**3  # an _eval_all.json of n=10 over a whole release runs to hundreds of MiB
ERROR_CLASSES = {-1: "timeout", -2: "wrong_answer", -3: "timeout", -4: "runtime_error", -5: "harness_error"}
PASS_AT_TOLERANCE = 1e-6
ROLES = ("eval_all", "eval", "outputs")  # in the order a run's files are listed (its first file names it)
_WHAT = {"eval_all": "LiveCodeBench _eval_all.json", "eval": "LiveCodeBench _eval.json",
         "outputs": "LiveCodeBench generations"}


def _role(match: re.Match[str]) -> str:
    return {"_eval_all": "eval_all", "_eval": "eval"}.get(match.group("kind") or "", "outputs")


def _peek(fileset: FileSet, path: str) -> str | None:
    """`eval_all` or `eval` when a .json file's first bytes are LiveCodeBench's, else None."""
    try:
        with fileset.open(path) as stream:
            head = stream.read(PEEK_BYTES)
    except Exception:  # a damaged member is refused by the reader that opens it for real
        return None
    return next((role for role, pattern in _CONTENT.items() if pattern.match(head)), None)


def livecodebench_runs(fileset: FileSet, names: dict[str, str], used: set[str]) -> list[dict[str, str]]:
    """The LiveCodeBench runs of one folder (`names`: file name -> path), by file name or, for a renamed file, by
    its first bytes: role (eval_all, eval, outputs) -> path per run; their paths are added to `used`."""
    groups: dict[str, dict[str, str]] = {}
    for name, path in sorted(names.items()):
        if path in used or not name.endswith(".json"):
            continue
        match = NAME.match(name)
        if match:
            key, role = name[: match.end("temp")], _role(match)
        else:
            peeked = _peek(fileset, path)
            if peeked is None:
                continue
            key, role = name, peeked
        groups.setdefault(key, {})[role] = path
    out = []
    for files in groups.values():
        out.append({role: files[role] for role in ROLES if role in files})
        used.update(files.values())
    return out


def _issue(issues: IssueCollector, file: str, line: int | None, field: str | None, role: str, message: str) -> None:
    issues.add(file, line, field, f"read as {_WHAT[role]}: {message}")


def json_list(fileset: FileSet, path: str, issues: IssueCollector, role: str) -> list[tuple[int, Any]] | None:
    """(line where it starts, value) of every element of a JSON list, element by element, so a truncated or
    damaged file is refused naming the record it breaks in."""
    try:
        text = fileset.read_bytes(path, limit=min(fileset.limit, MAX_FILE_BYTES)).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        _issue(issues, path, None, None, role, f"not UTF-8 text ({exc})")
        return None
    decoder = json.JSONDecoder()
    pos, line, size = 0, 1, len(text)

    def skip(at: int) -> int:
        while at < size and text[at] in " \t\r\n":
            at += 1
        return at

    def advance(to: int) -> None:
        nonlocal pos, line
        line += text.count("\n", pos, to)
        pos = to

    advance(skip(0))
    if pos >= size or text[pos] != "[":
        got = "an empty file" if pos >= size else f"{text[pos:pos + 20]!r}"
        _issue(issues, path, line, None, role, f"expected a JSON list of problems, found {got}")
        return None
    advance(skip(pos + 1))
    items: list[tuple[int, Any]] = []
    while True:
        if pos < size and text[pos] == "]" and not items:
            advance(pos + 1)
            break
        k = len(items)
        try:
            value, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            cut = exc.pos >= len(text.rstrip())
            why = (f"the file ends inside record {k} (after {k} complete record(s)): it is truncated" if cut
                   else f"record {k} is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})")
            _issue(issues, path, exc.lineno, f"[{k}]", role, why)
            return None
        except RecursionError:
            _issue(issues, path, line, f"[{k}]", role, f"record {k} is nested too deeply to read")
            return None
        items.append((line, value))
        advance(skip(end))
        if pos < size and text[pos] == ",":
            advance(skip(pos + 1))
            continue
        if pos < size and text[pos] == "]":
            advance(pos + 1)
            break
        why = (f"the file ends after record {k} without the list's closing ']': it is truncated" if pos >= size
               else f"expected ',' or ']' after record {k}, found {text[pos:pos + 20]!r}")
        _issue(issues, path, line, f"[{k}]", role, why)
        return None
    if skip(pos) < size:
        _issue(issues, path, line, None, role, "text follows the list's closing ']'")
        return None
    return items


def _metadata_entry(value: Any, file: str, line: int, field: str, issues: IssueCollector) -> JsonObject | None:
    """One sample's failure details: a JSON string of an object (as lcb_runner writes them), or the object."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            _issue(issues, file, line, field, "eval_all", f"not a JSON string of an object ({exc.msg})")
            return None
    if not isinstance(value, dict):
        _issue(issues, file, line, field, "eval_all", f"expected a JSON string of an object, got {type(value).__name__}")
        return None
    return value


def _error_class(meta: JsonObject | None, results: list[Any] | None = None) -> str:
    code = meta.get("error_code") if meta else None
    if code is None and results:
        code = next((r for r in results if not (r is True or (_number(r) and r > 0))), None)
        code = -2 if code is False else code
    return ERROR_CLASSES.get(code, "failed") if isinstance(code, int) else "failed"


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _said(meta: JsonObject | None) -> str | None:
    if not meta:
        return None
    return source_words(("error_message", meta.get("error_message")), ("error", meta.get("error")),
                        ("inputs", meta.get("inputs")), ("expected", meta.get("expected")),
                        ("output", meta.get("output")))


def _passes(results: list[Any]) -> bool:
    """lcb_runner's verdict of one sample from its per-test results: every one > 0 (True counts as 1)."""
    return all((r is True) or (_number(r) and r > 0) for r in results)


class _Eval:
    """An `_eval.json` read: [metrics, results by index, metadata by index]."""

    def __init__(self, metrics: JsonObject, results: dict[int, list[list[Any]]], metadata: list[Any]) -> None:
        self.metrics, self.results, self.metadata = metrics, results, metadata

    def pass_at(self) -> dict[str, float]:
        return {k: float(v) for k, v in self.metrics.items() if k.startswith("pass@") and _number(v)}


def _read_eval(fileset: FileSet, path: str, issues: IssueCollector, beside: str | None,
               warnings: list[str]) -> _Eval | None:
    head = fileset.read_bytes(path, limit=min(fileset.limit, MAX_FILE_BYTES)).strip()
    if head in (b"{}", b"\xef\xbb\xbf{}"):  # lcb_runner writes {} when --continue_existing_with_eval found no old one
        message = ("holds {} (lcb_runner writes that when --continue_existing_with_eval found no earlier _eval.json): "
                   "no metrics")
        if beside is not None:
            warnings.append(f"{path}: {message}; ignored, the verdicts are {beside}'s")
        else:
            _issue(issues, path, 1, None, "eval", message + " and no _eval_all.json beside it, so nothing to import")
        return None
    items = json_list(fileset, path, issues, "eval")
    if items is None:
        return None
    if len(items) != 3:
        _issue(issues, path, 1, None, "eval", f"expected [metrics, results, metadata], a list of 3, got {len(items)}")
        return None
    (_, metrics), (results_line, raw_results), (meta_line, metadata) = items
    if not isinstance(metrics, dict):
        _issue(issues, path, 1, "[0]", "eval", "expected the metrics object (pass@k and detail)")
        return None
    results: dict[int, list[list[Any]]] = {}
    if not isinstance(raw_results, dict):
        _issue(issues, path, results_line, "[1]", "eval", "expected the results object (index -> per-sample tests)")
        return None
    for key, value in raw_results.items():
        ok = isinstance(value, list) and all(isinstance(s, list) for s in value)
        if not key.lstrip("-").isdigit() or not ok:
            _issue(issues, path, results_line, f"[1][{key!r}]", "eval",
                   "expected an index with a list of per-test results per sample")
            return None
        results[int(key)] = value
    if not isinstance(metadata, list):
        _issue(issues, path, meta_line, "[2]", "eval", "expected the metadata list (one list of JSON strings per index)")
        return None
    return _Eval(metrics, results, metadata)


def _naming(fileset: FileSet, path: str, options: HarnessOptions) -> tuple[str, str, str | None, JsonObject]:
    """(title, model, place, facts): the model is the run's folder (lcb_runner writes output/<model>/) or the file
    name's prefix; place is where the run sits (its folder when it is the folder's only LiveCodeBench run)."""
    folder, _, name = path.rpartition("/")
    match = NAME.match(name)
    if match is None:
        title = name.removesuffix(".json")
        return title, options.model or title, None, {}
    facts: JsonObject = {"scenario": match.group("scenario"), "n": int(match.group("n")),
                         "temperature": match.group("temp")}
    tag = f"{match.group('scenario')}_{match.group('n')}_{match.group('temp')}"
    prefix = match.group("prefix").strip("_-. ")
    if prefix:
        return prefix, options.model or prefix, None, facts
    model = folder.rpartition("/")[2] or fileset.name
    siblings = {m.group("scenario") + m.group("n") + m.group("temp") for other in fileset.files
                if other.rpartition("/")[0] == folder
                and (m := NAME.match(other.rpartition("/")[2])) and not m.group("prefix")}
    if len(siblings) > 1:
        return f"{model} ({tag})", options.model or model, None, facts
    return model, options.model or model, folder, facts


def _problem_fields(prob: JsonObject) -> tuple[str, JsonObject]:
    """(question id, the fields every sample's record keeps); RowFault names the field (without the record)."""
    qid, platform, difficulty, date = row_header(prob)
    return qid, {"problem_id": problem_id(qid), "source": f"livecodebench/{platform}/{qid}", "category": platform,
                 "platform": platform, "difficulty": difficulty, "contest_date": prob["contest_date"],
                 "release_date": date, "question_title": prob.get("question_title"),
                 "contest_id": prob.get("contest_id")}


def _strings(value: Any, field: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RowFault(field, "expected a list of strings")
    return value


class _Reader:
    """One run's files read into records; faults go to `issues`, what is off but usable to `warnings`."""

    def __init__(self, fileset: FileSet, files: dict[str, str], options: HarnessOptions,
                 issues: IssueCollector) -> None:
        self.fileset, self.files, self.options, self.issues = fileset, files, options, issues
        self.warnings: list[str] = []
        self.records: list[tuple[int, JsonObject]] = []
        self.tallies: list[tuple[int, int]] = []  # (samples, passed) per problem, for pass@k
        self.published_per_problem: list[tuple[str, float, float]] = []  # (question, file's pass@1, ours)

    def add(self, task_id: str, index: int, code: str, verdict: tuple[bool, str | None] | None, model: str,
            **extra: Any) -> None:
        self.records.append((len(self.records) + 1, record(task_id, index, code, PROTOCOL, self.options, model,
                                                            verdict, **extra)))

    def problems(self, path: str, role: str, model: str, ev: _Eval | None) -> None:
        items = json_list(self.fileset, path, self.issues, role)
        if items is None:
            return
        if not items:
            _issue(self.issues, path, None, None, role, "holds no problems (an empty list)")
            return
        if ev is not None and len(ev.results) != len(items):
            self.warnings.append(f"{self.files['eval']}: {len(ev.results)} indices but {path} holds {len(items)} "
                                 "problems: not aligned by index, so its per-test results are not attached")
            ev = None
        seen: dict[str, int] = {}
        for k, (line, prob) in enumerate(items):
            try:
                self.problem(path, role, model, k, line, prob, ev, seen)
            except RowFault as fault:
                qid = prob.get("question_id") if isinstance(prob, dict) else None
                which = f" (question {qid})" if isinstance(qid, str) else ""
                _issue(self.issues, path, line, f"[{k}].{fault.field}", role, f"record {k}{which}: {fault.message}")

    def problem(self, path: str, role: str, model: str, k: int, line: int, prob: Any, ev: _Eval | None,
                seen: dict[str, int]) -> None:
        if not isinstance(prob, dict):
            raise RowFault("(record)", f"expected an object per problem, got {type(prob).__name__}")
        qid, fields = _problem_fields(prob)
        if qid in seen:
            raise RowFault("question_id", f"{qid!r} repeats record {seen[qid]}")
        seen[qid] = k
        codes = _strings(prob.get("code_list"), "code_list")
        outputs = prob.get("output_list")
        outputs = outputs if isinstance(outputs, list) and len(outputs) == len(codes) else [None] * len(codes)
        graded = prob.get("graded_list") if role == "eval_all" else None
        if role == "eval_all" and "graded_list" not in prob:
            role = "outputs"  # a generations file found by its content
        if graded is not None and (not isinstance(graded, list) or len(graded) != len(codes)
                                   or not all(isinstance(g, bool) for g in graded)):
            raise RowFault("graded_list", f"expected {len(codes)} booleans, one per program of code_list")
        metadata = prob.get("metadata") if role == "eval_all" else None
        if metadata is not None and (not isinstance(metadata, list) or len(metadata) not in (0, len(codes))):
            raise RowFault("metadata", f"expected one JSON string per program ({len(codes)}), or none")
        details = [_metadata_entry(m, path, line, f"[{k}].metadata[{j}]", self.issues) for j, m in
                   enumerate(metadata or [])] or [None] * len(codes)
        tests = ev.results.get(k) if ev is not None else None
        if tests is not None and len(tests) != len(codes):
            tests = None
        if ev is not None and tests is not None and graded is not None and [_passes(t) for t in tests] != graded:
            self.warnings.append(f"{self.files['eval']}: index {k} does not agree with {path}'s graded_list of "
                                 f"{qid}: the two files are not aligned by index")
        if graded is None and tests is not None:
            graded = [_passes(t) for t in tests]
        task_id = f"LiveCodeBench/{qid}"
        for j, code in enumerate(codes):
            verdict = None
            if graded is not None:
                verdict = (True, None) if graded[j] else (False, _error_class(details[j], tests[j] if tests else None))
            raw: JsonObject = {"graded": graded[j] if graded is not None else None, "metadata": details[j]}
            if tests is not None:
                raw["tests"] = tests[j]
            said = _said(details[j]) if verdict is not None and not verdict[0] else None
            self.add(task_id, j, code, verdict, model, **fields, harness_result=raw, stderr=said,
                     model_output=outputs[j])
        if graded is not None:
            self.tallies.append((len(graded), sum(graded)))
            ours = sum(graded) / len(graded) if graded else 0.0
            published = prob.get("pass@1")
            if _number(published) and abs(float(published) - ours) > PASS_AT_TOLERANCE:
                self.published_per_problem.append((qid, float(published), ours))

    def index_only(self, path: str, model: str, ev: _Eval) -> None:
        """An `_eval.json` alone: per-sample verdicts under `lcb_index_<i>`, no code."""
        for k in sorted(ev.results):
            tests = ev.results[k]
            details: list[Any] = ev.metadata[k] if k < len(ev.metadata) and isinstance(ev.metadata[k], list) else []
            graded = [_passes(t) for t in tests]
            for j, results in enumerate(tests):
                meta = None
                if j < len(details):
                    meta = _metadata_entry(details[j], path, 1, f"[2][{k}][{j}]", self.issues)
                verdict = (True, None) if graded[j] else (False, _error_class(meta, results))
                said = _said(meta) if not graded[j] else None
                self.add(f"LiveCodeBench/index-{k}", j, "", verdict, model, problem_id=f"lcb_index_{k}",
                         source=f"livecodebench/index/{k}", category="livecodebench",
                         harness_result={"tests": results, "metadata": meta}, stderr=said)
            self.tallies.append((len(graded), sum(graded)))


def _pass_at_1(tallies: list[tuple[int, int]]) -> float | None:
    usable = [(n, c) for n, c in tallies if n]
    return sum(c / n for n, c in usable) / len(usable) if usable else None


def read_livecodebench(fileset: FileSet, files: dict[str, str], options: HarnessOptions,
                       issues: IssueCollector) -> HarnessRun | None:
    """One run from a LiveCodeBench run's files (role -> path: eval_all, eval, outputs)."""
    primary_role = "eval_all" if "eval_all" in files else "outputs" if "outputs" in files else "eval"
    primary = files[primary_role]
    title, model, place, facts = _naming(fileset, primary, options)
    reader = _Reader(fileset, files, options, issues)
    before = len(issues.issues)
    ev = None
    if "eval" in files:
        ev = _read_eval(fileset, files["eval"], issues, primary if primary_role != "eval" else None, reader.warnings)
    if primary_role == "eval":
        if ev is None:
            return None
        reader.index_only(primary, model, ev)
        reader.warnings.append(
            f"{primary}: an _eval.json alone names its problems only by their index in the release lcb_runner "
            "loaded (sorted by question_id) and holds no programs: imported are its per-sample verdicts and "
            "pass@k under ids lcb_index_<i>, comparable only with _eval.json files of the same release; it "
            "cannot be re-judged, dated, broken down by difficulty or platform, or paired with files that name "
            "their problems (put its _eval_all.json beside it)")
    else:
        reader.problems(primary, primary_role, model, ev)
    if len(issues.issues) > before:
        return None
    graded = any(rec["passed"] is not None for _, rec in reader.records)
    ours = _pass_at_1(reader.tallies)
    published = ev.pass_at() if ev is not None else {}
    for qid, theirs, mine in reader.published_per_problem[:5]:
        reader.warnings.append(f"{primary}: {qid}'s pass@1 says {theirs:.4f}; its graded_list gives {mine:.4f}")
    if "pass@1" in published and ours is not None and abs(published["pass@1"] - ours) > PASS_AT_TOLERANCE:
        reader.warnings.append(f"{files['eval']}: pass@1 says {published['pass@1']:.4f}; the verdicts imported give "
                               f"{ours:.4f}")
    extra: JsonObject = {**facts, "model": model, "published_pass_at_k": published,
                         "pass_at_1": ours, "eval_file": "aligned by index" if ev is not None and primary_role != "eval"
                         else "alone: problems by index only" if ev is not None else None}
    sha = {path: fileset.sha256(path) for path in files.values()}
    return HarnessRun(title, FORMAT, dict(files), sha, reader.records, graded, extra=extra,
                      warnings=reader.warnings, by_line=False, code_field="code_list", records_path=primary,
                      place=place)
