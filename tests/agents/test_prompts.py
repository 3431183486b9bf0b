"""Prompt templates render with their placeholders, fail clearly without them, and feedback stays structured."""

from __future__ import annotations

import re

import pytest

from execugraph.agents.prompts import (
    PROMPT_DIR,
    PROMPT_NAMES,
    ROLE_DUTIES,
    PromptError,
    format_feedback,
    format_review,
    placeholders,
    render,
    system_prompt,
    task_values,
)
from execugraph.domain.problem import Problem

# The exact placeholder set of every template: a template change that needs new values is deliberate.
EXPECTED_PLACEHOLDERS = {
    "planner": {"statement", "signature", "techniques"},
    "generator": {"statement", "signature", "entry_point", "plan"},
    "generator_retry": {"statement", "signature", "entry_point", "code", "feedback", "unchanged"},
    "generator_revise": {"statement", "signature", "entry_point", "code", "review"},
    "reviewer": {"statement", "code"},
    "test_writer": {"statement", "signature", "entry_point"},
    "test_writer_stdio": {"statement"},
    "optimizer": {"statement", "code", "entry_point"},
    "explainer": {"statement", "code"},
    "single": {"statement", "signature", "entry_point"},
    "system": {"role", "duty"},
}


def sample_values(name: str) -> dict[str, str]:
    """A distinct, recognisable value per placeholder, so each can be found in the rendered text."""
    return {key: f"<<{key.upper()}-VALUE>>" for key in placeholders(name)}


def test_every_template_file_is_known_and_present() -> None:
    files = {path.stem for path in PROMPT_DIR.glob("*.txt")}
    assert files == set(PROMPT_NAMES) == set(EXPECTED_PLACEHOLDERS)


@pytest.mark.parametrize("name", PROMPT_NAMES)
def test_template_placeholders(name: str) -> None:
    assert placeholders(name) == EXPECTED_PLACEHOLDERS[name]


@pytest.mark.parametrize("name", PROMPT_NAMES)
def test_every_template_renders_every_value(name: str) -> None:
    values = sample_values(name)
    text = render(name, **values)
    for key, value in values.items():
        assert value in text, f"{name}: value for {key} missing from the rendered prompt"
    assert not re.search(r"\{\??/?[a-z_][a-z0-9_]*\}", text), "a placeholder or section marker was left behind"
    assert text.endswith("\n") and not text.endswith("\n\n")


@pytest.mark.parametrize("name", PROMPT_NAMES)
def test_missing_placeholder_fails_naming_it(name: str) -> None:
    for missing in sorted(placeholders(name)):
        values = sample_values(name)
        del values[missing]
        with pytest.raises(PromptError) as caught:
            render(name, **values)
        message = str(caught.value)
        assert repr(name) in message and missing in message
        assert isinstance(caught.value, KeyError)


def test_unknown_template_is_a_clear_error() -> None:
    with pytest.raises(PromptError, match="no prompt template 'planer'.*known: planner"):
        render("planer", statement="x")


def test_optional_sections_disappear_when_empty() -> None:
    base = {"statement": "Add two numbers.", "signature": "def add(a, b)", "entry_point": "add"}
    without = render("generator", **base, plan="")
    assert "plan" not in without.lower()
    assert "\n\n\n" not in without
    with_plan = render("generator", **base, plan="1. Return a + b.")
    assert "Follow this plan:\n1. Return a + b." in with_plan
    assert render("generator", **base, plan=None) == without
    planner = render(
        "planner", statement="s", signature="f()", techniques="Techniques that may apply:\n1. Two pointers"
    )
    assert "Techniques that may apply:\n1. Two pointers" in planner
    assert "Techniques" not in render("planner", statement="s", signature="f()", techniques="  ")


def test_values_are_inserted_verbatim() -> None:
    code = 'def f(d):\n    return {k: v for k, v in d.items()} or "{code}"\n\n\ndef g():\n    pass'
    text = render("reviewer", statement="Use {braces} and {{doubles}}.", code=code)
    assert code in text
    assert "Use {braces} and {{doubles}}." in text
    assert '{"invariants": [' in text  # the template's own JSON example is left alone


def test_extra_values_are_ignored() -> None:
    assert render("explainer", statement="s", code="c", entry_point="f") == render("explainer", statement="s", code="c")


def test_node_calling_conventions_render() -> None:
    """The keyword sets the agent nodes pass today all render without error."""
    common = {"statement": "s", "signature": "def f(x)", "entry_point": "f"}
    render("planner", statement="s", signature="def f(x)", techniques="")
    render("generator", **common, plan="")
    render("generator_retry", **common, code="def f(x): pass", feedback="Verdict: wrong_answer", unchanged="")
    render("generator_revise", **common, code="def f(x): pass", review="{}")
    render("single", **common)
    render("reviewer", statement="s", code="c")
    render("test_writer", **common)
    render("test_writer_stdio", **common)
    render("optimizer", statement="s", code="c", entry_point="f")
    render("explainer", statement="s", code="c")


def test_prompts_ask_for_the_formats_the_parsers_read() -> None:
    common = {"statement": "s", "signature": "def add(a, b)", "entry_point": "add"}
    for name in ("generator", "single", "generator_retry", "generator_revise", "optimizer"):
        values = common | {"plan": "", "code": "c", "feedback": "fb", "review": "r", "unchanged": ""}
        text = render(name, **values)
        assert "```python" in text and "`add`" in text
    assert '"severity"' in render("reviewer", statement="s", code="c")
    assert '"args"' in render("test_writer", **common) and '"expected"' in render("test_writer", **common)
    stdio = render("test_writer_stdio", statement="s")
    assert '"input"' in stdio and '"output"' in stdio and "standard input" in stdio


def test_system_prompts() -> None:
    for role in ROLE_DUTIES:
        text = system_prompt(role)
        assert ROLE_DUTIES[role][0] in text and ROLE_DUTIES[role][1] in text
    with pytest.raises(PromptError, match="no system prompt for role 'judge'"):
        system_prompt("judge")


def test_task_values_for_function_and_stdio_problems() -> None:
    function = Problem(id="p1", statement="Add.", entry_point="add", signature="def add(a: int, b: int) -> int")
    assert task_values(function) == {
        "statement": "Add.",
        "signature": "def add(a: int, b: int) -> int",
        "entry_point": "add",
    }
    stdio = Problem(id="p2", statement="Read n, print 2n.")
    values = task_values(stdio)
    assert values["entry_point"] == "solve" and "standard input" in values["signature"]
    assert "call solve()" in render("generator", **values, plan="")


def test_format_review() -> None:
    text = format_review({"invariants": ["i < n"], "potential_failures": ["empty list"], "severity": "high"})
    assert text == "Severity: high\nPotential failures:\n- empty list\nInvariants the code must keep:\n- i < n"


# -- feedback -------------------------------------------------------------------------------------------
def test_feedback_shows_first_failing_call_expected_got_error_and_stderr() -> None:
    results = [
        {"name": "t1", "passed": True, "expected": "1", "got": "1"},
        {"name": "t2", "passed": False, "expected": "[1, 2]", "got": "[2, 1]", "error_class": "wrong_answer"},
        {"name": "t3", "passed": False, "expected": "0", "got": None, "error_class": "runtime_error"},
    ]
    suite = [{"name": "t1", "expr": "f([1])"}, {"name": "t2", "expr": "f([2, 1])"}, {"name": "t3", "expr": "f([])"}]
    text = format_feedback(results, "wrong_answer", "Traceback (most recent call last):\nIndexError: list index", suite)
    assert text == (
        "Verdict: wrong_answer (1 of 3 tests passed)\n"
        "First failing test: f([2, 1])\n"
        "Expected: [1, 2]\n"
        "Got: [2, 1]\n"
        "Error class: wrong_answer\n"
        "Other failing tests: 1\n"
        "stderr (end):\n"
        "Traceback (most recent call last):\n"
        "IndexError: list index"
    )


def test_feedback_uses_the_call_from_the_result_and_per_test_stderr() -> None:
    results = [
        {
            "name": "t1",
            "call": "g(0)",
            "passed": False,
            "error_class": "ZeroDivisionError",
            "stderr": "ZeroDivisionError: division by zero",
        }
    ]
    text = format_feedback(results, "runtime_error", "")
    assert "First failing test: g(0)" in text
    assert "Error class: ZeroDivisionError" in text
    assert text.endswith("stderr (end):\nZeroDivisionError: division by zero")
    assert "Expected" not in text


def test_feedback_for_a_program_that_never_ran_tests() -> None:
    stderr = "  File \"candidate.py\", line 2\n    def f(\n         ^\nSyntaxError: '(' was never closed"
    text = format_feedback([], "syntax_error", stderr)
    assert text == "Verdict: syntax_error\nstderr (end):\n" + stderr


def test_feedback_stdio_test() -> None:
    results = [{"name": "s1", "passed": False, "stdin": "3\n", "expected_stdout": "6\n", "stdout": "5\n"}]
    text = format_feedback(results, "wrong_answer", None)
    assert "Input: 3\n" in text and "Expected: 6\n" in text and "Got: 5\n" in text


def test_feedback_is_capped_and_keeps_the_traceback_end() -> None:
    huge_value = "x" * 5000
    stderr = "\n".join(f"  frame {i}" for i in range(2000)) + "\nRecursionError: maximum recursion depth exceeded"
    results = [{"name": "t", "passed": False, "expected": huge_value, "got": huge_value}]
    text = format_feedback(results, "runtime_error", stderr, max_chars=1500)
    assert len(text) <= 1500
    assert text.endswith("RecursionError: maximum recursion depth exceeded")
    assert "Expected: " + "x" * 297 + "..." in text
    assert "\n...\n" in text  # the cut is marked


def test_feedback_when_everything_passed_but_verdict_failed() -> None:
    text = format_feedback([{"name": "t", "passed": True}], "timeout", "")
    assert text == "Verdict: timeout (1 of 1 tests passed)"
