"""Inputs from the statement's own values and edges, on real HumanEval problems: strings of the words humaneval_19
lists as valid, humaneval_124's date format with the day and month numbers its rules name, a stated range's edge and
one step inside it under an abbreviated name (humaneval_156's `num` for `number`), a count bounded by a list's length
(humaneval_122's `1 <= k <= len(arr)`), and signs tried early; in the real sandbox a wrong program that passes the
original tests fails the amplified ones while EvalPlus's canonical solution passes them."""

from __future__ import annotations

import ast
import random
import re

import pytest

from execugraph.amplify.boundaries import boundary_inputs, sign_inputs
from execugraph.amplify.build import AMPLIFIED_KEY, amplify_problems, candidate_inputs
from execugraph.amplify.panel import bundled_panel
from execugraph.amplify.preconditions import preconditions, statement_prose
from execugraph.amplify.stated_values import (
    keyed_bounds,
    listed_words,
    number_inputs,
    span_inputs,
    stated_numbers,
    word_inputs,
)
from execugraph.amplify.templates import problem_seeds
from execugraph.benchmarks import load_humaneval
from execugraph.domain.problem import Problem
from execugraph.grading.rules import GradingSettings, problem_grading_tests, sandbox_job

DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def _humaneval(problem_id: str) -> Problem:
    return next(p for p in load_humaneval() if p.id == problem_id)


def _args(expr: str) -> tuple:
    call = ast.parse(expr, mode="eval").body
    assert isinstance(call, ast.Call)
    return tuple(ast.literal_eval(a) for a in call.args)


def test_listed_words_become_strings_of_those_words_only() -> None:
    problem = _humaneval("humaneval_19")
    prose = statement_prose(problem)
    assert sorted(listed_words(prose)) == sorted(DIGITS)
    found = word_inputs(prose, problem_seeds(problem), random.Random(0), 20)
    texts = [args[0] for _, args in found]
    assert len(texts) == 20 and all(t and set(t.split(" ")) <= set(DIGITS) and "  " not in t for t in texts)
    assert any(len(t.split(" ")) > len(set(t.split(" "))) for t in texts)  # repeated words too
    assert word_inputs("Return the sum of a list.", problem_seeds(problem), random.Random(0), 20) == []
    stated = [e for e, origin in candidate_inputs(problem, 0, 60)[0] if origin == "stated"]
    assert len(stated) >= 10, stated


def test_a_small_stated_span_is_spelled_out_whole_as_a_list_first() -> None:
    problem = _humaneval("humaneval_105")
    prose = statement_prose(problem)
    seeds = problem_seeds(problem)
    lists = [args[0] for _, args in span_inputs(prose, seeds)]
    assert lists == [[9, 8, 7, 6, 5, 4, 3, 2, 1], [1, 2, 3, 4, 5, 6, 7, 8, 9]]
    assert span_inputs("Return the integers between 1 and 500.", seeds) == []  # too wide to spell out
    assert span_inputs(statement_prose(_humaneval("humaneval_19")), problem_seeds(_humaneval("humaneval_19"))) == []
    kept = candidate_inputs(problem, 0, 30)[0]
    assert kept[0] == ("by_length([9, 8, 7, 6, 5, 4, 3, 2, 1])", "stated")


def test_date_groups_take_the_rules_numbers_at_their_own_width() -> None:
    problem = _humaneval("humaneval_124")
    prose = statement_prose(problem)
    assert {1, 12, 13, 29, 30, 31, 32, 0}.issubset(stated_numbers(prose))
    bounds = keyed_bounds(prose)  # each month with its last day and the day after it
    assert {(12, 31), (12, 32), (4, 30), (11, 31), (2, 29), (2, 30)} <= set(bounds), bounds
    assert keyed_bounds("Return x if 1 <= x <= 10.") == []  # two numbers: a range, no keys
    found = [args[0] for _, args in number_inputs(prose, problem_seeds(problem), random.Random(0), 60)]
    first = found[:30]
    assert all(re.fullmatch(r"\d\d([-/])\d\d\1\d{4}|\d{4}-\d\d(-\d\d)?|\d\d-\d{4}|\d\d-\d-\d{4}", f)
               for f in first), first  # the originals' formats and widths
    assert not any(len(g) == 4 and int(g) < 1000 for f in found for g in re.findall(r"\d+", f))  # years untouched
    months = {int(f[:2]): int(f[3:5]) for f in first if re.fullmatch(r"\d\d-\d\d-\d{4}", f)}
    assert months and all(day in (29, 30, 31, 32) for day in months.values()), months
    stated = [_args(e)[0] for e, origin in candidate_inputs(problem, 0, 60)[0] if origin == "stated"]
    assert len(stated) >= 8, stated


def test_a_range_under_an_abbreviated_name_and_a_count_bounded_by_a_length() -> None:
    roman = _humaneval("humaneval_156")
    rules = preconditions(roman)
    assert rules.violation((1001,)) and rules.violation((0,)) and rules.violation((1000,)) is None
    edges = {args for _, args in boundary_inputs(rules, problem_seeds(roman), 20)}
    assert {(1,), (2,), (999,), (1000,)} <= edges, edges
    elements = _humaneval("humaneval_122")
    rules = preconditions(elements)
    assert rules.violation(([1, 2, 3], 0)) and rules.violation(([1, 2, 3], 4)) and rules.violation(([1, 2, 3], -1))
    assert rules.violation(([1, 2, 3], 3)) is None and rules.violation(([1, 2, 3], 1)) is None
    edges = [args for _, args in boundary_inputs(rules, problem_seeds(elements), 40)]
    assert any(len(arr) == k for arr, k in edges) and any(len(arr) == k + 1 for arr, k in edges)
    kept = [_args(e) for e, _ in candidate_inputs(elements, 0, 60)[0]]
    assert all(1 <= k <= len(arr) for arr, k in kept), [a for a in kept if not 1 <= a[1] <= len(a[0])]


def test_signs_come_early_and_contracts_still_apply() -> None:
    power = _humaneval("humaneval_76")  # judged by the panel: signs allowed
    found = [(e, o) for e, o in candidate_inputs(power, 0, 60)[0]]
    first = [e for e, _ in found[:30]]
    assert any(o == "sign" for _, o in found[:30])
    assert any(_args(e)[0] < 0 for e in first) and any(_args(e)[1] <= 0 for e in first), first
    assert sign_inputs(problem_seeds(power), 100)
    prime = _humaneval("humaneval_31")  # not judged, every original positive: no negative kept
    assert not any(_args(e)[0] < 0 for e, _ in candidate_inputs(prime, 0, 60)[0])


WRONG_DATE = '''
def valid_date(date):
    try:
        month, day, year = (int(p) for p in date.strip().split("-"))
    except ValueError:
        return False
    if not 1 <= month <= 12 or day < 1:
        return False
    return day <= (29 if month == 2 else 30)
'''  # 30 days in every month but February: wrong on the 31st of a long month only


def _evalplus_canonical(problem_id: str) -> str:
    from execugraph.benchmarks.evalplus import load_humaneval_plus

    return load_humaneval_plus(ids=[problem_id])[0].reference or ""


@pytest.mark.integration
@pytest.mark.parametrize("problem_id", ["humaneval_124", "humaneval_76"])
def test_a_wrong_program_passing_the_originals_fails_the_amplified_tests(problem_id: str) -> None:
    """humaneval_124: a program with 30-day long months (the stated month and last-day pairs catch it); humaneval_76:
    HumanEval's own reference, wrong on `is_simple_power(0, 0)` and negative bases, which the signs tried early reach
    and the panel answers. EvalPlus's canonical solution passes both amplified suites."""
    from sandbox import SandboxPool

    problem = _humaneval(problem_id)
    wrong = WRONG_DATE if problem_id == "humaneval_124" else problem.reference or ""
    right = _evalplus_canonical(problem_id)
    with SandboxPool(workers=2) as pool:
        result = amplify_problems(pool, [(problem, problem.reference)], seed=0, per_problem=30,
                                  panel=bundled_panel("humaneval"))[0]
        amplified = result.problem
        assert result.by_origin.get("stated" if problem_id == "humaneval_124" else "sign"), result.by_origin
        settings = GradingSettings()
        jobs = [sandbox_job(problem, wrong, problem_grading_tests(problem), settings),
                sandbox_job(amplified, right, problem_grading_tests(amplified), settings),
                sandbox_job(amplified, wrong, problem_grading_tests(amplified), settings)]
        passes_original, right_amplified, wrong_amplified = pool.run_many(jobs)
    assert passes_original.passed, "the wrong program must pass the original tests"
    assert right_amplified.passed, [t.name for t in right_amplified.tests if not t.passed]
    assert not wrong_amplified.passed
    assert any(t.get(AMPLIFIED_KEY) for t in amplified.tests)
