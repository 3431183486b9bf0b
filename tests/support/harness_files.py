"""human-eval, EvalPlus and bigcode-evaluation-harness files written as those harnesses write them.

Real HumanEval tasks (`official_task`) give prompts and canonical solutions; the
quirks are the real ones: samples out of task order, 10 samples per task, a summary
line without task_id, an API response object as a completion, empty solutions, both
EvalPlus layouts, bigcode generations without verdicts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execugraph.benchmarks.humaneval import official_task

TASKS = (2, 0, 1)  # out of task order on purpose
# Per task, the 10 samples by kind (index = sample number within the task).
KINDS = ("canonical", "wrong", "api", "canonical", "raises", "empty", "canonical", "wrong", "canonical", "api")
TIMEOUT_TASK = 0  # this task's sample 7 loops forever instead
WRONG = "    return None\n"
RAISES = "    raise ValueError('no')\n"
LOOPS = "    while True:\n        pass\n"


@dataclass(frozen=True)
class Sample:
    """One completion of one task and the verdict human-eval gives it."""

    task_id: str
    kind: str
    completion: Any  # a string, or an API response object
    text: str  # the completion's text

    @property
    def passes(self) -> bool:
        return self.kind in ("canonical", "api")

    @property
    def result(self) -> str:
        if self.passes:
            return "passed"
        if self.kind == "loops":
            return "timed out"
        return "failed: " if self.kind in ("wrong", "empty") else "failed: no"


def _api(text: str) -> dict[str, Any]:
    return {"id": "cmpl-1", "object": "text_completion", "choices": [{"index": 0, "text": text,
                                                                       "finish_reason": "stop"}]}


def samples() -> list[Sample]:
    """30 samples of 3 tasks, interleaved across tasks (files are not in task order)."""
    per_task = []
    for number in TASKS:
        task = official_task(f"HumanEval/{number}")
        body = task["canonical_solution"]
        rows = []
        for index, kind in enumerate(KINDS):
            if number == TIMEOUT_TASK and index == 7:
                kind = "loops"
            text = {"canonical": body, "api": body, "wrong": WRONG, "raises": RAISES, "empty": "",
                    "loops": LOOPS}[kind]
            rows.append(Sample(task["task_id"], kind, _api(text) if kind == "api" else text, text))
        per_task.append(rows)
    return [rows[i] for i in range(len(KINDS)) for rows in per_task]


def check_program(sample: Sample) -> str:
    """human-eval's check program for a sample: prompt + completion + test + check(entry_point)."""
    task = official_task(sample.task_id)
    return task["prompt"] + sample.text + "\n" + task["test"] + "\n" + f"check({task['entry_point']})"


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_human_eval(folder: Path, *, results: bool = True, name: str = "samples.jsonl") -> Path:
    """`samples.jsonl` (with a summary line) and, with `results`, `samples.jsonl_results.jsonl` beside it."""
    rows = [{"task_id": s.task_id, "completion": s.completion} for s in samples()]
    path = _jsonl(folder / name, [*rows, {"pass@1": 0.5}])
    if results:
        graded = [{**row, "result": s.result, "passed": s.passes} for row, s in zip(rows, samples(), strict=True)]
        _jsonl(folder / f"{name}_results.jsonl", graded)
    return path


def _plus_status(sample: Sample, index: int) -> str:
    """Plus tests are stronger: the 4th canonical-kind sample of each task fails them (a made-up but valid verdict)."""
    if not sample.passes:
        return "fail"
    return "fail" if index == 6 else "pass"


def _status(sample: Sample) -> str:
    return "pass" if sample.passes else ("timeout" if sample.kind == "loops" else "fail")


def write_evalplus_new(folder: Path) -> Path:
    """New layout: `samples.jsonl` of whole-program solutions and `samples_eval_results.json` holding them."""
    task_index: dict[str, int] = {}
    rows, evals = [], {}
    for s in samples():
        index = task_index.get(s.task_id, 0)
        task_index[s.task_id] = index + 1
        solution = "" if s.kind == "empty" else official_task(s.task_id)["prompt"] + s.text
        rows.append({"task_id": s.task_id, "solution": solution})
        evals.setdefault(s.task_id, []).append({
            "task_id": s.task_id, "solution": solution, "base_status": _status(s),
            "plus_status": _plus_status(s, index), "base_fail_tests": [] if s.passes else [[1]],
            "plus_fail_tests": [],
        })
    _jsonl(folder / "samples.jsonl", rows)
    path = folder / "samples_eval_results.json"
    path.write_text(json.dumps({"date": "2024-01-01 00:00", "hash": "abc", "eval": evals}), encoding="utf-8")
    return path


def write_evalplus_old(folder: Path) -> Path:
    """Old layout: `eval_results.json` with per-task `nfiles`/`base`/`plus`, code (completions) in `samples.jsonl`."""
    rows, evals = [], {}
    task_index: dict[str, int] = {}
    for s in samples():
        index = task_index.get(s.task_id, 0)
        task_index[s.task_id] = index + 1
        rows.append({"task_id": s.task_id, "completion": s.completion})
        entry = evals.setdefault(s.task_id, {"nfiles": 0, "base": [], "plus": []})
        entry["nfiles"] += 1
        entry["base"].append([_status(s), []])
        entry["plus"].append([_plus_status(s, index), []])
    _jsonl(folder / "samples.jsonl", rows)
    path = folder / "eval_results.json"
    path.write_text(json.dumps({"eval": evals}), encoding="utf-8")
    return path


BIGCODE_TASKS = 3
BIGCODE_SAMPLES = ("canonical", "wrong", "canonical", "raises")


def bigcode_generations() -> list[list[str]]:
    """One list of whole programs per task, in task order (HumanEval/0, /1, /2)."""
    out = []
    for number in range(BIGCODE_TASKS):
        task = official_task(f"HumanEval/{number}")
        bodies = {"canonical": task["canonical_solution"], "wrong": WRONG, "raises": RAISES}
        out.append([task["prompt"] + bodies[k] for k in BIGCODE_SAMPLES])
    return out


def write_bigcode(folder: Path, *, evaluation: bool = True, pass_at_1: float | None = None) -> Path:
    """`generations_humaneval.json` and (optionally) `evaluation_results.json` with pass@1 and pass@2."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "generations_humaneval.json"
    path.write_text(json.dumps(bigcode_generations()), encoding="utf-8")
    if evaluation:
        scores = {"pass@1": 0.5 if pass_at_1 is None else pass_at_1, "pass@2": 1 - 1 / 6}
        config = {"model": "bigcode/tiny-coder", "temperature": 0.2, "n_samples": 4, "tasks": "humaneval"}
        (folder / "evaluation_results.json").write_text(json.dumps({"humaneval": scores, "config": config}),
                                                         encoding="utf-8")
    return path


def write_human_eval_dataset(path: Path, gz: bool = False) -> Path:
    """human-eval's own problem file (HumanEval.jsonl, optionally gzipped) for the fixture's tasks."""
    import gzip

    text = "".join(json.dumps(official_task(f"HumanEval/{n}")) + "\n" for n in sorted(TASKS))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    return path


def write_mbpp_dataset(path: Path) -> Path:
    """Two MBPP-format problems (task_id, text, code, test_list, test_setup_code)."""
    rows = [
        {"task_id": 11, "text": "Remove first and last occurrence of a character.", "test_setup_code": "",
         "code": "def remove_Occ(s, ch):\n    s = s.replace(ch, '', 1)\n    i = s.rfind(ch)\n"
                 "    return s if i < 0 else s[:i] + s[i + 1:]\n",
         "test_list": ['assert remove_Occ("hello","l") == "heo"', 'assert remove_Occ("abcda","a") == "bcd"'],
         "challenge_test_list": []},
        {"task_id": 12, "text": "Square a number.", "test_setup_code": "K = 3",
         "code": "def square(x):\n    return x * x\n", "test_list": ["assert square(K) == 9"]},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_evalplus_mbpp(folder: Path, dataset: Path) -> Path:
    """An EvalPlus MBPP+ eval results file (`Mbpp/<n>` task ids) over the problems of `write_mbpp_dataset`."""
    evals = {}
    for line in dataset.read_text(encoding="utf-8").splitlines():
        problem = json.loads(line)
        task_id = f"Mbpp/{problem['task_id']}"
        evals[task_id] = [
            {"task_id": task_id, "solution": problem["code"], "base_status": "pass", "plus_status": "pass"},
            {"task_id": task_id, "solution": "def f():\n    pass\n", "base_status": "fail", "plus_status": "fail"},
        ]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "mbpp_eval_results.json"
    path.write_text(json.dumps({"eval": evals}), encoding="utf-8")
    return path


def republish(path: Path, changes: dict[int, dict[str, Any]]) -> Path:
    """Rewrite some lines of a results file (0-based line -> fields), as a harness run elsewhere might have
    judged them: a verdict that differs from ours, in the file's own words."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, fields in changes.items():
        lines[number] = json.dumps({**json.loads(lines[number]), **fields})
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path
