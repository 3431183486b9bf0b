"""The dashboard's Tests view: per stored amplified suite and problem, how much stronger the tests are.

Why: a rescore under amplified tests changes verdicts only if the tests are really stronger;
this shows, per problem, the original vs amplified counts and mutation scores, which stored
passing programs the new tests fail (and on which input), and where the suite came from.
Counts and provenance are read from the store; mutation scores and stored programs need the
sandbox, so they are computed only when a pool is given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from execugraph.amplify.build import AMPLIFIED_KEY, SUFFIX
from execugraph.domain.problem import Problem
from execugraph.grading.rules import problem_grading_tests

if TYPE_CHECKING:
    from execugraph.store import Store

_PROVENANCE = re.compile(r"amplified by (?P<generator>\S+) \(seed (?P<seed>-?\d+), hypothesis (?P<hypothesis>[^,]+), "
                         r"references sha256 (?P<reference>[0-9a-f]*)\)")


@dataclass
class ProblemTests:
    """One problem's row of the Tests view."""

    problem_id: str
    original: int
    amplified: int
    original_score: float | None = None
    amplified_score: float | None = None
    mutants: int = 0
    programs: int = 0
    programs_failing: int = 0
    failing_input: str = ""

    def to_row(self) -> dict[str, Any]:
        def pct(v: float | None) -> str:
            return "" if v is None else f"{v:.0%}"

        return {"problem": self.problem_id, "original tests": self.original, "amplified inputs": self.amplified,
                "mutation score (original)": pct(self.original_score),
                "mutation score (amplified)": pct(self.amplified_score),
                "stored passing programs": self.programs, "fail amplified": self.programs_failing,
                "failing input": self.failing_input}


@dataclass
class SuiteTests:
    """A whole amplified suite for the Tests view: its provenance and one row per problem."""

    name: str
    base: str
    provenance: dict[str, str] = field(default_factory=dict)
    problems: list[ProblemTests] = field(default_factory=list)


def base_benchmark(name: str) -> str:
    """`internal30+amplified:abc` -> `internal30` (the benchmark the original trials ran on)."""
    return name.split(SUFFIX, 1)[0]


def provenance_of(problems: list[Problem]) -> dict[str, str]:
    """Generator version, seed, Hypothesis version and reference digest, from the problems' rationale lines."""
    for problem in problems:
        found = _PROVENANCE.search(problem.rationale or "")
        if found:
            return {"generator": found["generator"], "seed": found["seed"], "hypothesis": found["hypothesis"],
                    "reference digest": found["reference"]}
    return {}


def original_of(problem: Problem) -> Problem:
    """The problem with its amplified tests removed: the suite as first written."""
    return problem.model_copy(update={"tests": [t for t in problem.tests if not t.get(AMPLIFIED_KEY)]})


def _counts(problem: Problem) -> ProblemTests:
    tests = problem_grading_tests(problem)
    new = sum(1 for t in tests if t.get(AMPLIFIED_KEY))
    return ProblemTests(problem.id, len(tests) - new, new)


def _program_checks(store: Store, pool: Any, base: str, problems: list[Problem],
                    rows: dict[str, ProblemTests]) -> None:
    """Run every stored passing program of each problem on its amplified tests; count failures, keep an input."""
    from execugraph.grading.rules import build_suite
    from execugraph.store.amplified_reads import passing_programs

    plans, jobs = [], []
    for problem in problems:
        new = [t for t in problem_grading_tests(problem) if t.get(AMPLIFIED_KEY)]
        programs = passing_programs(store, base, problem.id)
        rows[problem.id].programs = len(programs)
        if new and programs:
            suite = build_suite(problem, new, "standalone")
            plans += [problem.id] * len(programs)
            jobs += [(code, suite) for code in programs]
    for pid, result in zip(plans, pool.run_many(jobs) if jobs else [], strict=True):
        if not result.passed:
            row = rows[pid]
            row.programs_failing += 1
            failed = next((t for t in result.tests if not t.passed), None)
            if failed is not None and not row.failing_input:
                row.failing_input = failed.call or failed.name


def suite_tests(store: Store, name: str, pool: Any = None) -> SuiteTests:
    """The Tests view of one stored amplified suite; with a sandbox `pool`, mutation scores and program checks too."""
    from execugraph.amplify.stored import suite_problems

    problems = suite_problems(store, name)
    out = SuiteTests(name, base_benchmark(name), provenance_of(problems))
    rows = {p.id: _counts(p) for p in problems}
    out.problems = list(rows.values())
    if pool is None or not problems:
        return out
    from execugraph.amplify.adequacy import suite_adequacy
    from execugraph.amplify.references import reference_for

    references = {}
    for problem in problems:
        ref = reference_for(problem.model_copy(update={"benchmark": out.base}))
        if ref:
            references[problem.id] = ref
    scores = suite_adequacy(pool, [original_of(p) for p in problems], problems, references).problems
    for pid, score in scores.items():
        if score.mutants:
            rows[pid].mutants = score.mutants
            rows[pid].original_score = score.original_killed / score.mutants
            rows[pid].amplified_score = score.amplified_killed / score.mutants
    _program_checks(store, pool, out.base, problems, rows)
    return out
