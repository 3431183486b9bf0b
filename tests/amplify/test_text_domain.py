"""Domains the statement gives in words, on real HumanEval problems: spaces where the examples of a "separated by
spaces" string put them (humaneval_6, 19), and a list holding the prime "the largest prime value" presumes
(humaneval_94); each rule drops one input and keeps another, and amplification never proposes a dropped one."""

from __future__ import annotations

from execugraph.amplify.build import candidate_inputs
from execugraph.amplify.templates import problem_seeds
from execugraph.amplify.text_domain import space_flanks, text_domain
from execugraph.benchmarks import load_humaneval
from execugraph.domain.problem import Problem


def _humaneval(problem_id: str) -> Problem:
    return next(p for p in load_humaneval() if p.id == problem_id)


def _domain(problem_id: str):
    problem = _humaneval(problem_id)
    return text_domain(problem.statement, problem_seeds(problem))


def test_space_flanks() -> None:
    assert space_flanks("ab  c") == {("a", " "), (" ", "a")}
    assert space_flanks(" (a) ") == {("^", "("), (")", "$")}
    assert space_flanks("") == set()


def test_spaces_inside_a_group_and_runs_of_spaces_are_dropped() -> None:
    groups = _domain("humaneval_6")
    assert groups.violation(("( )( ())",)) and groups.violation(("(()())  ((()))",))
    assert groups.violation(("(()) ((())) ()",)) is None and groups.violation(("",)) is None
    numbers = _domain("humaneval_19")
    assert numbers.violation(("three  one  five",)) and numbers.violation((" one",))
    assert numbers.violation(("three one five nine",)) is None


def test_a_list_without_the_presumed_prime_is_dropped() -> None:
    digits = _domain("humaneval_94")
    assert digits.violation(([0],)) and digits.violation(([1, 4, 6, 8],))
    assert digits.violation(([0, 3, 8],)) is None
    assert not _domain("humaneval_59").needs_prime  # "largest prime factor of n": a number, no list


def test_statements_without_those_words_get_no_rule() -> None:
    plain = _domain("humaneval_0")
    assert not plain.flanks and not plain.needs_prime


def test_amplification_proposes_no_input_outside_the_words() -> None:
    for problem_id, bad in (("humaneval_19", "  "), ("humaneval_6", "( ")):
        found, dropped = candidate_inputs(_humaneval(problem_id), 0, 60)
        assert not any(bad in expr for expr, _ in found), [e for e, _ in found if bad in e]
        assert any("space-separated" in why for why in dropped), dropped
    found, dropped = candidate_inputs(_humaneval("humaneval_94"), 0, 60)
    assert any("presumes" in why for why in dropped), dropped
