"""The validity rules read from real HumanEval prompts (and an internal-30 statement): what each problem allows."""

from __future__ import annotations

import pytest

from execugraph.amplify.boundaries import boundary_inputs
from execugraph.amplify.preconditions import preconditions
from execugraph.amplify.templates import problem_seeds
from execugraph.benchmarks import load_humaneval, load_internal30
from execugraph.domain.problem import Problem


@pytest.fixture(scope="module")
def humaneval() -> dict[str, Problem]:
    return {p.id: p for p in load_humaneval()}


def _allows(problem: Problem, *args: object) -> bool:
    return preconditions(problem).violation(tuple(args)) is None


def test_separate_paren_groups_takes_only_balanced_parentheses_and_spaces(humaneval) -> None:
    problem = humaneval["humaneval_1"]
    assert _allows(problem, "( ) (( )) (( )( ))")
    assert _allows(problem, "()(())")
    assert not _allows(problem, "(()")  # unbalanced: "Separate groups are balanced"
    assert not _allows(problem, ")(")
    assert not _allows(problem, "(a)")  # "a string containing ... parentheses", spaces ignored
    assert not _allows(problem, "( )\u00a0")  # every example is ASCII


def test_string_xor_takes_equal_length_strings_of_zeros_and_ones(humaneval) -> None:
    problem = humaneval["humaneval_11"]
    assert _allows(problem, "010", "110")
    assert not _allows(problem, "012", "110")  # "consisting only of 1s and 0s"
    assert not _allows(problem, "01", "110")  # every example pairs equal lengths
    assert not _allows(problem, 10, "110")  # the signature says str


def test_find_closest_elements_needs_at_least_two_numbers(humaneval) -> None:
    problem = humaneval["humaneval_20"]
    assert _allows(problem, [1.0, 2.0])
    assert not _allows(problem, [1.0])
    assert not _allows(problem, [])
    assert not _allows(problem, ["1.0", "2.0"])  # List[float]


def test_numeric_phrases_and_comparisons(humaneval) -> None:
    assert not _allows(humaneval["humaneval_59"], 13)  # "Assume n > 1 and is not a prime"
    assert not _allows(humaneval["humaneval_59"], 1)
    assert _allows(humaneval["humaneval_59"], 15)
    assert not _allows(humaneval["humaneval_2"], -3.5)  # "a positive floating point number"
    assert not _allows(humaneval["humaneval_160"], ["+"], [2, -3])  # "a list of of non-negative integers"
    assert not _allows(humaneval["humaneval_160"], ["+", "-"], [2, 3])  # len(operand) = len(operator) + 1
    assert not _allows(humaneval["humaneval_160"], ["%"], [2, 3])  # only the operators the examples use
    assert _allows(humaneval["humaneval_160"], ["+", "*"], [2, 3, 4])
    assert not _allows(humaneval["humaneval_115"], [[0, 1]], 11)  # "1 <= capacity <= 10"
    assert not _allows(humaneval["humaneval_129"], [[1, 2, 3], [4, 5, 6]], 3)  # N rows and N columns


def test_example_shapes_fruit_distribution_and_histogram(humaneval) -> None:
    fruit = humaneval["humaneval_67"]
    assert _allows(fruit, "12 apples and 7 oranges", 30)
    assert not _allows(fruit, "12 apples", 30)  # the examples' format, other numbers
    histogram = humaneval["humaneval_111"]
    assert _allows(histogram, "a b b c")
    assert not _allows(histogram, "ab b")  # "space separated lowercase letters"
    assert not _allows(histogram, "A b")


def test_internal30_statement_ranges() -> None:
    fib = next(p for p in load_internal30() if p.entry_point == "fib")
    assert _allows(fib, 300)
    assert not _allows(fib, 301)  # "0 <= n <= 300"
    assert not _allows(fib, -1)


def test_a_rule_most_originals_break_is_set_aside() -> None:
    problem = Problem(id="p", benchmark="t", statement='def f(xs):\n    """Return the positive numbers of xs."""\n',
                      entry_point="f", tests=[{"kind": "call", "expr": f"f({v!r})", "expected": 0}
                                              for v in ([1, -2], [3, -4], [5])])
    found = preconditions(problem)
    assert not any(r.kind == "min" for r in found.rules)  # "Return ...": the answer, not the input
    problem = problem.model_copy(update={"statement": 'def f(xs):\n    """Given a list of positive numbers."""\n'})
    found = preconditions(problem)
    assert [r.kind for r in found.contradicted] == ["min"]  # two of three originals are negative: a misreading
    assert found.violation(([-7],)) is None


def test_originals_stay_within_the_rules_of_every_humaneval_problem(humaneval) -> None:
    for problem in humaneval.values():
        seeds = problem_seeds(problem)
        found = preconditions(problem, seeds)
        main = [s for s in seeds if len(s.args) == len(found.names)]
        broken = [s for s in main if found.violation(s.args)]
        assert len(broken) <= 0.2 * len(main), (problem.id, [found.violation(s.args) for s in broken])


def test_boundary_inputs_keep_within_the_rules(humaneval) -> None:
    problem = humaneval["humaneval_11"]
    seeds = problem_seeds(problem)
    found = preconditions(problem, seeds)
    edges = [args for _, args in boundary_inputs(found, seeds, 30)]
    assert ("000", "110") in edges and ("0", "1") in edges  # one repeated allowed character; cut to one
    assert all(found.violation(args) is None for args in edges)
