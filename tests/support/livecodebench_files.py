"""LiveCodeBench files as lcb_runner writes them: problem rows (code_generation_lite) and two models' outputs.

Shapes follow lcb_runner exactly: rows carry `public_test_cases` as a JSON string and
`private_test_cases` as base64(zlib(pickle(json string))) (one older row as plain JSON, which
lcb_runner also accepts), `metadata` a JSON string; output files are written with
`json.dump(..., indent=4)`, problems sorted by question_id, `_eval_all.json` objects keyed
in `insert_output_evaluation`'s order with `metadata` a list of JSON strings, `_eval.json`
the list `[metrics, results, metadata]` whose results are keyed by index (JSON turns the int
keys into strings) and stop at a sample's first failing test. ModelA's files use the older
`Scenario.codegeneration` name, ModelB's the newer `codegeneration`. Written by
`write_fixtures` into tests/fixtures/livecodebench/ (kept equal by a test).
"""

from __future__ import annotations

import base64
import json
import pickle
import zlib
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "livecodebench"
N, TEMPERATURE = 2, 0.2


def pack_private(tests: list[dict[str, str]]) -> str:
    """LiveCodeBench's private_test_cases encoding: base64 of zlib of a pickled JSON string."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(tests)))).decode("utf-8")


def _stdin(inp: str, out: str) -> dict[str, str]:
    return {"input": inp, "output": out, "testtype": "stdin"}


def _func(inp: str, out: str) -> dict[str, str]:
    return {"input": inp, "output": out, "testtype": "functional"}


TWO_SUM_STARTER = "class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n        "
PALINDROME_STARTER = "class Solution:\n    def isPalindrome(self, s: str) -> bool:\n        "

# (row without the encoded tests, public tests, private tests, private encoded as LCB does)
PROBLEMS: list[tuple[dict[str, Any], list[dict[str, str]], list[dict[str, str]], bool]] = [
    ({"question_title": "Midpoint", "platform": "codeforces", "question_id": "1999_A", "contest_id": "1999",
      "contest_date": "2024-08-12T00:00:00", "starter_code": "", "difficulty": "medium",
      "question_content": "You are given two integers a and b. Print the average of a and b.\n\nInput\n\nOne "
      "line with a and b (1 <= a, b <= 100).\n\nOutput\n\nPrint (a + b) / 2. Any representation of the exact "
      "value is accepted.\n\nExample\nInput\n2 3\nOutput\n2.5", "metadata": "{}"},
     [_stdin("2 3\n", "2.5\n")], [_stdin("3 5\n", "4.0\n"), _stdin("10 11\n", "10.5\n")], True),
    ({"question_title": "two-sum-indices", "platform": "leetcode", "question_id": "3400",
      "contest_id": "weekly-contest-412", "contest_date": "2024-09-01T00:00:00", "starter_code": TWO_SUM_STARTER,
      "difficulty": "easy",
      "question_content": "Given an array of integers nums and an integer target, return the indices i < j of the "
      "two numbers that add up to target. Exactly one answer exists.\n \nExample 1:\n\nInput: nums = "
      "[2,7,11,15], target = 9\nOutput: [0,1]\n", "metadata": json.dumps({"func_name": "twoSum"})},
     [_func("[2, 7, 11, 15]\n9", "[0, 1]")], [_func("[3, 2, 4]\n6", "[1, 2]"), _func("[3, 3]\n6", "[0, 1]")], True),
    ({"question_title": "palindrome-check", "platform": "leetcode", "question_id": "3401",
      "contest_id": "weekly-contest-412", "contest_date": "2024-09-01T00:00:00", "starter_code": PALINDROME_STARTER,
      "difficulty": "hard",
      "question_content": "Return true if the string s reads the same forwards and backwards.\n \nExample 1:\n\n"
      "Input: s = \"abba\"\nOutput: true\n", "metadata": json.dumps({"func_name": "isPalindrome"})},
     [_func("\"abba\"", "true")], [_func("\"abc\"", "false"), _func("\"a\"", "true")], False),
    ({"question_title": "Sum", "platform": "atcoder", "question_id": "abc999_a", "contest_id": "abc999",
      "contest_date": "2024-03-30T00:00:00", "starter_code": "", "difficulty": "easy",
      "question_content": "You are given integers A and B. Print A+B.\n\nConstraints\n\n- 1 \\leq A, B \\leq 1000\n\n"
      "Sample Input 1\n\n1 2\n\nSample Output 1\n\n3", "metadata": "{}"},
     [_stdin("1 2\n", "3\n")], [_stdin("10 20\n", "30\n"), _stdin("999 1000\n", "1999\n")], True),
]

MIDPOINT_RIGHT = "a, b = map(int, input().split())\nprint(f\"{(a + b) / 2:.2f}\")"  # 2.50: equal as decimals
MIDPOINT_FLOOR = "a, b = map(int, input().split())\nprint((a + b) // 2)"
MIDPOINT_PLAIN = "a, b = map(int, input().split())\nprint((a + b) / 2)"
TWO_SUM = ("class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n        seen = {}\n"
           "        for j, x in enumerate(nums):\n            if target - x in seen:\n"
           "                return [seen[target - x], j]\n            seen[x] = j\n        return []")
TWO_SUM_TUPLE = TWO_SUM.replace("return [seen[target - x], j]", "return (seen[target - x], j)")
TWO_SUM_SWAPPED = TWO_SUM.replace("return [seen[target - x], j]", "return [j, seen[target - x]]")
PALINDROME = "class Solution:\n    def isPalindrome(self, s: str) -> bool:\n        return s == s[::-1]"
PALINDROME_CRASH = "class Solution:\n    def isPalindrome(self, s: str) -> bool:\n        return s[100] == s[-101]"
PALINDROME_TEXT = ("class Solution:\n    def isPalindrome(self, s: str) -> bool:\n"
                   "        return \"true\" if s == s[::-1] else \"false\"")
SUM_RIGHT = "a, b = map(int, input().split())\nprint(a + b)"
SUM_PADDED = "a, b = map(int, input().split())\nprint(\"   \", a + b)"  # leading blanks: stripped by LCB
SUM_WRONG = "a, b = map(int, input().split())\nprint(a - b)"
SUM_GCD = "a, b = map(int, input().split())\nprint(a + b if gcd(a, a) == a else 0)"  # gcd from LCB's import block

_PASS = {"execution time": 0.0021}


def _wa_stdio(inp: str, got: str, want: str, line: str) -> dict[str, Any]:
    return {"output": got, "inputs": inp, "expected": want, "error_code": -2, "error_message": line}


# model -> question -> [(code, per-test results, metadata)] per sample
SAMPLES: dict[str, dict[str, list[tuple[str, list[Any], dict[str, Any]]]]] = {
    "ModelA": {
        "1999_A": [(MIDPOINT_RIGHT, [True, True, True], _PASS),
                   (MIDPOINT_FLOOR, [-2], _wa_stdio("2 3\n", "2\n", "2.5\n",
                                                    "Wrong answer at output_line_idx=0: 2 != 2.5"))],
        "3400": [(TWO_SUM, [True, True, True], _PASS), (TWO_SUM_TUPLE, [True, True, True], _PASS)],
        "3401": [(PALINDROME, [True, True, True], _PASS),
                 (PALINDROME_CRASH, [-4], {"error": "IndexError('string index out of range')", "error_code": -4,
                                           "error_message": "Runtime Error", "inputs": "['abba']",
                                           "expected": "True"})],
        "abc999_a": [(SUM_RIGHT, [True, True, True], _PASS), (SUM_PADDED, [True, True, True], _PASS)],
    },
    "ModelB": {
        "1999_A": [(MIDPOINT_PLAIN, [True, True, True], _PASS), (MIDPOINT_PLAIN, [True, True, True], _PASS)],
        "3400": [(TWO_SUM_SWAPPED, [False], {"output": "[1, 0]", "inputs": "[[2, 7, 11, 15], 9]", "expected": "[0, 1]",
                                          "error_code": -2, "error_message": "Wrong Answer"}),
                 (TWO_SUM, [True, True, True], _PASS)],
        "3401": [(PALINDROME_TEXT, [False], {"output": "true", "inputs": "['abba']", "expected": "True",
                                             "error_code": -2, "error_message": "Wrong Answer"}),
                 (PALINDROME, [True, True, True], _PASS)],
        "abc999_a": [(SUM_WRONG, [-2], _wa_stdio("1 2\n", "-1\n", "3\n", "Wrong answer at output_line_idx=0: -1 != 3")),
                     (SUM_GCD, [True, True, True], _PASS)],
    },
}
FILE_PREFIX = {"ModelA": "Scenario.codegeneration", "ModelB": "codegeneration"}
PASS_AT_1 = {"ModelA": 0.75, "ModelB": 0.625}


def problem_rows() -> list[dict[str, Any]]:
    """The problem file's rows, in code_generation_lite's field order."""
    rows = []
    for base, public, private, packed in PROBLEMS:
        row = {k: base[k] for k in ("question_title", "question_content", "platform", "question_id", "contest_id",
                                    "contest_date", "starter_code", "difficulty")}
        row["public_test_cases"] = json.dumps(public)
        row["private_test_cases"] = pack_private(private) if packed else json.dumps(private)
        row["metadata"] = base["metadata"]
        rows.append(row)
    return rows


def _model_output(code: str) -> str:
    return f"Here is a solution.\n```python\n{code}\n```\n"


def eval_all(model: str) -> list[dict[str, Any]]:
    """`insert_output_evaluation` per problem, sorted by question_id."""
    out = []
    for base, _public, _private, _packed in sorted(PROBLEMS, key=lambda p: p[0]["question_id"]):
        samples = SAMPLES[model][base["question_id"]]
        graded = [all(r is True or (not isinstance(r, bool) and r > 0) for r in tests) for _, tests, _ in samples]
        entry = {k: base[k] for k in ("question_title", "question_content", "platform", "question_id", "contest_id",
                                      "contest_date", "starter_code", "difficulty")}
        entry["output_list"] = [_model_output(code) for code, _, _ in samples]
        entry["code_list"] = [code for code, _, _ in samples]
        entry["graded_list"] = graded
        entry["pass@1"] = graded.count(True) / len(graded)
        entry["metadata"] = [json.dumps(meta) for _, _, meta in samples]
        out.append(entry)
    return out


def eval_metrics(model: str) -> list[Any]:
    """`codegen_metrics`'s [metrics, results, metadata] as json.dump writes it."""
    problems = eval_all(model)
    results = {i: [tests for _, tests, _ in SAMPLES[model][p["question_id"]]] for i, p in enumerate(problems)}
    detail = {i: p["pass@1"] for i, p in enumerate(problems)}
    metrics = {"pass@1": sum(detail.values()) / len(detail), "detail": {"pass@1": detail}}
    metadata = [p["metadata"] for p in problems]
    return [metrics, results, metadata]


def generations(model: str) -> list[dict[str, Any]]:
    """The generations file (`insert_output`), as lcb_runner writes it before grading."""
    keep = ("question_title", "question_content", "platform", "question_id", "contest_id", "contest_date",
            "starter_code", "difficulty", "output_list", "code_list")
    return [{k: p[k] for k in keep} for p in eval_all(model)]


def write_outputs(root: Path, models: tuple[str, ...] = ("ModelA", "ModelB"), *, kinds: tuple[str, ...] = (
        "eval_all", "eval", "outputs")) -> Path:
    """output/<model>/<scenario>_<n>_<temperature>[_eval_all|_eval].json under `root`, as lcb_runner writes them."""
    for model in models:
        folder = root / "output" / model
        folder.mkdir(parents=True, exist_ok=True)
        stem = f"{FILE_PREFIX[model]}_{N}_{TEMPERATURE}"
        docs = {"eval_all": (f"{stem}_eval_all.json", eval_all(model)), "eval": (f"{stem}_eval.json",
                eval_metrics(model)), "outputs": (f"{stem}.json", generations(model))}
        for kind in kinds:
            name, doc = docs[kind]
            with open(folder / name, "w") as fh:
                json.dump(doc, fh, indent=4)
    return root / "output"


def write_problems(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in problem_rows()), encoding="utf-8")
    return path


def write_fixtures(root: Path = FIXTURES) -> None:
    """Regenerate tests/fixtures/livecodebench/ (problems.jsonl and output/<model>/...)."""
    write_problems(root / "problems.jsonl")
    write_outputs(root)


if __name__ == "__main__":
    write_fixtures()
