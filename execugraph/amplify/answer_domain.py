"""What the original tests' answers imply about valid inputs: a new input whose reference answer lies outside them is
dropped (a negative count where every original answer and input is non-negative, a None among numbers).

Why: an input outside the problem's domain often shows in the answer rather than in the input: "19 - 5 - 6 = 8 mango
fruits" with 1 fruit in the basket gives -10 fruits, and a reference that falls through its branches returns None.
Such an answer is the reference's accident, not the problem's, and makes it "expected" for correct programs that
answer otherwise. The original tests' own answers (the literals they compare with, read from each `call` test's
`expected` and from `assert candidate(...) == <literal>` lines) show the kinds and signs a valid answer has.
Conservative: a rule needs `MIN_ANSWERS` original answers all agreeing, and nothing is run.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from execugraph.amplify.expected import Answer
from execugraph.amplify.templates import problem_seeds
from execugraph.domain.problem import Problem
from execugraph.parsing import parse_python

MIN_ANSWERS = 3  # original answers needed before they say anything about new ones


def _kind(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"  # an int answer where the originals show floats (or back) is the same kind
    if isinstance(value, list | tuple | set | frozenset):
        return "sequence"  # tuples and sets are read back from the sandbox as JSON lists
    return type(value).__name__


def _numbers(value: Any) -> list[float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [value]
    if isinstance(value, list | tuple | set | frozenset):
        return [n for v in value for n in _numbers(v)]
    if isinstance(value, dict):
        return [n for kv in value.items() for v in kv for n in _numbers(v)]
    return []


def _literal(node: ast.expr) -> tuple[bool, Any]:
    try:
        return True, ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


def _calls_entry(node: ast.expr, names: set[str]) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names


def _from_check(source: str, names: set[str]) -> list[Any]:
    """The literals a check function compares a call of the candidate with (`assert candidate(x) == 3`)."""
    try:
        tree = parse_python(source)
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq)):
            continue
        left, right = node.left, node.comparators[0]
        for call, other in ((left, right), (right, left)):
            if _calls_entry(call, names):
                ok, value = _literal(other)
                if ok:
                    out.append(value)
                break
    return out


def original_answers(problem: Problem) -> list[Any]:
    """The answers the problem's original tests expect, where they are literals."""
    names = {"candidate", *(n for n in [problem.entry_point, *problem.aliases] if n)}
    out: list[Any] = []
    for test in problem.tests:
        if test.get("kind", "call") == "call" and "expected" in test and test.get("expected") is not None:
            out.append(test["expected"])
        elif test.get("kind") == "assert":
            out += _from_check(str(test.get("source", "")), names)
    return out


@dataclass(frozen=True)
class AnswerDomain:
    """The kinds of answer the originals show, and whether their numbers are all non-negative (None: no rule)."""

    kinds: frozenset[str] | None = None
    non_negative: bool = False

    def violation(self, value: Any) -> str | None:
        """Why a reference answer says its input is outside the problem's domain, or None."""
        kind = _kind(value)
        if self.kinds is not None and kind not in self.kinds:
            return f"reference answers a {kind} where every original answer is a {'/'.join(sorted(self.kinds))}"
        if self.non_negative and kind == "number" and value < 0:
            return "reference answers a negative number where every original answer is non-negative"
        return None


def answer_domain(problem: Problem) -> AnswerDomain:
    """The rule the problem's original answers support (empty when there are fewer than `MIN_ANSWERS`)."""
    answers = original_answers(problem)
    if len(answers) < MIN_ANSWERS:
        return AnswerDomain()
    kinds = frozenset(_kind(a) for a in answers)
    numbers = [a for a in answers if _kind(a) == "number"]
    inputs = [n for seed in problem_seeds(problem) for n in _numbers(seed.args)]
    # a negative answer is only ruled out where no original input holds a negative number either (a maximum of
    # lists with negatives may be negative even when every example's maximum is not)
    non_negative = kinds == {"number"} and all(n >= 0 for n in numbers) and all(n >= 0 for n in inputs)
    return AnswerDomain(kinds, non_negative)


def within_answer_domain(problem: Problem, answers: list[Answer]) -> list[Answer]:
    """The answers with those outside the originals' answer domain turned into drops (naming why)."""
    domain = answer_domain(problem)
    if domain.kinds is None:
        return answers
    out = []
    for answer in answers:
        why = domain.violation(answer.test.get("expected")) if answer.test is not None else None
        out.append(Answer(answer.expr, dropped=why) if why else answer)
    return out
