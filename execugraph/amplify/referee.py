"""HumanEval+ as the referee of an amplified HumanEval suite: which false passes it catches, which correct programs
it fails.

Why: a mutation score cannot show that a stronger suite fails correct programs (an input outside the
problem's domain answered by the reference still kills mutants). Judged against HumanEval+ instead,
two shares matter: of the programs that pass HumanEval's tests but fail HumanEval+ (false passes), how
many the amplified suite fails (caught); of the programs HumanEval+ passes, how many the amplified
suite fails (false alarms). Without the paper's programs the corpus is built here, of programs that pass
the original tests: each canonical solution (the amplifier's reference), EvalPlus's own canonical
solution where its text differs, the one-change mutants of EvalPlus's solution (written to be correct,
with one small mistake; not of the amplifier's reference, whose own bugs they would inherit), and any
extra programs given (`extra`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from execugraph.amplify.adequacy import MUTANT_CPU_S, mutants
from execugraph.amplify.references import reference_for
from execugraph.domain.problem import Problem
from execugraph.grading.rules import GradingSettings, build_suite, problem_grading_tests
from execugraph.parsing import parse_python

MUTANTS_PER_PROBLEM = 24
PLUS_CPU_S = 20.0  # CPU seconds per HumanEval+ chunk (a few hundred inputs in one test)


@dataclass(frozen=True)
class Program:
    """One program of the corpus: its problem, where it comes from, its code."""

    problem_id: str
    origin: str  # "canonical", "evalplus-canonical", "mutant: <description>", or the extra's label
    code: str


@dataclass
class RefereeReport:
    """The corpus judged three ways, and the two shares."""

    corpus: dict[str, int]  # origin kind -> programs
    false_passes: list[Program] = field(default_factory=list)  # pass the originals, fail HumanEval+
    caught: list[Program] = field(default_factory=list)  # ... and fail the amplified suite
    plus_passed: list[Program] = field(default_factory=list)  # pass HumanEval+
    false_alarms: list[tuple[Program, str]] = field(default_factory=list)  # ... but fail the amplified suite (input)
    wrong_reference: set[str] = field(default_factory=set)  # problems whose reference itself fails HumanEval+

    @property
    def caught_share(self) -> float:
        return len(self.caught) / len(self.false_passes) if self.false_passes else 1.0

    @property
    def false_alarm_share(self) -> float:
        return len(self.false_alarms) / len(self.plus_passed) if self.plus_passed else 0.0

    def without_wrong_references(self) -> RefereeReport:
        """The same figures over the problems whose reference passes HumanEval+ (an amplified suite answers new
        inputs as its reference does, so where the reference is wrong it cannot catch what shares its mistake)."""
        def ok(program: Program) -> bool:
            return program.problem_id not in self.wrong_reference

        return RefereeReport(self.corpus, [p for p in self.false_passes if ok(p)], [p for p in self.caught if ok(p)],
                             [p for p in self.plus_passed if ok(p)], [a for a in self.false_alarms if ok(a[0])])


def _same_code(a: str, b: str) -> bool:
    try:
        return ast.dump(parse_python(a)) == ast.dump(parse_python(b))
    except SyntaxError:
        return a.strip() == b.strip()


def _limits(cpu_s: float) -> Any:
    from sandbox import Limits

    return Limits(timeout_s=cpu_s, suite_timeout_s=max(10 * cpu_s, 60.0), stop_after_timeout=False)


def plus_problems(pool: Any, ids: list[str]) -> tuple[dict[str, Problem], dict[str, str]]:
    """HumanEval+'s problems with expected outputs (`evalplus.with_expected`), and those whose canonical outputs
    could not be computed, with why (they are left out of the referee, and named)."""
    from execugraph.benchmarks.errors import BenchmarkError
    from execugraph.benchmarks.evalplus import load_humaneval_plus, with_expected

    problems = load_humaneval_plus(ids=ids)
    try:
        return {p.id: p for p in with_expected(problems, pool)}, {}
    except BenchmarkError:
        pass
    done, skipped = {}, {}
    for problem in problems:
        try:
            done[problem.id] = with_expected([problem], pool)[0]
        except BenchmarkError as exc:
            skipped[problem.id] = str(exc)
    return done, skipped


def build_corpus(pool: Any, originals: list[Problem], plus: dict[str, Problem],
                 extra: dict[str, list[tuple[str, str]]] | None = None,
                 per_problem: int = MUTANTS_PER_PROBLEM) -> list[Program]:
    """The programs that pass each problem's original tests: its reference, EvalPlus's canonical solution where
    it differs, that solution's mutants (up to `per_problem` tried) and the `extra` (problem id -> (label, code))."""
    candidates: list[Program] = []
    for problem in originals:
        reference = reference_for(problem)
        if not reference:
            continue
        candidates.append(Program(problem.id, "canonical", reference))
        theirs = plus[problem.id].reference if problem.id in plus else None
        if theirs and not _same_code(theirs, reference):
            candidates.append(Program(problem.id, "evalplus-canonical", theirs))
        base = theirs or reference  # mutants of the referee's own solution: wrong only where they differ from it
        candidates += [Program(problem.id, f"mutant: {d}", code) for d, code in mutants(base, per_problem)]
        candidates += [Program(problem.id, label, code) for label, code in (extra or {}).get(problem.id, [])]
    by_id = {p.id: p for p in originals}
    jobs = [(c.code, build_suite(by_id[c.problem_id], problem_grading_tests(by_id[c.problem_id]), "standalone"),
             _limits(MUTANT_CPU_S)) for c in candidates]
    results = pool.run_many(jobs) if jobs else []
    return [c for c, r in zip(candidates, results, strict=True) if r.passed]


def plus_verdicts(pool: Any, plus: dict[str, Problem], corpus: list[Program]) -> list[bool]:
    """Whether each program passes HumanEval+ (its base and plus inputs, judged EvalPlus's way)."""
    from execugraph.benchmarks.evalplus import PLUS_SET, tests_of_set

    jobs = [(c.code, build_suite(plus[c.problem_id], tests_of_set(plus[c.problem_id], PLUS_SET), "standalone"),
             _limits(PLUS_CPU_S)) for c in corpus]
    return [r.passed for r in (pool.run_many(jobs) if jobs else [])]


def amplified_verdicts(pool: Any, amplified: dict[str, Problem], corpus: list[Program],
                       settings: GradingSettings | None = None) -> list[tuple[bool, str]]:
    """(passes, the first amplified input it fails or '') for each program on its problem's amplified suite."""
    from execugraph.grading.rules import sandbox_job

    settings = settings or GradingSettings()
    jobs = [sandbox_job(amplified[c.problem_id], c.code, problem_grading_tests(amplified[c.problem_id]), settings)
            for c in corpus]
    out = []
    for c, result in zip(corpus, pool.run_many(jobs) if jobs else [], strict=True):
        tests = problem_grading_tests(amplified[c.problem_id])
        failed = next((t for t, r in zip(tests, result.tests, strict=False) if not r.passed), None)
        out.append((result.passed, str(failed.get("expr") or failed.get("name")) if failed else ""))
    return out


def judge(pool: Any, originals: list[Problem], plus: dict[str, Problem], amplified: dict[str, Problem],
          extra: dict[str, list[tuple[str, str]]] | None = None,
          per_problem: int = MUTANTS_PER_PROBLEM) -> RefereeReport:
    """The corpus built, judged by HumanEval+ and by the amplified suite, and the two shares."""
    chosen = [p for p in originals if p.id in plus and p.id in amplified]
    corpus = build_corpus(pool, chosen, plus, extra, per_problem)
    kinds: dict[str, int] = {}
    for c in corpus:
        kind = c.origin.split(":", 1)[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    report = RefereeReport(kinds)
    for program, by_plus, (by_amplified, failed) in zip(corpus, plus_verdicts(pool, plus, corpus),
                                                        amplified_verdicts(pool, amplified, corpus), strict=True):
        if program.origin == "canonical" and not by_plus:
            report.wrong_reference.add(program.problem_id)
        if by_plus:
            report.plus_passed.append(program)
            if not by_amplified:
                report.false_alarms.append((program, failed))
        else:
            report.false_passes.append(program)
            if not by_amplified:
                report.caught.append(program)
    return report
