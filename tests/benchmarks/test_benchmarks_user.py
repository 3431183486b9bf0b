"""User JSONL suites: the documented schema loads, and every kind of malformed input is refused
whole, naming the line and the field at fault."""

from __future__ import annotations

import json
import re

import pytest

from execugraph.benchmarks import BenchmarkFormatError, load_benchmark, load_user_suite, parse_user_jsonl
from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.grading.rules import build_suite

DOC = PROJECT_ROOT / "docs" / "benchmark-format.md"


def good(**overrides) -> dict:
    record = {
        "id": "double",
        "statement": "Return twice x.",
        "entry_point": "double",
        "tests": [
            {"name": "small", "kind": "call", "expr": "double(2)", "expected": 4, "visible": True},
            {"kind": "call", "args": [-3], "expected": -6},
        ],
    }
    record.update(overrides)
    return record


def jsonl(*records) -> str:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n"


def refused(text: str | bytes) -> BenchmarkFormatError:
    with pytest.raises(BenchmarkFormatError) as caught:
        parse_user_jsonl(text, source="suite.jsonl")
    return caught.value


def test_valid_suite_with_all_test_kinds(tmp_path):
    records = [
        good(
            aliases=["twice"],
            signature="def double(x: int) -> int",
            category="math",
            difficulty="easy",
            rationale="r",
            source="s",
        ),
        {
            "id": "he/1",
            "statement": "s",
            "entry_point": "inc",
            "tests": [
                {
                    "kind": "assert",
                    "source": "def check(candidate):\n    assert candidate(1) == 2\n",
                    "call": "check(candidate)",
                }
            ],
        },
        {
            "id": "kw",
            "statement": "s",
            "entry_point": "f",
            "tests": [{"kind": "call", "kwargs": {"x": 1}, "expected": 2}],
        },
        {
            "id": "echo",
            "statement": "echo stdin",
            "tests": [{"kind": "stdio", "stdin": "hi\n", "expected_stdout": "hi\n"}],
        },
        {
            "id": "inf",
            "statement": "s",
            "tests": [{"kind": "call", "expr": "f()", "expected": None, "compare": "float", "tol": 1e-3}],
        },
    ]
    path = tmp_path / "suite.jsonl"
    path.write_text(jsonl(*records).replace("\n", "\n\n"))  # blank lines are ignored
    problems = load_user_suite(path)
    assert [p.id for p in problems] == ["double", "he/1", "kw", "echo", "inf"]
    assert all(p.benchmark == "user" for p in problems)
    assert problems[0].aliases == ["twice"] and problems[0].category == "math"
    assert problems[0].visible_tests() == [records[0]["tests"][0]]
    assert problems[4].entry_point is None
    from sandbox import parse_suite

    assert [len(parse_suite(build_suite(p, p.tests, "standalone")).tests) for p in problems] == [2, 1, 1, 1, 1]
    assert [p.id for p in load_benchmark("user", path=path, benchmark="mine")] == [p.id for p in problems]
    assert load_benchmark("user", path=path, benchmark="mine")[0].benchmark == "mine"


def test_infinity_expected_and_bom_are_accepted():
    text = (
        "\ufeff"
        + '{"id": "d", "statement": "s", "tests": [{"kind": "call", "expr": "f()", "expected": [0, Infinity]}]}\n'
    )
    (problem,) = parse_user_jsonl(text.encode("utf-8"))
    assert problem.tests[0]["expected"] == [0, float("inf")]


def test_the_documented_example_line_loads():
    doc = DOC.read_text()
    block = re.search(r"## A complete example line\n\n```json\n(.+?)\n```", doc, re.S)
    assert block, "example block missing from docs/benchmark-format.md"
    (problem,) = parse_user_jsonl(block.group(1))
    assert problem.id == "two_sum_sorted" and len(problem.tests) == 2 and problem.visible_tests()


def test_documented_fields_match_the_validator():
    from execugraph.benchmarks.suite_format import PROBLEM_FIELDS, TEST_FIELDS

    doc = DOC.read_text()
    for field in PROBLEM_FIELDS:
        assert f"| `{field}` |" in doc, field
    for fields in TEST_FIELDS.values():
        for field in fields:
            assert f"`{field}`" in doc, field


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        ('{"id": "a", "statement": "s", "tests": [}', "(json)", "not valid JSON"),
        ("[1, 2]", "(record)", "must be a JSON object"),
        (good(id=None), "id", "must be 1-200 characters"),
        ({k: v for k, v in good().items() if k != "id"}, "id", "required field missing"),
        (good(id="has space"), "id", "must be 1-200 characters"),
        (good(statement=""), "statement", "non-empty string"),
        (good(statement=7), "statement", "non-empty string, got number"),
        (good(tests=[]), "tests", "at least one test"),
        (good(tests={"kind": "call"}), "tests", "must be an array of tests, got object"),
        (good(test=[]), "test", "did you mean 'tests'"),
        (good(category=3), "category", "must be a string"),
        (good(aliases="twice"), "aliases", "must be an array"),
        (good(aliases=["ok", "not ok"]), "aliases[1]", "Python identifier"),
        (good(entry_point="2x"), "entry_point", "Python identifier"),
        (good(entry_point=None), "entry_point", "required when a test uses 'args'"),
        (good(tests=[{"kind": "call", "expr": "double(2)"}]), "tests[0].expected", "required field missing"),
        (good(tests=[{"kind": "call", "expected": 1}]), "tests[0].expr", "exactly one of"),
        (good(tests=[{"kind": "call", "expr": "f(", "expected": 1}]), "tests[0].expr", "not valid Python"),
        (good(tests=[{"kind": "call", "args": 3, "expected": 1}]), "tests[0].args", "must be an array"),
        (
            good(tests=[{"kind": "call", "expr": "f()", "expected": 1, "compare": "fuzzy"}]),
            "tests[0].compare",
            "must be one of",
        ),
        (
            good(tests=[{"kind": "call", "expr": "f()", "expected": 1, "tol": -1}]),
            "tests[0].tol",
            "non-negative finite number",
        ),
        (
            good(tests=[{"kind": "call", "expr": "f()", "expected": 1, "visible": "yes"}]),
            "tests[0].visible",
            "true or false",
        ),
        (good(tests=[{"kind": "call", "expr": "f()", "expect": 1}]), "tests[0].expect", "did you mean 'expected'"),
        (good(tests=[{"kind": "unit", "expr": "f()"}]), "tests[0].kind", "must be one of call, assert, stdio"),
        (good(tests=[{"expr": "f()", "expected": 1}]), "tests[0].kind", "required field missing"),
        (good(tests=[7]), "tests[0]", "must be an object"),
        (
            good(tests=[{"kind": "call", "kwargs": {"1x": 2}, "expected": 1}]),
            "tests[0].kwargs",
            "keyed by argument names",
        ),
        (good(tests=[{"kind": "call", "name": "", "expr": "f()", "expected": 1}]), "tests[0].name", "non-empty string"),
        (good(tests=[{"kind": "assert", "call": "check(candidate)"}]), "tests[0].source", "required field missing"),
        (good(tests=[{"kind": "assert", "source": "def check(c) pass"}]), "tests[0].source", "not valid Python"),
        (good(tests=[{"kind": "assert", "source": "  \n"}]), "tests[0].source", "must not be empty"),
        (good(tests=[{"kind": "stdio", "stdin": "x"}]), "tests[0].expected_stdout", "required field missing"),
        (good(tests=[{"kind": "stdio", "stdin": 5, "expected_stdout": "x"}]), "tests[0].stdin", "must be a string"),
        ('{"id": "a", "id": "b", "statement": "s", "tests": []}', "id", "given more than once"),
        (
            '{"id": "a", "statement": "s", "tests": [{"kind": "call", "expr": "f()", "expected": NaN}]}',
            "tests[0].expected",
            "NaN",
        ),
    ],
)
def test_malformed_line_is_refused_with_line_and_field(line, field, message):
    text = jsonl(good(id="first"), good(id="second"), line)
    error = refused(text)
    assert (error.line, error.field) == (3, field), str(error)
    assert message in error.issues[0].message, str(error)
    assert "suite.jsonl" in str(error) and "line 3" in str(error) and "nothing was imported" in str(error)


def test_every_fault_is_reported_and_nothing_is_imported(tmp_path):
    text = jsonl(good(id="a"), "{oops", good(id="b"), good(id="c", tests=[{"kind": "call"}]), good(id="a"))
    path = tmp_path / "suite.jsonl"
    path.write_text(text)
    with pytest.raises(BenchmarkFormatError) as caught:
        load_user_suite(path)
    where = [(i.line, i.field) for i in caught.value.issues]
    assert where == [(2, "(json)"), (4, "tests[0].expr"), (4, "tests[0].expected"), (5, "id")]
    assert "first used on line 1" in caught.value.issues[-1].message
    assert str(path) in str(caught.value)


def test_blank_lines_keep_file_line_numbers():
    error = refused("\n\n" + json.dumps(good()) + "\n\n" + json.dumps(good(id="x", statement=None)) + "\n")
    assert (error.line, error.field) == (5, "statement")


def test_non_utf8_line_is_located():
    data = json.dumps(good()).encode() + b"\n" + b'{"id": "caf\xe9"}\n'
    error = refused(data)
    assert (error.line, error.field) == (2, "(encoding)")


def test_empty_and_unreadable_files(tmp_path):
    error = refused("\n  \n")
    assert error.field == "(file)" and "no problems" in str(error)
    with pytest.raises(BenchmarkFormatError, match="cannot read"):
        load_user_suite(tmp_path / "missing.jsonl")


def test_long_fault_lists_are_summarised():
    lines = [good(id=f"p{i}", statement="") for i in range(15)]
    error = refused(jsonl(*lines))
    assert len(error.issues) == 15
    assert "... and 5 more" in str(error)


def test_record_benchmark_field_wins_over_the_default():
    (problem,) = parse_user_jsonl(jsonl(good(benchmark="mine")))
    assert problem.benchmark == "mine"


def test_a_reference_solution_is_kept_for_calibration_and_must_be_python():
    (problem,) = parse_user_jsonl(jsonl(good(reference="def double(x):\n    return 2 * x\n")), source="suite.jsonl")
    assert problem.reference.startswith("def double")
    error = refused(jsonl(good(reference="def double(x)\n")))
    assert error.field == "reference" and "not valid Python" in error.issues[0].message
    assert refused(jsonl(good(reference=3))).field == "reference"
