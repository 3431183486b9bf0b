"""LiveCodeBench problem files as a benchmark: rows read as lcb_runner reads them, hidden tests never unpickled,
bad rows refused naming line and field, and LiveCodeBench's stdout rule as an opt-in stdio compare."""

from __future__ import annotations

import base64
import json
import pickle
import zlib
from datetime import date
from pathlib import Path

import pytest

from execugraph.benchmarks import BenchmarkFormatError, file_benchmark_names, load_benchmark
from execugraph.benchmarks.lcb_pickle import PickleRefused, decode_private_tests, pickled_string
from execugraph.benchmarks.livecodebench import LCB_PREAMBLE, parse_livecodebench_jsonl
from execugraph.benchmarks.suite_format import record_faults
from sandbox.stdio_compare import lcb_equal, stdout_matches
from sandbox.suite import SuiteError, parse_suite
from tests.support import livecodebench_files as lf

PROBLEMS = lf.FIXTURES / "problems.jsonl"


def _rows() -> list[dict]:
    return [json.loads(line) for line in PROBLEMS.read_text().splitlines()]


def _jsonl(rows: list[dict]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def test_fixture_files_are_what_the_builder_writes(tmp_path: Path) -> None:
    lf.write_fixtures(tmp_path)
    for path in tmp_path.rglob("*.json*"):
        assert path.read_bytes() == (lf.FIXTURES / path.relative_to(tmp_path)).read_bytes(), path


def test_rows_become_problems_with_platform_difficulty_date_and_lcb_grading() -> None:
    problems = {p.id: p for p in load_benchmark("livecodebench", path=str(PROBLEMS))}
    assert list(problems) == ["lcb_1999_A", "lcb_3400", "lcb_3401", "lcb_abc999_a"]
    mid, two_sum, palindrome, total = problems.values()
    assert (mid.category, mid.difficulty, mid.release_date) == ("codeforces", "medium", "2024-08-12")
    assert (two_sum.category, two_sum.difficulty, two_sum.release_date) == ("leetcode", "easy", "2024-09-01")
    assert total.source == "livecodebench/atcoder/abc999_a" and date.fromisoformat(total.release_date)
    assert all(p.benchmark == "livecodebench" and p.timeout_s == 6.0 and p.preamble == LCB_PREAMBLE
               for p in problems.values())
    # stdin problems: public (visible) then the unpickled private tests, compared as LiveCodeBench compares
    assert [(t["kind"], t["compare"], t.get("visible", False)) for t in mid.tests] == [
        ("stdio", "lcb", True), ("stdio", "lcb", False), ("stdio", "lcb", False)]
    assert mid.tests[2]["stdin"] == "10 11\n" and mid.tests[2]["expected_stdout"] == "10.5\n"
    # functional (LeetCode): one JSON argument per input line, the JSON output expected
    assert two_sum.entry_point == "Solution"
    assert [t["expr"] for t in two_sum.tests] == ["Solution().twoSum([2, 7, 11, 15], 9)",
                                                  "Solution().twoSum([3, 2, 4], 6)", "Solution().twoSum([3, 3], 6)"]
    assert [t["expected"] for t in two_sum.tests] == [[0, 1], [1, 2], [0, 1]]
    assert palindrome.tests[0]["expr"] == "Solution().isPalindrome('abba')" and palindrome.tests[0]["expected"] is True
    assert "class Solution" in two_sum.signature and "two-sum-indices" in two_sum.statement
    for p in problems.values():  # every test is valid in the sandbox's own suite format
        parse_suite({"entry_point": p.entry_point, "tests": p.tests, "preamble": p.preamble})


def test_livecodebench_is_a_file_benchmark() -> None:
    assert "livecodebench" in file_benchmark_names()
    with pytest.raises(TypeError, match="reads a file"):
        load_benchmark("livecodebench")


def test_the_real_encoding_of_hidden_tests_is_read_and_matches_the_public_json() -> None:
    tests = [{"input": "1 2\n", "output": "3\n", "testtype": "stdin"}]
    packed = lf.pack_private(tests)
    assert packed.startswith("eJ")  # zlib's header, as every row of code_generation_lite starts
    assert json.loads(decode_private_tests(packed)) == tests
    for protocol in range(0, pickle.HIGHEST_PROTOCOL + 1):
        assert pickled_string(pickle.dumps("x" * 300, protocol=protocol)) == "x" * 300


class _Boom:
    def __reduce__(self):
        return (open, ("/tmp/lcb-pickle-must-never-run", "w"))


@pytest.mark.parametrize(("payload", "said"), [
    ([{"input": "1", "output": "1", "testtype": "stdin"}], "holds a list, not a plain string"),
    (_Boom(), "a reference to (io|builtins).open"),
    (date(2024, 1, 1), "a reference to datetime.date"),
    (b"bytes", "holds bytes"),
    (("a", "b"), "holds a tuple"),
])
def test_a_pickle_that_is_not_a_plain_string_is_refused_without_running_it(payload, said) -> None:
    packed = base64.b64encode(zlib.compress(pickle.dumps(payload))).decode()
    with pytest.raises(PickleRefused, match=said):
        decode_private_tests(packed)
    assert not Path("/tmp/lcb-pickle-must-never-run").exists()


def test_a_protocol_0_global_and_other_odd_streams_are_named_and_refused() -> None:
    with pytest.raises(PickleRefused, match="a reference to os system"):
        pickled_string(b"cos\nsystem\n(S'echo pwned'\ntR.")
    with pytest.raises(PickleRefused, match="more than one string"):
        pickled_string(b"\x80\x04X\x01\x00\x00\x00aX\x01\x00\x00\x00b.")
    with pytest.raises(PickleRefused, match="cut short|not a readable pickle"):
        pickled_string(pickle.dumps("abc")[:-1])
    with pytest.raises(PickleRefused, match="follow the pickle's end"):
        pickled_string(pickle.dumps("abc") + b"junk")


def test_a_row_whose_hidden_tests_are_a_pickled_list_is_refused_naming_line_and_field() -> None:
    rows = _rows()
    rows[1]["private_test_cases"] = base64.b64encode(zlib.compress(pickle.dumps([1, 2]))).decode()
    with pytest.raises(BenchmarkFormatError) as caught:
        parse_livecodebench_jsonl(_jsonl(rows), "lcb.jsonl")
    (issue,) = caught.value.issues
    assert (issue.file, issue.line, issue.field) == ("lcb.jsonl", 2, "private_test_cases")
    assert "not a plain string" in issue.message and "refused without unpickling" in issue.message


@pytest.mark.parametrize(("change", "field", "words"), [
    (lambda r: r.update(contest_date="08/12/2024"), "contest_date", "ISO 8601"),
    (lambda r: r.update(contest_date=1723420800000), "contest_date", "ISO 8601"),
    (lambda r: r.pop("private_test_cases"), "private_test_cases", "required field missing"),
    (lambda r: r.update(public_test_cases="[]", private_test_cases="[]"), "public_test_cases", "no tests"),
    (lambda r: r.update(platform="topcoder"), "platform", "leetcode, atcoder, codeforces"),
    (lambda r: r.update(difficulty="Easy"), "difficulty", "easy, medium, hard"),
    (lambda r: r.update(private_test_cases="not base64 !!"), "private_test_cases", "neither JSON nor base64"),
    (lambda r: r.update(private_test_cases="aGVsbG8="), "private_test_cases", "not zlib data"),
    (lambda r: r.update(metadata="{}"), "metadata.func_name", "no func_name"),
    (lambda r: r.update(public_test_cases=json.dumps([{"input": "[1,", "output": "1", "testtype": "functional"}])),
     "public_test_cases[0].input", "not JSON"),
])
def test_a_bad_row_is_refused_in_one_line_naming_file_line_and_field(change, field, words) -> None:
    rows = _rows()
    change(rows[2])  # a LeetCode row, line 3
    with pytest.raises(BenchmarkFormatError) as caught:
        parse_livecodebench_jsonl(_jsonl(rows), "lcb.jsonl")
    (issue,) = caught.value.issues
    assert (issue.line, issue.field) == (3, field) and words in issue.message
    assert str(caught.value).splitlines()[0] == "lcb.jsonl: refused (1 fault; nothing was imported)"


@pytest.mark.parametrize(("got", "expected", "same"), [
    ("2.50\n", "2.5\n", True),        # equal as decimals
    ("4\n", "4.0\n", True),
    ("1e2\n", "100\n", True),
    ("   3\n", "3\n", True),          # every line stripped at both ends
    ("\n\n3\n\n", "3", True),         # the whole text stripped
    ("1  2\n", "1 2\n", True),        # split on whitespace when compared as numbers
    ("YES\r\nNO\r\n", "YES\nNO\n", True),
    ("yes\n", "YES\n", False),
    ("2\n", "2.5\n", False),
    ("1 2\n3\n", "1 2 3\n", False),   # the number of lines must match
    ("1.0000001\n", "1\n", False),    # exact, no tolerance
    ("sNaN\n", "sNaN\n", True),       # equal as text first
    ("sNaN\n", "sNaN \n", True),
    ("NaN\n", "nan\n", False),        # NaN never equals NaN
])
def test_lcb_stdout_rule(got, expected, same) -> None:
    assert lcb_equal(got, expected) is same


def test_the_default_stdio_rule_is_unchanged_and_lcb_is_opt_in() -> None:
    assert stdout_matches("2.50\n", "2.5\n") is False and stdout_matches("2.50\n", "2.5\n", "lcb") is True
    assert stdout_matches("  3\n", "3\n") is False and stdout_matches("3  \n\n", "3\n") is True
    suite = parse_suite({"entry_point": None, "tests": [{"kind": "stdio", "stdin": "", "expected_stdout": "1"}]})
    assert suite.tests[0].compare == "lines"
    with pytest.raises(SuiteError, match=r"tests\[0\]\.compare: for kind 'stdio' must be one of lines, lcb"):
        parse_suite({"entry_point": None, "tests": [{"kind": "stdio", "expected_stdout": "1", "compare": "float"}]})
    faults = record_faults({"id": "x", "statement": "s", "tests": [
        {"kind": "stdio", "expected_stdout": "1", "compare": "lcb"},
        {"kind": "stdio", "expected_stdout": "1", "compare": "exact"}]}, 1)
    assert [(f.field, f.message.split(",")[0]) for f in faults] == [("tests[1].compare",
                                                                     "for a stdio test must be one of lines")]
