"""Model-written tests for a stdin/stdout program become sandbox stdio tests; malformed ones are dropped and counted."""

from __future__ import annotations

from execugraph.parsing import parse_generated_stdio_tests
from sandbox.suite import parse_suite


def test_input_output_objects_become_stdio_tests_the_sandbox_accepts() -> None:
    reply = ('Here are tests:\n```json\n[{"input": "3\\n1 2 3", "output": "6"}, {"stdin": ["2", "4 5"], '
             '"expected_output": 9}, {"input": "3\\n1 2 3\\n", "output": "6\\n"}, {"input": "x"}, {"input": {"a": 1}, '
             '"output": "1"}]\n```')
    parsed = parse_generated_stdio_tests(reply)
    assert parsed.ok and parsed.dropped == 2
    assert parsed.value == [
        {"kind": "stdio", "name": "generated_1", "stdin": "3\n1 2 3\n", "expected_stdout": "6"},
        {"kind": "stdio", "name": "generated_2", "stdin": "2\n4 5\n", "expected_stdout": "9"},
    ]
    assert "dropped_duplicates" in parsed.repairs and "dropped:non_text_value" in parsed.repairs
    suite = parse_suite({"entry_point": None, "tests": parsed.value})
    assert [t.kind for t in suite.tests] == ["stdio", "stdio"]


def test_wrapped_lists_pairs_and_conflicts() -> None:
    parsed = parse_generated_stdio_tests('{"tests": [["1", "2"], ["1", "3"], ["5", "10"]]}')
    assert [(t["stdin"], t["expected_stdout"]) for t in parsed.value] == [("1\n", "2"), ("5\n", "10")]
    assert parsed.dropped == 1 and "dropped:conflicting_duplicate" in parsed.repairs


def test_nothing_usable_is_not_ok() -> None:
    for reply in ("no idea", "", None, '[{"args": [1], "expected": 2}]'):
        parsed = parse_generated_stdio_tests(reply)
        assert not parsed.ok and parsed.value == []
