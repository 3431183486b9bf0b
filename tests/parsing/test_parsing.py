"""Lenient parsing against a corpus of messy replies like those of 135M-7B local models.

Each case asserts the parsed value and the exact repair tags, so a change in what gets repaired
(or how it is named in traces and stats) is a visible test failure.
"""

from __future__ import annotations

import random
import textwrap

import pytest

from execugraph.parsing import (
    JSONRepairError,
    extract_code,
    loads_lenient,
    normalise_severity,
    parse_generated_tests,
    parse_json_object,
    parse_plan,
    parse_review,
)


def d(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


ADD = "def add(a, b):\n    return a + b\n"

# (id, reply, entry point, expected code, expected repairs, ok)
CODE_CASES = [
    (
        "qwen_fence_with_explanation",
        d("""
            Here's a Python function that adds two numbers:

            ```python
            def add(a, b):
                return a + b
            ```

            ### Explanation
            1. The function takes two arguments.
            2. It returns their sum.
        """),
        "add",
        ADD,
        ["stripped_fence"],
        True,
    ),
    (
        "fence_language_variants",
        "```Python3\ndef add(a, b):\n    return a + b\n```",
        "add",
        ADD,
        ["stripped_fence"],
        True,
    ),
    (
        "no_fence_preamble_and_epilogue",
        d("""
            Sure! Here is the solution:

            def add(a, b):
                return a + b

            This function returns the sum of a and b.
            Time complexity: O(1)
        """),
        "add",
        ADD,
        ["dropped_preamble", "dropped_epilogue"],
        True,
    ),
    (
        "two_solutions_last_wins",
        d("""
            Simple version:
            ```python
            def add(a, b):
                return sum([a, b])
            ```
            Wait, a more direct version:
            ```python
            def add(a, b):
                return a + b
            ```
        """),
        "add",
        ADD,
        ["stripped_fence", "picked_block_defining_entry_point", "picked_last_of_several_solutions"],
        True,
    ),
    (
        "truncated_fence_second_solution_keeps_complete_first",
        d("""
            ```python
            def add(a, b):
                return a + b
            ```
            Alternatively, with a loop:
            ```python
            def add(a, b):
                total = 0
                for x in (a, b
        """),
        "add",
        ADD,
        ["stripped_fence", "picked_block_defining_entry_point", "picked_last_of_several_solutions"],
        True,
    ),
    (
        "truncated_fence_torn_last_line",
        "```python\ndef sign(x):\n    if x >= 0:\n        return 1\n    else:\n        retu",
        "sign",
        "def sign(x):\n    if x >= 0:\n        return 1\n",
        ["stripped_fence", "unterminated_fence", "dropped_truncated_line", "dropped_unparsable_tail"],
        True,
    ),
    (
        "unterminated_fence_but_complete_code",
        "```python\ndef add(a, b):\n    return a + b",
        "add",
        ADD,
        ["stripped_fence", "unterminated_fence"],
        True,
    ),
    (
        "helper_in_other_block_is_concatenated",
        d("""
            First a helper:
            ```python
            def is_prime(n):
                return n > 1 and all(n % k for k in range(2, int(n ** 0.5) + 1))
            ```
            Then the main function:
            ```python
            def count_primes(limit):
                return sum(1 for n in range(limit) if is_prime(n))
            ```
            Usage:
            ```python
            print(count_primes(10))
            ```
        """),
        "count_primes",
        d("""
            def is_prime(n):
                return n > 1 and all(n % k for k in range(2, int(n ** 0.5) + 1))


            def count_primes(limit):
                return sum(1 for n in range(limit) if is_prime(n))
        """),
        ["stripped_fence", "picked_block_defining_entry_point", "concatenated_blocks"],
        True,
    ),
    (
        "imports_in_separate_block",
        "```python\nimport math\n```\n\n```python\ndef hyp(a, b):\n    return math.sqrt(a * a + b * b)\n```",
        "hyp",
        "import math\n\n\ndef hyp(a, b):\n    return math.sqrt(a * a + b * b)\n",
        ["stripped_fence", "picked_block_defining_entry_point", "concatenated_blocks"],
        True,
    ),
    (
        "leetcode_class_gets_function",
        d("""
            ```python
            class Solution:
                def twoSum(self, nums, target):
                    seen = {}
                    for i, x in enumerate(nums):
                        if target - x in seen:
                            return [seen[target - x], i]
                        seen[x] = i
            ```
        """),
        "twoSum",
        d("""
            class Solution:
                def twoSum(self, nums, target):
                    seen = {}
                    for i, x in enumerate(nums):
                        if target - x in seen:
                            return [seen[target - x], i]
                        seen[x] = i


            def twoSum(*args, **kwargs):
                return Solution().twoSum(*args, **kwargs)
        """),
        ["stripped_fence", "added_function_for_method"],
        True,
    ),
    (
        "codellama_python_tags",
        "[PYTHON]\ndef add(a, b):\n    return a + b\n[/PYTHON]\n[TESTS]\nassert add(1, 2) == 3\n[/TESTS]",
        "add",
        ADD,
        ["stripped_tags"],
        True,
    ),
    (
        "html_code_tags",
        "<p>Solution:</p>\n<code>\ndef add(a, b):\n    return a + b\n</code>",
        "add",
        ADD,
        ["stripped_tags"],
        True,
    ),
    (
        "deepseek_r1_think_then_fence",
        d("""
            <think>
            The user wants addition. Maybe def add(a, b): return a - b? No, plus.
            </think>
            ```python
            def add(a, b):
                return a + b
            ```
        """),
        "add",
        ADD,
        ["stripped_think", "stripped_fence"],
        True,
    ),
    (
        "unclosed_think_code_only_in_reasoning",
        "<think>\nI will write it.\n```python\ndef add(a, b):\n    return a + b\n```\nNow let me double-check the edge",
        "add",
        ADD,
        ["stripped_think", "unclosed_think", "used_thinking", "stripped_fence"],
        True,
    ),
    (
        "llama3_end_token_then_hallucinated_turn",
        "```python\ndef add(a, b):\n    return a + b\n```<|eot_id|><|start_header_id|>user<|end_header_id|>\n```python\ndef add(a, b): return 0\n```",
        "add",
        ADD,
        ["cut_at_end_token", "stripped_fence"],
        True,
    ),
    (
        "chatml_prefix_token",
        "<|im_start|>assistant\n```python\ndef add(a, b):\n    return a + b\n```<|im_end|>",
        "add",
        ADD,
        ["stripped_special_tokens", "cut_at_end_token", "stripped_fence"],
        True,
    ),
    (
        "main_guard_reading_input_removed",
        d("""
            ```python
            def add(a, b):
                return a + b

            if __name__ == "__main__":
                a, b = map(int, input().split())
                print(add(a, b))
            ```
        """),
        "add",
        ADD,
        ["stripped_fence", "removed_main_guard_io"],
        True,
    ),
    (
        "top_level_example_usage_removed",
        d("""
            import sys
            sys.setrecursionlimit(10000)

            def add(a, b):
                return a + b

            result = add(2, 3)
            print(result)
            assert add(1, 1) == 2
        """),
        "add",
        "import sys\nsys.setrecursionlimit(10000)\n\ndef add(a, b):\n    return a + b\n",
        ["removed_top_level_io"],
        True,
    ),
    (
        "stdio_program_keeps_its_io",
        d("""
            Here is the program:
            ```python
            def main():
                n = int(input())
                print(n * 2)

            if __name__ == "__main__":
                main()
            ```
        """),
        None,
        'def main():\n    n = int(input())\n    print(n * 2)\n\nif __name__ == "__main__":\n    main()\n',
        ["stripped_fence"],
        True,
    ),
    (
        "markdown_indented_code",
        "The code is:\n\n    def add(a, b):\n        return a + b\n\nThat's it.",
        "add",
        ADD,
        ["dropped_preamble", "dropped_epilogue", "dedented"],
        True,
    ),
    (
        "repl_transcript",
        "```python\n>>> def add(a, b):\n...     return a + b\n...\n>>> add(2, 3)\n5\n```",
        "add",
        ADD,
        ["stripped_fence", "stripped_repl_prompts", "removed_top_level_io"],
        True,
    ),
    (
        "tilde_fence",
        "~~~python\ndef add(a, b):\n    return a + b\n~~~",
        "add",
        ADD,
        ["stripped_fence"],
        True,
    ),
    (
        "fences_glued_to_prose_and_code",
        "Here you go: ```python\ndef add(a, b):\n    return a + b```\nDone!",
        "add",
        ADD,
        ["stripped_fence", "stray_backticks"],
        True,
    ),
    (
        "mixed_tabs_and_spaces",
        "```python\ndef add(a, b):\n\tif a:\n        return a + b\n\treturn b\n```",
        "add",
        "def add(a, b):\n    if a:\n        return a + b\n    return b\n",
        ["stripped_fence", "expanded_tabs"],
        True,
    ),
    (
        "wrong_function_name_is_flagged",
        "```python\ndef sum_two(a, b):\n    return a + b\n```",
        "add",
        "def sum_two(a, b):\n    return a + b\n",
        ["stripped_fence", "entry_point_not_defined"],
        True,
    ),
    (
        "prose_only",
        "I'm sorry, but I cannot help with that request.",
        "add",
        "",
        ["no_code_found"],
        False,
    ),
    (
        "broken_code_best_effort",
        "```python\ndef add(a, b)\n    return a +* b\n```",
        "add",
        "def add(a, b)\n    return a +* b\n",
        ["stripped_fence", "no_compilable_code"],
        False,
    ),
    (
        "output_and_shell_blocks_ignored",
        d("""
            ```bash
            pip install nothing
            ```
            ```python
            def add(a, b):
                return a + b
            ```
            Output:
            ```
            5
            ```
        """),
        "add",
        ADD,
        ["stripped_fence", "picked_block_defining_entry_point"],
        True,
    ),
    (
        "smollm_repetition_then_truncation",
        "def add(a, b):\n    return a + b\ndef add(a, b):\n    return a + b\ndef add(a, b",
        "add",
        "def add(a, b):\n    return a + b\ndef add(a, b):\n    return a + b\n",
        ["dropped_epilogue"],
        True,
    ),
    (
        "crlf_and_nbsp",
        "```python\r\ndef add(a, b):\r\n\u00a0\u00a0\u00a0\u00a0return a + b\r\n```\r\n",
        "add",
        ADD,
        ["normalised_unicode_spaces", "stripped_fence"],
        True,
    ),
    (
        "fenced_usage_but_definition_unfenced",
        "def add(a, b):\n    return a + b\n\nExample:\n```python\nprint(add(1, 2))\n```",
        "add",
        ADD,
        ["code_outside_fence", "dropped_epilogue", "picked_block_defining_entry_point"],
        True,
    ),
    (
        "alias_accepted",
        "```python\ndef addTwo(a, b):\n    return a + b\n```",
        "add",
        "def addTwo(a, b):\n    return a + b\n",
        ["stripped_fence"],
        True,
    ),
]


@pytest.mark.parametrize(
    ("reply", "entry", "code", "repairs", "ok"),
    [pytest.param(*case[1:], id=case[0]) for case in CODE_CASES],
)
def test_extract_code_corpus(reply: str, entry: str | None, code: str, repairs: list[str], ok: bool) -> None:
    aliases = ["addTwo"] if entry == "add" else []
    parsed = extract_code(reply, entry, aliases)
    assert parsed.value == code
    assert parsed.repairs == repairs
    assert parsed.ok is ok


def test_extract_code_never_executes_the_reply(tmp_path) -> None:
    marker = tmp_path / "executed"
    reply = f"```python\nopen({str(marker)!r}, 'w').write('x')\ndef f():\n    return 1\n```"
    parsed = extract_code(reply, "f")
    assert parsed.ok
    assert not marker.exists()
    assert "def f():" in parsed.value


def test_extract_code_empty_and_none() -> None:
    for reply in ("", None, "   \n  "):
        parsed = extract_code(reply, "f")
        assert (parsed.value, parsed.repairs, parsed.ok) == ("", ["no_code_found"], False)


def test_bare_code_continues_while_brackets_are_open() -> None:
    """An unindented line inside an open bracket still belongs to the bare code run."""
    reply = 'Here it is:\ndef add(a, b):\n    table = {\n"x": 1,\n    }\n    return a + b + table["x"] - 1\nDone.'
    parsed = extract_code(reply, "add")
    assert parsed.value == 'def add(a, b):\n    table = {\n"x": 1,\n    }\n    return a + b + table["x"] - 1\n'
    assert parsed.repairs == ["dropped_preamble", "dropped_epilogue"]


def test_bare_code_bracket_depth_ignores_brackets_in_strings_and_comments() -> None:
    """A "(" inside a string or comment does not keep the run open, so the prose after it is not code."""
    reply = 'def add(a, b):\n    return a + b\nOPEN = "("  # a bracket (in a string\nThis function adds numbers.'
    parsed = extract_code(reply, "add")
    assert parsed.value == 'def add(a, b):\n    return a + b\nOPEN = "("  # a bracket (in a string\n'
    assert parsed.repairs == ["dropped_epilogue"]


# -- JSON -------------------------------------------------------------------------------------------------
JSON_CASES = [
    ("strict", '{"a": 1, "b": [true, null]}', {"a": 1, "b": [True, None]}, []),
    ("trailing_commas", '{"a": [1, 2,], "b": 2,}', {"a": [1, 2], "b": 2}, ["trailing_comma"]),
    (
        "single_quotes_python_literals",
        "{'a': True, 'b': None, 'c': (1, 2)}",
        {"a": True, "b": None, "c": [1, 2]},
        ["single_quotes", "python_literal"],
    ),
    (
        "apostrophe_inside_single_quotes",
        "{'msg': 'it's fine'}",
        {"msg": "it's fine"},
        ["single_quotes", "unescaped_quotes"],
    ),
    (
        "comments",
        '{\n  "a": 1, // first\n  /* block */ "b": 2 # python style\n}',
        {"a": 1, "b": 2},
        ["removed_comments"],
    ),
    ("truncated_in_string", '{"items": ["alpha", "be', {"items": ["alpha", "be"]}, ["closed_truncated_json"]),
    ("truncated_after_key", '{"a": 1, "b":', {"a": 1}, ["closed_truncated_json"]),
    ("truncated_literal", '{"done": fal', {"done": False}, ["closed_truncated_json"]),
    (
        "unquoted_keys_and_words",
        "{severity: high, count: 2}",
        {"severity": "high", "count": 2},
        ["unquoted_keys", "unquoted_string"],
    ),
    ("missing_comma_between_lines", '{"a": 1\n "b": 2}', {"a": 1, "b": 2}, ["missing_comma"]),
    (
        "unescaped_inner_quotes",
        '{"call": "f("x")", "expected": 1}',
        {"call": 'f("x")', "expected": 1},
        ["unescaped_quotes"],
    ),
    ("ellipsis_in_list", "[1, 2, ...]", [1, 2], ["dropped_ellipsis"]),
    ("mismatched_bracket", '{"a": [1, 2}', {"a": [1, 2]}, ["mismatched_brackets"]),
]


@pytest.mark.parametrize(("text", "value", "repairs"), [pytest.param(*c[1:], id=c[0]) for c in JSON_CASES])
def test_loads_lenient(text: str, value: object, repairs: list[str]) -> None:
    assert loads_lenient(text) == (value, repairs)


def test_loads_lenient_rejects_nonsense_with_a_clear_error() -> None:
    with pytest.raises(JSONRepairError, match="empty object key at offset 1"):
        loads_lenient("{: }")
    with pytest.raises(JSONRepairError, match="nesting deeper"):
        loads_lenient("[" * 500)


def test_parse_json_object_in_prose_with_fence() -> None:
    reply = 'Sure! Here is the JSON you asked for:\n```json\n{"name": "x", "size": 3,}\n```\nAnything else?'
    parsed = parse_json_object(reply, {"name": str, "size": int})
    assert parsed.value == {"name": "x", "size": 3}
    assert parsed.repairs == ["stripped_fence", "trailing_comma"]
    assert parsed.ok


def test_parse_json_object_unfenced_preamble_and_missing_key() -> None:
    parsed = parse_json_object("Result: {'name': 'x'} hope that helps", {"name": str, "tags": list})
    assert parsed.value == {"name": "x", "tags": []}
    assert parsed.repairs == ["dropped_preamble", "single_quotes", "dropped_epilogue", "missing_key:tags"]
    assert parsed.ok


def test_parse_json_object_prefers_the_candidate_with_required_keys() -> None:
    reply = 'The set {1, 2} is small. Answer: {"verdict": "yes"}'
    parsed = parse_json_object(reply, {"verdict": str})
    assert parsed.value == {"verdict": "yes"}
    assert parsed.ok


def test_parse_json_object_nothing_found() -> None:
    parsed = parse_json_object("no braces here", {"a": list, "b": str})
    assert parsed.value == {"a": [], "b": ""}
    assert parsed.repairs == ["no_json_found", "missing_key:a", "missing_key:b"]
    assert not parsed.ok


def test_parse_json_object_unwraps_a_list_and_coerces_types() -> None:
    parsed = parse_json_object('[{"Count": "7", "items": "a"}]', {"count": int, "items": list})
    assert parsed.value == {"count": 7, "items": ["a"]}
    assert parsed.repairs == ["unwrapped_list", "renamed_key:count", "coerced:count", "coerced:items"]


# -- review -----------------------------------------------------------------------------------------------
REVIEW_CASES = [
    (
        "json_fenced_critical",
        '```json\n{"invariants": ["output is sorted"], "potential_failures": ["empty list",], "severity": "Critical"}\n```',
        {"invariants": ["output is sorted"], "potential_failures": ["empty list"], "severity": "high"},
        ["stripped_fence", "trailing_comma", "normalised_severity"],
        True,
    ),
    (
        "prose_only_severity_high",
        d("""
            The code has a bug.

            **Invariants:**
            - the result list stays sorted
            - 0 <= i < len(nums)

            **Potential failures:**
            1. An empty input raises IndexError.
            2. Duplicates are counted twice.

            Severity: HIGH
        """),
        {
            "invariants": ["the result list stays sorted", "0 <= i < len(nums)"],
            "potential_failures": ["An empty input raises IndexError.", "Duplicates are counted twice."],
            "severity": "high",
        },
        ["parsed_prose_review", "normalised_severity"],
        True,
    ),
    (
        "prose_severity_line_only",
        "Looks mostly fine but could be slow. Severity: medium",
        {"invariants": [], "potential_failures": [], "severity": "medium"},
        ["parsed_prose_review", "missing_key:invariants", "missing_key:potential_failures"],
        True,
    ),
    (
        "numbered_labels_with_inline_items",
        "1. **Invariants**: The list remains sorted.\n2. **Potential Failures**: Empty input.\n3. **Severity**: Medium",
        {"invariants": ["The list remains sorted."], "potential_failures": ["Empty input."], "severity": "medium"},
        ["parsed_prose_review", "normalised_severity"],
        True,
    ),
    (
        "markdown_headings_edge_cases",
        "## Review\n\n### Invariants\n* `i` stays in range\n\n### Edge cases\n* n = 0 returns 1\n\n**Severity:** high",
        {"invariants": ["`i` stays in range"], "potential_failures": ["n = 0 returns 1"], "severity": "high"},
        ["parsed_prose_review"],
        True,
    ),
    (
        "json_after_reasoning_with_epilogue",
        '<think>check bounds</think>{"invariants": ["a"], "potential_failures": [], "severity": "low"}\nI rated it low.',
        {"invariants": ["a"], "potential_failures": [], "severity": "low"},
        ["stripped_think", "dropped_epilogue"],
        True,
    ),
    (
        "numeric_severity_out_of_ten",
        '{"invariants": [], "potential_failures": ["n = 0"], "severity": "8/10"}',
        {"invariants": [], "potential_failures": ["n = 0"], "severity": "high"},
        ["normalised_severity"],
        True,
    ),
    (
        "missing_severity_defaults_low",
        '{"invariants": ["x > 0"], "potential_failures": []}',
        {"invariants": ["x > 0"], "potential_failures": [], "severity": "low"},
        ["missing_key:severity"],
        True,
    ),
    (
        "renamed_keys_and_object_items",
        '{"Invariants": "x is positive", "issues": [{"case": "x = 0", "problem": "division by zero"}], "risk": 0.9}',
        {"invariants": ["x is positive"], "potential_failures": ["x = 0 - division by zero"], "severity": "high"},
        [
            "renamed_key:invariants",
            "coerced:invariants",
            "renamed_key:potential_failures",
            "renamed_key:severity",
            "coerced:severity",
            "flattened_items",
            "normalised_severity",
        ],
        True,
    ),
    (
        "truncated_review",
        '{"invariants": ["i < n"], "potential_failures": ["fails when the list is emp',
        {"invariants": ["i < n"], "potential_failures": ["fails when the list is emp"], "severity": "low"},
        ["closed_truncated_json", "missing_key:severity"],
        True,
    ),
    (
        "unknown_severity_word",
        '{"invariants": [], "potential_failures": [], "severity": "purple"}',
        {"invariants": [], "potential_failures": [], "severity": "low"},
        ["unknown_severity"],
        True,
    ),
    (
        "nothing_usable",
        "The code looks correct to me!",
        {"invariants": [], "potential_failures": [], "severity": "low"},
        ["no_review_found", "missing_key:invariants", "missing_key:potential_failures", "missing_key:severity"],
        False,
    ),
]


@pytest.mark.parametrize(("reply", "value", "repairs", "ok"), [pytest.param(*c[1:], id=c[0]) for c in REVIEW_CASES])
def test_parse_review(reply: str, value: dict, repairs: list[str], ok: bool) -> None:
    parsed = parse_review(reply)
    assert parsed.value == value
    assert parsed.repairs == repairs
    assert parsed.ok is ok


@pytest.mark.parametrize(
    ("raw", "level", "recognised"),
    [
        ("high", "high", True),
        ("CRITICAL!", "high", True),
        ("severe", "high", True),
        ("Moderate", "medium", True),
        ("minor", "low", True),
        ("none", "low", True),
        (0.9, "high", True),
        (0.2, "low", True),
        (3, "medium", True),
        (5, "high", True),
        (9, "high", True),
        ("2 out of 10", "low", True),
        ("7/10", "high", True),
        ("banana", "low", False),
        (None, "low", False),
    ],
)
def test_normalise_severity(raw: object, level: str, recognised: bool) -> None:
    assert normalise_severity(raw) == (level, recognised)


# -- generated tests --------------------------------------------------------------------------------------
def call(expr: str, expected: object, n: int) -> dict:
    return {"kind": "call", "name": f"generated_{n}", "expr": expr, "expected": expected}


TEST_CASES = [
    (
        "json_args_list_one_malformed",
        '```json\n[{"args": [1, 2], "expected": 3}, {"args": [0, 0], "expected": 0}, {"args": [5]}]\n```',
        "",
        [call("add(1, 2)", 3, 1), call("add(0, 0)", 0, 2)],
        ["stripped_fence", "dropped:no_expected"],
        1,
    ),
    (
        "assert_lines_with_unusable_ones",
        d("""
            Here are some tests:
            assert add(1, 2) == 3
            assert add(-1, 1) == 0
            assert add(x, 2) == 5
            assert isinstance(add(1, 2), int)
            assert add(2, 2) > 3
            assert helper(3) == 4
        """),
        "",
        [call("add(1, 2)", 3, 1), call("add(-1, 1)", 0, 2)],
        ["dropped:non_literal_args", "dropped:wrong_function", "dropped:unsupported_assert", "tests_from_text"],
        4,
    ),
    (
        "wrapped_object_with_input_strings",
        '{"tests": [{"input": "1, 2", "output": 3}, {"call": "add(2, 2)", "expected": 4}, {"input": [5, 5], "expected": 10,}]}',
        "",
        [call("add(1, 2)", 3, 1), call("add(2, 2)", 4, 2), call("add(5, 5)", 10, 3)],
        ["trailing_comma", "input_as_arguments"],
        0,
    ),
    (
        "doctest_style",
        ">>> add(1, 2)\n3\n>>> add(2, 3)\n5\n>>> add(0, 0)",
        "",
        [call("add(1, 2)", 3, 1), call("add(2, 3)", 5, 2)],
        ["dropped:no_expected", "tests_from_text"],
        1,
    ),
    (
        "print_comments_and_arrows",
        "print(add(1, 2))  # Output: 3\n- `add(2, 2)` -> `4`\nadd(3, 3) returns 6.",
        "",
        [call("add(1, 2)", 3, 1), call("add(2, 2)", 4, 2), call("add(3, 3)", 6, 3)],
        ["tests_from_text"],
        0,
    ),
    (
        "truncated_json_and_code_smuggling",
        '[{"call": "add(__import__(\'os\').getpid(), 1)", "expected": 1}, {"call": "add(1, 1)", "expected": 2}, {"args": [3,',
        "",
        [call("add(1, 1)", 2, 1)],
        ["closed_truncated_json", "dropped:non_literal_args", "dropped:no_expected"],
        2,
    ),
    (
        "pairs_and_tuples",
        "[([1, 2], 3), ([4, 5], (9,))]",
        "",
        [call("add(1, 2)", 3, 1), call("add(4, 5)", [9], 2)],
        ["python_literal", "pair_format"],
        0,
    ),
    (
        "conflicting_and_identical_duplicates",
        "assert add(1, 1) == 2\nassert add(1, 1) == 2\nassert add(1, 1) == 3",
        "",
        [call("add(1, 1)", 2, 1)],
        ["dropped_duplicates", "dropped:conflicting_duplicate", "tests_from_text"],
        1,
    ),
    (
        "list_input_is_one_argument_per_signature",
        '[{"input": [1, 2, 3], "expected": 6}, {"input": [[]], "expected": 0}]',
        "def add(nums: list[int]) -> int",
        [call("add([1, 2, 3])", 6, 1), call("add([])", 0, 2)],
        ["input_as_single_argument", "input_as_arguments"],
        0,
    ),
    (
        "quoted_numbers_coerced_by_return_annotation",
        '[{"args": [1, 2], "expected": "3"}]',
        "def add(a: int, b: int) -> int",
        [call("add(1, 2)", 3, 1)],
        ["coerced_expected"],
        0,
    ),
    (
        "humaneval_check_function_with_candidate",
        "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert not candidate(0, 0)\n",
        "",
        [call("add(1, 2)", 3, 1), call("add(0, 0)", False, 2)],
        ["tests_from_text"],
        0,
    ),
    (
        "kwargs_and_named_tests",
        '[{"name": "basic", "kwargs": {"a": 1, "b": 2}, "expected": 3}, {"name": "basic", "args": {"a": 0, "b": 0}, "expected": 0}]',
        "",
        [
            {"kind": "call", "name": "basic", "expr": "add(a=1, b=2)", "expected": 3},
            {"kind": "call", "name": "basic_2", "expr": "add(a=0, b=0)", "expected": 0},
        ],
        [],
        0,
    ),
    (
        "non_finite_expected_dropped",
        '[{"args": [1, 0], "expected": NaN}, {"args": [2, 2], "expected": 4}]',
        "",
        [call("add(2, 2)", 4, 1)],
        ["dropped:non_finite_number"],
        1,
    ),
    (
        "tolerance_and_order_free_asserts",
        d("""
            assert abs(add(0.1, 0.2) - 0.3) < 1e-9
            assert math.isclose(add(1.5, 1), 2.5)
            assert sorted(add([2], [1])) == [1, 2]
            assert set(add([1], [1])) == {1}
        """),
        "",
        [
            call("add(0.1, 0.2)", 0.3, 1) | {"compare": "float", "tol": 1e-9},
            call("add(1.5, 1)", 2.5, 2) | {"compare": "float"},
            call("add([2], [1])", [1, 2], 3) | {"compare": "unordered"},
            call("add([1], [1])", [1], 4) | {"compare": "set"},
        ],
        ["tests_from_text"],
        0,
    ),
    (
        "nothing_like_tests",
        "I think the function is correct.",
        "",
        [],
        ["no_tests_found"],
        0,
    ),
]


@pytest.mark.parametrize(
    ("reply", "signature", "tests", "repairs", "dropped"), [pytest.param(*c[1:], id=c[0]) for c in TEST_CASES]
)
def test_parse_generated_tests(reply: str, signature: str, tests: list, repairs: list[str], dropped: int) -> None:
    parsed = parse_generated_tests(reply, "add", signature=signature)
    assert parsed.value == tests
    assert parsed.repairs == repairs
    assert parsed.dropped == dropped
    assert parsed.ok is bool(tests)


def test_generated_tests_are_valid_sandbox_suites() -> None:
    """Every test the parser emits is accepted by the sandbox's own suite validator."""
    from sandbox import parse_suite

    for case in TEST_CASES:
        tests = parse_generated_tests(case[1], "add", signature=case[2]).value
        if tests:
            suite = parse_suite({"entry_point": "add", "aliases": [], "tests": tests})
            assert len(suite.tests) == len(tests)


def test_generated_tests_are_capped() -> None:
    reply = "\n".join(f"assert add({i}, 1) == {i + 1}" for i in range(30))
    parsed = parse_generated_tests(reply, "add")
    assert len(parsed.value) == 20
    assert parsed.value[-1]["expr"] == "add(19, 1)"
    assert "capped_tests" in parsed.repairs
    assert parsed.dropped == 0


def test_generated_tests_call_only_the_entry_point_with_literals() -> None:
    reply = '[{"call": "add(*[1, 2])", "expected": 3}, {"call": "os.system(1)", "expected": 0}, {"call": "eval(1)", "expected": 1}]'
    parsed = parse_generated_tests(reply, "add")
    assert parsed.value == []
    assert parsed.dropped == 3
    assert parsed.repairs == ["dropped:non_literal_args", "dropped:wrong_function"]
    assert not parsed.ok


def test_generated_assert_continues_over_lines_while_brackets_are_open() -> None:
    reply = "assert add(\n    1,\n    2,\n) == 3\nassert add(0, 0) == 0"
    parsed = parse_generated_tests(reply, "add")
    assert parsed.value == [call("add(1, 2)", 3, 1), call("add(0, 0)", 0, 2)]
    assert (parsed.repairs, parsed.dropped) == (["tests_from_text"], 0)


# -- plan -------------------------------------------------------------------------------------------------
PLAN_CASES = [
    (
        "chatter_both_ends",
        "Sure! Here's a plan:\n\n1. Sort the list.\n2. Use two pointers.\n\nLet me know if you need more help!",
        "1. Sort the list.\n2. Use two pointers.",
        ["dropped_preamble", "dropped_epilogue"],
    ),
    (
        "greeting_with_content_on_same_line",
        "Certainly! First, count each value.\nThen return the most common.",
        "First, count each value.\nThen return the most common.",
        ["dropped_preamble"],
    ),
    (
        "code_dropped_text_fence_unwrapped",
        "<think>hmm</think>```text\n1. Iterate.\n```\n```python\ndef f():\n    pass\n```\n2. Return.",
        "1. Iterate.\n2. Return.",
        ["stripped_think", "stripped_fence", "dropped_code_from_plan"],
    ),
    ("plain_plan_untouched", "1. Read n.\n2. Print n * 2.", "1. Read n.\n2. Print n * 2.", []),
]


@pytest.mark.parametrize(("reply", "plan", "repairs"), [pytest.param(*c[1:], id=c[0]) for c in PLAN_CASES])
def test_parse_plan(reply: str, plan: str, repairs: list[str]) -> None:
    parsed = parse_plan(reply)
    assert (parsed.value, parsed.repairs, parsed.ok) == (plan, repairs, True)


def test_parse_plan_is_capped_on_a_line_boundary() -> None:
    reply = "\n".join(f"{i}. step number {i} of a very long plan" for i in range(1, 200))
    parsed = parse_plan(reply, max_chars=300)
    assert len(parsed.value) <= 300
    assert parsed.value.endswith("of a very long plan")
    assert parsed.repairs == ["truncated_plan"]


def test_parse_plan_empty() -> None:
    parsed = parse_plan("   ")
    assert (parsed.value, parsed.repairs, parsed.ok) == ("", ["empty_plan"], False)


# -- robustness -------------------------------------------------------------------------------------------
def test_parsers_never_raise_on_mangled_replies() -> None:
    """Random cuts and splices of corpus replies: every parser returns a Parsed, none raises."""
    pieces = [case[1] for case in CODE_CASES] + [c[1] for c in REVIEW_CASES] + [c[1] for c in TEST_CASES]
    rng = random.Random(1234)
    for _ in range(300):
        a, b = rng.choice(pieces), rng.choice(pieces)
        text = (
            a[: rng.randrange(len(a) + 1)]
            + rng.choice(["", "```", "{", "'", '"', "<think>", "\t"])
            + b[rng.randrange(len(b) + 1) :]
        )
        assert isinstance(extract_code(text, "add").value, str)
        assert isinstance(extract_code(text, None).value, str)
        assert set(parse_review(text).value) == {"invariants", "potential_failures", "severity"}
        tests = parse_generated_tests(text, "add")
        assert all(t["kind"] == "call" and t["expr"].startswith("add(") for t in tests.value)
        assert isinstance(parse_plan(text).value, str)
        assert isinstance(parse_json_object(text, {"a": list}).value["a"], list)


def test_parsing_package_is_pure() -> None:
    """execugraph.parsing loads only the standard library and itself: no LLM client, store or UI."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    probe = (
        "import json, sys, execugraph.parsing\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] not in sys.stdlib_module_names)))"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=root).stdout
    loaded = [m for m in json.loads(out) if m not in ("__main__", "_distutils_hack", "execugraph")]
    assert loaded and all(m.startswith("execugraph.parsing") for m in loaded), loaded
