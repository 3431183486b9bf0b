"""Input domains the statement gives in words and the examples show: spacing in "separated by spaces" strings, and a
list that holds what "the largest prime" presumes.

Why: "a space-delimited string of numberals" or "groups separated by spaces" says where spaces go, and every example
shows it (one space between words, a space only between two groups); a new input with a run of spaces, or a space
inside a group, asks what the statement never answers, so the reference's answer there is an accident. "Find the
largest prime value" of a list presumes there is one; a list without a prime is outside the problem. Both rules are
read from the statement's own text and examples (never from another benchmark), and, like the other preconditions,
a rule more than a fifth of the original inputs break is a misreading and is set aside.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from execugraph.amplify.preconditions import is_prime
from execugraph.amplify.templates import Seed

SPACED = re.compile(r"separated by (?:a )?spaces?|space[- ](?:separated|delimited)|separated with (?:a )?spaces?")
PRESUMED_PRIME = re.compile(r"\b(?:largest|smallest|biggest|greatest|maximum|minimum) prime (?:value|number)s?\b")
CONTRADICTED_SHARE = 0.2  # as in `preconditions`


def _cls(ch: str) -> str:
    if ch.isalpha():
        return "a"
    if ch.isdigit():
        return "0"
    return ch


def space_flanks(text: str) -> set[tuple[str, str]]:
    """(what precedes, what follows) each space of `text`, letters as 'a', digits as '0', the ends as '^' and '$'."""
    out = set()
    for i, ch in enumerate(text):
        if ch == " ":
            before = _cls(text[i - 1]) if i else "^"
            after = _cls(text[i + 1]) if i + 1 < len(text) else "$"
            out.add((before, after))
    return out


@dataclass
class TextDomain:
    """Per argument position: the space flanks the examples allow (None: no rule), and whether a prime must occur."""

    flanks: dict[int, set[tuple[str, str]]] = field(default_factory=dict)
    needs_prime: set[int] = field(default_factory=set)

    def violation(self, args: tuple[Any, ...]) -> str | None:
        """Why `args` is outside the statement's words and examples, or None."""
        for position, allowed in self.flanks.items():
            value = args[position] if position < len(args) else None
            if isinstance(value, str) and not space_flanks(value) <= allowed:
                return "spaces placed as no example of a space-separated string places them"
        for position in self.needs_prime:
            value = args[position] if position < len(args) else None
            if isinstance(value, list) and not any(isinstance(v, int) and is_prime(v) for v in value):
                return "no prime in the list, where the statement presumes one"
        return None


def _kept(originals: list[tuple[Any, ...]], rule: TextDomain) -> bool:
    broken = sum(1 for args in originals if rule.violation(args))
    return broken <= CONTRADICTED_SHARE * len(originals)


def text_domain(statement: str, seeds: list[Seed]) -> TextDomain:
    """The rules the statement's words support, checked against the original inputs (`seeds`)."""
    low = " ".join(statement.lower().split())
    originals = [s.args for s in seeds]
    if not originals:
        return TextDomain()
    arity = max({len(a) for a in originals}, key=lambda n: sum(1 for a in originals if len(a) == n))
    same = [a for a in originals if len(a) == arity]
    out = TextDomain()
    if SPACED.search(low):
        for position in range(arity):
            texts = [a[position] for a in same if isinstance(a[position], str)]
            if texts and len(texts) == len(same) and any(" " in t for t in texts):
                rule = TextDomain(flanks={position: set().union(*(space_flanks(t) for t in texts))})
                if _kept(same, rule):
                    out.flanks.update(rule.flanks)
    if PRESUMED_PRIME.search(low):
        for position in range(arity):
            if all(isinstance(a[position], list) for a in same):
                rule = TextDomain(needs_prime={position})
                if _kept(same, rule):
                    out.needs_prime.add(position)
    return out
