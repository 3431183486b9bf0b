"""Input mutation by type, Hypothesis draws and contracts: deterministic from the seed, no sandbox."""

from __future__ import annotations

import ast

from execugraph.amplify.adequacy import mutants
from execugraph.amplify.contracts import arg_shapes, violation
from execugraph.amplify.expected import _read_back
from execugraph.amplify.mutation import mutate_value, mutated_inputs, problem_rng
from execugraph.amplify.properties import draw_inputs
from execugraph.amplify.templates import problem_seeds, seed_from_expr, seeds_from_check
from execugraph.domain.problem import Problem
from execugraph.grading.rules import loop_tests, visible_subset


def test_numbers_get_boundaries_sign_neighbours_and_large() -> None:
    out = mutate_value(7)
    assert {0, 1, -1, 6, 8, -7, 14} <= set(out)
    assert max(out) >= 10**6 and min(out) <= -(10**6)
    assert 7 not in out
    assert mutate_value(True) == [False]
    floats = mutate_value(2.5)
    assert 0.0 in floats and -2.5 in floats and all(isinstance(v, float) for v in floats)


def test_strings_get_empty_whitespace_unicode_and_repeats() -> None:
    out = mutate_value("ab")
    assert "" in out and " " in out and "abab" in out and " ab " in out
    assert any(any(ord(ch) > 127 for ch in v) for v in out)
    assert "ab" not in out


def test_sequences_get_empty_single_duplicates_order_nesting_and_length() -> None:
    out = mutate_value([3, 1, 2])
    assert [] in out and [3] in out and [3, 1, 2, 3, 1, 2] in out
    assert [1, 2, 3] in out and [3, 2, 1] in out and [2, 1, 3] in out
    assert [[3, 1, 2]] in out and [3, 3, 3] in out
    assert any(len(v) >= 40 for v in out)
    assert any(v[0] == 4 for v in out if v and isinstance(v[0], int))  # an element mutated in place
    assert all(isinstance(v, tuple) for v in mutate_value((1, 2)))


def test_dicts_get_empty_single_and_changed_entries() -> None:
    out = mutate_value({"a": 1, "b": 2})
    assert {} in out and {"a": 1} in out
    assert {"a": 2, "b": 2} in out


def test_mutated_inputs_are_deterministic_from_the_seed() -> None:
    seeds = [seed_from_expr("f([1, 2, 3], 4)", {"f"}), seed_from_expr("f([5], 0)", {"f"})]
    first = mutated_inputs(seeds, problem_rng(1, "p", "mutation"), 12)
    again = mutated_inputs(seeds, problem_rng(1, "p", "mutation"), 12)
    other = mutated_inputs(seeds, problem_rng(2, "p", "mutation"), 12)
    assert [a for _, a in first] == [a for _, a in again]
    assert [a for _, a in first] != [a for _, a in other]
    assert len(first) == 12 and {repr(s.args) for s, _ in first} == {repr(([1, 2, 3], 4)), repr(([5], 0))}  # spread over seeds


def test_hypothesis_draws_are_deterministic_and_bounded() -> None:
    shapes = arg_shapes([([1, 2, 3], 4), ([5, 9], 0)])
    first = draw_inputs(shapes, 11, 25)
    assert first == draw_inputs(shapes, 11, 25)
    assert first != draw_inputs(shapes, 12, 25)
    assert len(first) >= 10
    for values, number in first:
        assert isinstance(values, list) and len(values) <= 3 + 5 and all(isinstance(v, int) for v in values)
        assert 0 <= number <= 1000 and all(v >= 1 for v in values)  # the originals' signs are kept


def test_contracts_from_the_originals() -> None:
    shapes = arg_shapes([([1, 2, 3], 4, "()"), ([5], 0, "(())")])
    assert violation(shapes, ([1, 2], 3, "()")) is None
    assert "negative" in violation(shapes, ([1], -1, "()"))
    assert "empty" in violation(shapes, ([], 1, "()"))
    assert "positive" in violation(shapes, ([0], 1, "()"))
    assert "unsorted" in violation(shapes, ([2, 1], 1, "()"))
    assert "characters" in violation(shapes, ([1], 1, "(a)"))
    assert "type" in violation(shapes, (["x"], 1, "()"))
    grid = arg_shapes([([[1, 2], [3, 4]],), ([[1, 2, 3], [4, 5, 6]],)])
    assert "ragged" in violation(grid, ([[1, 2], [3]],))
    assert draw_inputs(grid, 3, 10) and all(len({len(r) for r in g}) <= 1 for (g,) in draw_inputs(grid, 3, 10))


def test_templates_keep_the_expression_and_replace_literal_arguments() -> None:
    seed = seed_from_expr("to_list(reverseList(fromList([1, 2])))", {"fromList"})
    assert seed is not None and seed.args == ([1, 2],)
    assert seed.template.render(([3],)) == "to_list(reverseList(fromList([3])))"
    lam = seed_from_expr("(lambda a: (heapify(a), a)[1])([2, 1])", {"heapify"})
    assert lam is not None and lam.template.render(([],)) == "(lambda a: (heapify(a), a)[1])([])"
    assert seed_from_expr("f(x)", {"f"}) is None
    checks = seeds_from_check("def check(candidate):\n    assert candidate([1, 2], 'a') == 3\n    assert candidate(n)\n",
                              "g")
    assert [s.args for s in checks] == [([1, 2], "a")] and checks[0].template.render((1, "b")) == "g(1, 'b')"
    assert ast.parse(seed.template.render(((1, 2.5, None, {"k": [True]}),)), mode="eval")


def test_read_back_of_reported_values() -> None:
    assert _read_back("[1, (2, 3)]") == ([1, [2, 3]], "exact")
    assert _read_back("[0, inf]") == ([0, float("inf")], "float")
    assert _read_back("{3, 1}")[1] == "set"
    assert _read_back("<object>") == "output is not plain data"
    assert _read_back("[1, 2... [40 more chars]") == "output too long to record"


def test_amplified_tests_never_feed_the_loop() -> None:
    problem = Problem(id="p", statement="s", entry_point="f", tests=[
        {"name": "a", "kind": "call", "expr": "f(1)", "expected": 1, "visible": True},
        {"name": "b", "kind": "call", "expr": "f(2)", "expected": 2},
        {"name": "c", "kind": "call", "expr": "f(3)", "expected": 3, "amplified": "mutation"},
    ])
    assert [t["name"] for t in loop_tests(problem, "grading")] == ["a", "b"]
    assert [t["name"] for t in loop_tests(problem, "visible")] == ["a"]
    unflagged = problem.model_copy(update={"tests": [{**t, "visible": False} for t in problem.tests]})
    assert "c" not in [t["name"] for t in loop_tests(unflagged, "visible")]
    assert len(visible_subset(problem.tests)) == 1
    assert [s.args for s in problem_seeds(problem)] == [(1,), (2,), (3,)]


def test_mutants_are_deterministic_single_changes_that_compile() -> None:
    source = "def f(a, b):\n    if a < b and b > 0:\n        return a + 1\n    return b - a\n"
    found = mutants(source, limit=50)
    assert found == mutants(source, limit=50)
    assert {d.split(" at ")[0] for d, _ in found} >= {"comparison", "arithmetic", "boolean", "constant+1",
                                                        "drop-branch"}
    for _, program in found:
        compile(program, "<mutant>", "exec")
        assert program != ast.unparse(ast.parse(source))


def test_reference_files_as_jsonl_records_or_a_json_object(tmp_path) -> None:
    import json

    import pytest

    from execugraph.amplify.references import read_reference_file

    records = tmp_path / "refs.jsonl"
    records.write_text(json.dumps({"id": "a", "reference": "def f(): return 1\n"}) + "\n\n"
                       + json.dumps({"id": "b", "reference": "x = 2\n"}) + "\n", encoding="utf-8")
    assert read_reference_file(records) == {"a": "def f(): return 1\n", "b": "x = 2\n"}
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps({"id": "a", "reference": "y = 1\n"}), encoding="utf-8")
    assert read_reference_file(one) == {"a": "y = 1\n"}
    mapping = tmp_path / "refs.json"
    mapping.write_text(json.dumps({"a": "z = 1\n"}, indent=2), encoding="utf-8")
    assert read_reference_file(mapping) == {"a": "z = 1\n"}
    mapping.write_text(json.dumps({"a": 3}), encoding="utf-8")
    with pytest.raises(ValueError):
        read_reference_file(mapping)


def test_amplify3_shapes_numeric_strings_space_runs_swapped_start_midpoints() -> None:
    assert "0.5" in mutate_value("14.5") and "-14.5" in mutate_value("14.5")  # a number spelled as a string
    assert "11" in mutate_value("10")
    spaced = mutate_value("a b ")
    assert "a  b  " in spaced and "a b   " in spaced  # runs of two, and of three at the end
    assert [2, 1, 3, 4] in mutate_value([1, 2, 3, 4])  # out of order only at the start
    assert [0.5, 1.5] in mutate_value([0.0, 1.0, 2.0])  # each interval between the values seen


def test_scalar_arguments_are_reordered_first_and_repeated_seeds_count_once() -> None:
    seeds = [seed_from_expr("f(1, 2, 3)", {"f"})] * 3 + [seed_from_expr("f(4, 5, 6)", {"f"})]
    first = [a for _, a in mutated_inputs(seeds, problem_rng(0, "p", "mutation"), 6)]
    assert first[:2] == [(2, 3, 1), (5, 6, 4)]  # one seed's rotation, then the other's: a repeat is one seed
    assert (3, 1, 2) in first and (3, 2, 1) in first
