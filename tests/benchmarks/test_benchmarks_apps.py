"""APPS-format JSONL: stdio and call-style rows from our fixture, and refusal of malformed rows."""

from __future__ import annotations

import json

import pytest

from execugraph.benchmarks import BenchmarkFormatError, load_apps, load_benchmark, parse_apps_jsonl
from execugraph.configuration.settings import DATA_DIR

FIXTURE = DATA_DIR / "fixtures" / "apps_sample.jsonl"


def row(**overrides) -> dict:
    base = {"problem_id": 1, "question": "Print the sum.", "input_output": {"inputs": ["1 2\n"], "outputs": ["3\n"]}}
    base.update(overrides)
    return base


def test_fixture_loads_every_style():
    problems = load_apps(FIXTURE)
    assert [p.id for p in problems] == ["apps_9001", "apps_9002", "apps_9003", "apps_9004", "apps_9005"]
    assert [len(p.tests) for p in problems] == [3, 3, 4, 4, 3]
    assert all(p.benchmark == "apps" and p.category == "apps" for p in problems)
    assert [p.difficulty for p in problems] == ["introductory", "introductory", "interview", "interview", "competition"]
    stdio, lines, fn, cls, _ = problems
    assert stdio.entry_point is None
    assert stdio.tests[0] == {"name": "case 1", "kind": "stdio", "stdin": "1 2\n", "expected_stdout": "3\n"}
    assert lines.tests[0]["stdin"] == "3\n1 2 3" and lines.tests[0]["expected_stdout"] == "3 1"
    assert fn.entry_point == "max_gap" and fn.tests[0] == {
        "name": "case 1",
        "kind": "call",
        "expected": 6,
        "args": [[1, 9, 3]],
    }
    assert cls.entry_point == "Solution"
    assert cls.tests[0]["expr"] == "Solution().vowels('hello')" and cls.tests[0]["expected"] == ["e", "o"]
    assert cls.tests[1]["expected"] == []  # [[]] unwrapped: the function returns an empty list
    assert "Starter code:\nclass Solution:" in cls.statement
    assert stdio.source == "fixture://execugraph/apps/9001"
    assert not any(p.visible_tests() for p in problems)
    assert [p.id for p in load_benchmark("apps", path=FIXTURE)] == [p.id for p in problems]


def test_visible_first_and_unwrapping_options():
    problems = load_apps(FIXTURE, visible_first=2, unwrap_call_outputs=False)
    assert all(len(p.visible_tests()) == 2 for p in problems)
    assert problems[2].tests[0]["expected"] == [6]
    with pytest.raises(ValueError):
        load_apps(FIXTURE, visible_first=-1)


def test_call_arguments_render_as_python_literals():
    text = json.dumps(
        row(
            starter_code="class Solution:\n    def f(self, a, b, c):\n",
            input_output=json.dumps({"fn_name": "f", "inputs": [[True, None, {"k": [1.5]}]], "outputs": [[False]]}),
        )
    )
    (problem,) = parse_apps_jsonl(text)
    assert problem.tests[0]["expr"] == "Solution().f(True, None, {'k': [1.5]})"
    assert problem.tests[0]["expected"] is False


@pytest.mark.parametrize(
    ("bad", "field", "message"),
    [
        (row(input_output="{not json"), "input_output", "not valid JSON"),
        ({k: v for k, v in row().items() if k != "input_output"}, "input_output", "required field missing"),
        (row(input_output={"inputs": ["1\n"]}), "input_output.outputs", "required field missing"),
        (row(input_output={"inputs": [], "outputs": []}), "input_output.inputs", "no test cases"),
        (
            row(input_output={"inputs": ["1\n", "2\n"], "outputs": ["1\n"]}),
            "input_output.outputs",
            "has 1 entries but inputs has 2",
        ),
        (
            row(input_output={"inputs": [3], "outputs": ["3"]}),
            "input_output.inputs[0]",
            "string or an array of strings",
        ),
        (
            row(input_output={"fn_name": "f", "inputs": ["x"], "outputs": [[1]]}),
            "input_output.inputs[0]",
            "array of arguments",
        ),
        (
            row(input_output={"fn_name": "not valid", "inputs": [[1]], "outputs": [[1]]}),
            "input_output.fn_name",
            "identifier",
        ),
        (row(input_output=[1, 2]), "input_output", "must be an object"),
        (row(problem_id=None), "problem_id", "required"),
        (row(question=""), "question", "non-empty string"),
        (row(starter_code=5), "starter_code", "must be a string"),
        ("[]", "(record)", "must be a JSON object"),
        ("{bad", "(json)", "not valid JSON"),
    ],
)
def test_malformed_rows_are_refused_with_line_and_field(bad, field, message):
    lines = [
        json.dumps(row(problem_id=1)),
        json.dumps(row(problem_id=2)),
        bad if isinstance(bad, str) else json.dumps(bad),
    ]
    with pytest.raises(BenchmarkFormatError) as caught:
        parse_apps_jsonl("\n".join(lines), source="apps.jsonl")
    error = caught.value
    assert (error.line, error.field) == (3, field), str(error)
    assert message in error.issues[0].message
    assert len(error.issues) == 1


def test_duplicate_problem_ids_are_refused():
    with pytest.raises(BenchmarkFormatError) as caught:
        parse_apps_jsonl(json.dumps(row()) + "\n" + json.dumps(row()))
    assert (caught.value.line, caught.value.field) == (2, "id")
