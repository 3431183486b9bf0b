"""The published benchmark file layout, read as published: mapping, call expressions, custom judges, faults."""

from __future__ import annotations

import json

import pytest

from execugraph.benchmarks import BenchmarkFormatError, load_benchmark, parse_published_jsonl
from execugraph.benchmarks.published import looks_published, published_warnings
from execugraph.configuration.settings import DATA_DIR
from execugraph.grading.rules import build_suite
from sandbox import parse_suite

FILE = DATA_DIR / "fixtures" / "reference_layout" / "published-demo" / "benchmark" / "internal30_published.jsonl"


def _line(**changes) -> str:
    record = {
        "id": "twice", "category": "math", "source": "apps-introductory", "difficulty": "easy",
        "statement": "Return 2 * x.", "primary_function": "twice", "signature_aliases": ["double"],
        "selection_rationale": "smallest", "timeout_s": 3,
        "tests": [{"args": "[2]", "expected": "4", "call": None, "description": "two", "kind": "basic",
                   "has_custom_judge": False}],
    }
    record.update(changes)
    return json.dumps(record)


def test_every_field_maps_onto_a_problem() -> None:
    (problem,) = parse_published_jsonl(_line(), source="x.jsonl", benchmark="published:x")
    assert (problem.id, problem.benchmark, problem.category, problem.source) == (
        "twice", "published:x", "math", "apps-introductory")
    assert (problem.entry_point, problem.aliases, problem.rationale, problem.timeout_s) == (
        "twice", ["double"], "smallest", 3.0)
    assert problem.tests == [{"name": "two", "kind": "call", "expected": 4, "args": [2], "published_kind": "basic"}]
    parse_suite(build_suite(problem, problem.tests, "standalone"))


def test_a_call_expression_is_evaluated_or_called_with_the_args() -> None:
    tests = [
        {"args": "[]", "expected": "[null, 3]", "call": "[(c := Box()).put(3), c.get()]"},
        {"args": "[[1, 2], Infinity]", "expected": "true", "call": "Solution().check"},
    ]
    (problem,) = parse_published_jsonl(_line(tests=tests, primary_function=None))
    first, second = problem.tests
    assert first["expr"] == "[(c := Box()).put(3), c.get()]" and first["expected"] == [None, 3]
    assert second["expr"] == "(Solution().check)(*[[1, 2], float('inf')])" and second["expected"] is True
    parse_suite(build_suite(problem, problem.tests, "standalone"))


def test_a_custom_judge_is_marked_and_floats_compare_with_tolerance() -> None:
    tests = [{"args": "[1]", "expected": "0.333", "has_custom_judge": True},
             {"args": "[1]", "expected": "0.5", "has_custom_judge": False}]
    (problem,) = parse_published_jsonl(_line(tests=tests))
    assert problem.tests[0]["custom_judge"] is True and problem.tests[0]["compare"] == "float"
    assert "custom_judge" not in problem.tests[1] and "compare" not in problem.tests[1]


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"tests": [{"args": "[2", "expected": "4"}]}, "tests[0].args", "not JSON text"),
        ({"tests": [{"args": "2", "expected": "4"}]}, "tests[0].args", "expected a JSON list"),
        ({"tests": [{"args": "[2]"}]}, "tests[0].expected", "required field missing"),
        ({"tests": [{"args": "[]", "expected": "1", "call": "f("}]}, "tests[0].call", "not a Python expression"),
        ({"primary_function": "not valid"}, "primary_function", "Python identifier"),
        ({"timeout_s": 0}, "timeout_s", "positive number"),
        ({"tests": []}, "tests", "non-empty list"),
    ],
)
def test_a_bad_line_is_refused_naming_line_and_field(changes, field, message) -> None:
    text = _line(id="fine") + "\n\n" + _line(**changes) + "\n"
    with pytest.raises(BenchmarkFormatError) as caught:
        parse_published_jsonl(text, source="bench.jsonl")
    issue = caught.value.issues[0]
    assert (issue.line, issue.field) == (3, field) and message in issue.message, str(caught.value)
    assert str(caught.value).startswith("bench.jsonl: refused")


def test_unknown_fields_are_ignored_and_listed() -> None:
    text = _line(notes="hi") + "\n" + _line(id="b", tests=[{"args": "[1]", "expected": "2", "weight": 2}]) + "\n"
    assert len(parse_published_jsonl(text)) == 2
    assert published_warnings(text, "b.jsonl") == [
        "b.jsonl: field 'notes' is not part of the published layout; ignored (lines 1)",
        "b.jsonl: field 'tests[].weight' is not part of the published layout; ignored (lines 2)",
    ]


def test_the_fixture_loads_as_a_named_benchmark() -> None:
    problems = load_benchmark("published", path=FILE)
    assert [p.id for p in problems] == ["fib", "subset_sum", "valid_parentheses", "grid_shortest_path", "climb_stairs"]
    assert all(len(p.tests) == 5 and p.timeout_s == 5.0 and p.benchmark == "published" for p in problems)
    assert looks_published(json.loads(FILE.read_text().splitlines()[0]))
    assert not looks_published({"problem_id": "fib", "passed": True})
