"""One amplified problem, and a whole amplified benchmark: name, digest, provenance, stored like any suite.

Why: an amplified suite is a new version of a benchmark, so it must be named and
pinned by digest (a rescore records which one graded it) and must say how it was made
(generator version, seed, reference digest, what was added and dropped per problem, why).
Original tests come first and unchanged; new ones are call tests marked `"amplified"`
(with their origin), which grade but never feed a trial's loop (`grading.loop_tests`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from execugraph.amplify.answer_domain import within_answer_domain
from execugraph.amplify.boundaries import boundary_inputs, sign_inputs
from execugraph.amplify.contracts import Shape, arg_shapes, violation
from execugraph.amplify.expected import Answer, reference_answers_many
from execugraph.amplify.mutation import mutated_inputs, problem_rng
from execugraph.amplify.panel import PANEL_MIN, bundled_panel
from execugraph.amplify.preconditions import RULES_VERSION, preconditions, statement_prose
from execugraph.amplify.properties import draw_inputs
from execugraph.amplify.references import reference_digest, reference_for
from execugraph.amplify.stated_values import number_inputs, span_inputs, word_inputs
from execugraph.amplify.templates import Seed, Template, answers_may_differ, problem_seeds
from execugraph.amplify.text_domain import text_domain
from execugraph.domain.json_types import JsonObject
from execugraph.domain.problem import Problem
from execugraph.grading.rules import GradingSettings, problem_grading_tests, suite_digest

# 2: no Hypothesis constants from our own modules (same seed, same inputs in any process); 3: numeric strings, space
# runs, a swapped start, float midpoints, reordered and paired arguments, repeated seeds once, tiny inputs capped;
# 4: inputs outside the statement's preconditions dropped (`preconditions`), boundary inputs within them, inputs
# where independent passing programs disagree with the reference dropped (`agreement`)
# 5: the statement's examples the original tests never grade become new inputs ("example")
# 6: a panel answers where the reference raises or runs out of time (`panel`); where a panel judges a problem, its
# inputs may be empty where no original is, and each integer argument is also tried four times larger ("scaled");
# a list of numbers with a float also tried as the statement's own decimal numbers (its thresholds: "statement")
# 7: the statement's listed words and its rule numbers in a format's digit groups ("stated", `stated_values`); signs,
# ties and in-place repeats of the originals early ("sign"); a stated range's edges and one step inside them
# 8: a list of integers holding every value of a small span the statement names ("between 1 and 9"), first ("stated")
GENERATOR_VERSION = "amplify-8"  # with `preconditions.RULES_VERSION`, part of the digest
DEFAULT_PER_PROBLEM = 30
DRAWS = 5  # Hypothesis examples drawn per new input wanted
SUFFIX = "+amplified"
AMPLIFIED_KEY = "amplified"  # on a test: its origin ("example" | "scaled" | "statement" | "boundary" | ...); only grades
OVER = "over --per-problem"  # a candidate not needed: enough were kept before it
FIRST_ROUND_MIN_MARGIN = 4  # candidates answered beyond --per-problem in the first round, at least
# contracts only the originals' signs imply: where a panel judges the problem's answers it judges these inputs too
SIGN_CONTRACTS = ("not positive (every original is)", "negative (no original is)", "empty (no original is)")
SCALE = 4  # where a panel judges a problem, each integer argument of an original is also tried this many times larger
SCALED_MAX = 4  # ... for the first few originals' arguments only (the other generators keep their share)
_DECIMAL = re.compile(r"(?<![\w.])-?\d+\.\d+(?![\w.])")
TINY_KEPT = 3  # tiny inputs (every string or collection argument of length <= 1) kept in place; more go last


@dataclass
class ProblemAmplification:
    """What amplification did to one problem."""

    problem: Problem
    original: int
    added: int = 0
    by_origin: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    note: str = ""

    def to_dict(self) -> JsonObject:
        """This problem's line of the suite's provenance (JSON)."""
        return {"original": self.original, "added": self.added, "by_origin": dict(self.by_origin),
                "dropped": dict(sorted(self.dropped.items())), "note": self.note}


@dataclass
class AmplifiedSuite:
    """An amplified benchmark: its stored name, digest, provenance and problems."""

    benchmark: str
    name: str
    digest: str
    provenance: JsonObject  # what `amplify --json` prints and a rescore records (`provenance_text`)
    problems: list[ProblemAmplification]

    def stored_problems(self) -> list[Problem]:
        return [p.problem for p in self.problems]


def _seed_int(seed: int, problem_id: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}:{problem_id}:hypothesis".encode()).digest()[:4], "big")


def _by_arity(seeds: list[Seed]) -> dict[int, list[Shape]]:
    groups: dict[int, list[tuple[Any, ...]]] = {}
    for seed in seeds:
        groups.setdefault(len(seed.args), []).append(seed.args)
    return {arity: arg_shapes(args) for arity, args in groups.items()}


def _scaled(seeds: list[Seed]) -> list[tuple[Seed, tuple[Any, ...]]]:
    """Each original with one integer argument (|n| >= 2) made `SCALE` times larger: inputs where a slow reference
    runs out of time and a panel answers."""
    out = []
    for seed in seeds:
        for i, value in enumerate(seed.args):
            if type(value) is int and abs(value) >= 2:
                out.append((seed, seed.args[:i] + (value * SCALE,) + seed.args[i + 1:]))
    return out


def _statement_values(statement: str, seeds: list[Seed]) -> list[tuple[Seed, tuple[Any, ...]]]:
    """Each original whose argument is a list of numbers holding a float, with that list replaced by the decimal
    numbers the statement names (in its order, once each; a grading table's thresholds), and reversed."""
    found = list(dict.fromkeys(float(m) for m in _DECIMAL.findall(statement)))
    if len(found) < 2:
        return []
    out = []
    for seed in seeds:
        for i, value in enumerate(seed.args):
            numbers = isinstance(value, list) and value and all(type(v) in (int, float) for v in value)
            if numbers and any(type(v) is float for v in value):
                out += [(seed, seed.args[:i] + (list(v),) + seed.args[i + 1:]) for v in (found, found[::-1])]
    return out


def candidate_inputs(problem: Problem, seed: int, limit: int,
                     judged: bool | None = None) -> tuple[list[tuple[str, str]], Counter]:
    """Up to `limit` (expression, origin) new inputs, mutation and Hypothesis interleaved, within the contract;
    and the counts of those dropped before running anything (contract, duplicate). `judged`: whether a panel
    answers the problem's inputs (None: whether the bundled panel has `PANEL_MIN` members for it)."""
    seeds = problem_seeds(problem)
    dropped: Counter = Counter()
    if not seeds:
        return [], dropped
    shapes = _by_arity(seeds)
    main = max(shapes, key=lambda a: sum(1 for s in seeds if len(s.args) == a))
    template: Template = next(s.template for s in seeds if len(s.args) == main)
    rules = preconditions(problem, seeds)
    words = text_domain(problem.statement, seeds)
    if judged is None:  # a panel answers signs and empties too
        judged = len(bundled_panel(problem.benchmark).get(problem.id, [])) >= PANEL_MIN
    edges = boundary_inputs(rules, [s for s in seeds if len(s.args) == main], limit // 3)
    mutated = mutated_inputs(seeds, problem_rng(seed, problem.id, "mutation"), limit * 3)
    pool = draw_inputs(shapes[main], _seed_int(seed, problem.id), limit * DRAWS)
    simple, rest = pool[: limit // 4], pool[limit // 4 :]  # Hypothesis starts simple (small, boundary values)
    problem_rng(seed, problem.id, "hypothesis").shuffle(rest)  # then take from all it drew
    pool = simple + rest
    drawn = [(Seed(template, args), args) for args in pool]
    graded = problem_grading_tests(problem)
    seen = {s.template.render(s.args) for s in problem_seeds(problem.model_copy(update={"tests": graded}))}
    seen |= {t["expr"] for t in graded if isinstance(t.get("expr"), str)}
    examples = [(s, s.args, "example") for s in seeds if s.template.render(s.args) not in seen]  # shown, not graded
    signs = [(s, a, "sign") for s, a in sign_inputs([s for s in seeds if len(s.args) == main], limit)]
    streams = [examples, [(s, a, "boundary") for s, a in edges], signs, [(s, a, "mutation") for s, a in mutated],
               [(s, a, "hypothesis") for s, a in drawn]]
    own = [s for s in seeds if len(s.args) == main]
    streams.insert(1, [(s, a, "statement") for s, a in _statement_values(problem.statement, own)])
    prose, stated_rng = statement_prose(problem), problem_rng(seed, problem.id, "stated")
    streams.insert(1, [(s, a, "stated") for s, a in span_inputs(prose, own) + word_inputs(prose, own, stated_rng, limit)
                       + number_inputs(prose, own, stated_rng, limit)])
    if judged:
        streams.insert(1, [(s, a, "scaled") for s, a in _scaled(own)[:SCALED_MAX]])
    out: list[tuple[str, str]] = []
    tiny: list[tuple[str, str]] = []  # Hypothesis starts with many one-element inputs that test one corner
    while len(out) < limit and any(streams):
        for stream in streams:
            if not stream or len(out) >= limit:
                continue
            source, args, origin = stream.pop(0)
            why = violation(shapes[len(source.args)], args)
            if why and not (judged and why.endswith(SIGN_CONTRACTS)):
                dropped[f"breaks contract ({why.split(':', 1)[-1].strip()})"] += 1
                continue
            why = rules.violation(args) if len(args) == len(rules.names) else None
            why = why or words.violation(args)
            if why:
                dropped[f"outside the statement ({why})"] += 1
                continue
            expr = source.template.render(args)
            if expr in seen:
                dropped["duplicate"] += 1
                continue
            seen.add(expr)
            if _tiny(args):
                tiny.append((expr, origin))
                if len(tiny) > TINY_KEPT:
                    continue
            out.append((expr, origin))
    out += tiny[TINY_KEPT:]
    return out[:limit], dropped


def _tiny(args: tuple[Any, ...]) -> bool:
    """Whether every string or collection argument (there is one) holds at most one element."""
    sized = [a for a in args if isinstance(a, str | list | tuple | dict)]
    return bool(sized) and all(len(a) <= 1 for a in sized)


def _plan(problem: Problem, reference: str | None, seed: int, per_problem: int, benchmark: str,
          judged: bool | None = None) -> tuple[ProblemAmplification, list[tuple[str, str]], Counter]:
    """The problem's result so far, its candidate inputs and what was dropped before running anything."""
    original = len(problem_grading_tests(problem))
    result = ProblemAmplification(problem.model_copy(update={"benchmark": benchmark}), original)
    if not reference:
        result.note = "no reference solution: nothing added (see differential mode)"
        return result, [], Counter()
    why = answers_may_differ(problem)
    if why:
        result.note = f"not amplified: correct answers may differ ({why})"
        return result, [], Counter()
    candidates, dropped = candidate_inputs(problem, seed, per_problem * 2, judged)
    if not candidates:
        result.note = "no test with literal arguments to vary"
    return result, candidates, dropped


def _finish(result: ProblemAmplification, candidates: list[tuple[str, str]], answers: list[Any],
            dropped: Counter, per_problem: int) -> ProblemAmplification:
    new_tests: list[JsonObject] = []  # sandbox tests
    for (_expr, origin), answer in zip(candidates, answers, strict=True):
        if answer.test is None:
            dropped[answer.dropped] += 1
        elif len(new_tests) < per_problem:
            new_tests.append({"name": f"amplified {len(new_tests) + 1} ({origin})", **answer.test,
                              AMPLIFIED_KEY: origin})
        else:
            dropped[OVER] += 1
    result.added = len(new_tests)
    result.by_origin = dict(Counter(t[AMPLIFIED_KEY] for t in new_tests))
    result.dropped = dict(dropped)
    result.problem = result.problem.model_copy(update={"tests": [*result.problem.tests, *new_tests]})
    return result


def search_candidates(problem: Problem, seed: int, limit: int) -> list[str]:
    """The expressions of up to `limit` candidate inputs (none where correct answers may differ): what the
    distinguishability search answers, planned like amplify's own (`plan_worker.in_workers`)."""
    if answers_may_differ(problem):
        return []
    return [expr for expr, _ in candidate_inputs(problem, seed, limit)[0]]


def _answer_rounds(pool: Any, items: list[tuple[Problem, str | None]], candidates: list[list[str]],
                   per_problem: int, settings: GradingSettings | None) -> list[list[Any]]:
    """Each candidate's answer, in order, reference-run only as far as needed. The first round answers (and
    confirms) `per_problem` + a margin of each problem's candidates; a problem left short after its drops gets
    all the rest answered in a second round. What is kept is what answering every candidate would keep (the
    first `per_problem` confirmed, in candidate order); a candidate never answered counts as over --per-problem."""
    margin = max(FIRST_ROUND_MIN_MARGIN, per_problem // 5)
    out: list[list[Any]] = [[Answer(e, dropped=OVER) for e in exprs] for exprs in candidates]
    start = [0] * len(items)
    for first in (True, False):
        todo = []
        for i, exprs in enumerate(candidates):
            kept = sum(1 for a in out[i][: start[i]] if a.test is not None)
            if start[i] < len(exprs) and kept < per_problem:
                end = start[i] + per_problem + margin if first else len(exprs)
                todo.append((i, start[i], min(end, len(exprs))))
        if not todo:
            break
        found = reference_answers_many(
            pool, [(items[i][0], items[i][1] or "", candidates[i][lo:hi]) for i, lo, hi in todo], settings)
        for (i, lo, hi), answers in zip(todo, found, strict=True):
            out[i][lo:hi] = answers
            start[i] = hi
    return out


def amplify_problems(pool: Any, items: list[tuple[Problem, str | None]], *, seed: int = 0,
                     per_problem: int = DEFAULT_PER_PROBLEM, settings: GradingSettings | None = None,
                     benchmark: str = "", witnesses: dict[str, list[str]] | None = None,
                     panel: dict[str, list[tuple[str, str]]] | None = None) -> list[ProblemAmplification]:
    """Each problem with up to `per_problem` new tests after its own, answered by its reference (None: none
    added); the references run in at most two rounds of two batches of sandbox jobs for all the problems.
    `witnesses` (problem id -> programs passing its original tests) drop the inputs they dispute (`agreement`);
    `panel` (problem id -> [(author, code)]) drops inputs it splits on and answers where it outvotes the reference."""
    from execugraph.amplify.plan_worker import in_workers

    plans = in_workers("plan", [(p, ref, seed, per_problem, benchmark or p.benchmark + SUFFIX,
                                 len((panel or {}).get(p.id, [])) >= PANEL_MIN) for p, ref in items])
    answers = _answer_rounds(pool, items, [[e for e, _ in cands] for _, cands, _ in plans], per_problem, settings)
    answers = [within_answer_domain(problem, found) for (problem, _), found in zip(items, answers, strict=True)]
    panel_notes = [""] * len(items)
    if panel and any(panel.get(problem.id) for problem, _ in items):
        from execugraph.amplify.panel import panel_many

        answers, outcomes = panel_many(pool, [(problem, found, panel.get(problem.id, []))
                                              for (problem, _), found in zip(items, answers, strict=True)], settings)
        panel_notes = [o.note() for o in outcomes]
        answers = [within_answer_domain(problem, found) for (problem, _), found in zip(items, answers, strict=True)]
    trusted = [0] * len(items)
    if witnesses:
        from execugraph.amplify.agreement import agree_many

        answers, trusted = agree_many(pool, [(problem, found, witnesses.get(problem.id, []))
                                             for (problem, _), found in zip(items, answers, strict=True)])
    out = []
    for (result, cands, dropped), found, n, said in zip(plans, answers, trusted, panel_notes, strict=True):
        if said:
            result.note = f"{result.note} {said}".strip()
        if n:
            result.note = f"{result.note} {n} independent solution(s) agreed almost everywhere".strip()
        out.append(_finish(result, cands, found, dropped, per_problem))
    return out


def amplify_problem(pool: Any, problem: Problem, reference: str | None, *, seed: int = 0,
                    per_problem: int = DEFAULT_PER_PROBLEM, settings: GradingSettings | None = None,
                    benchmark: str | None = None) -> ProblemAmplification:
    """One problem amplified (see `amplify_problems`)."""
    return amplify_problems(pool, [(problem, reference)], seed=seed, per_problem=per_problem, settings=settings,
                            benchmark=benchmark or "")[0]


def suite_of(problems: list[Problem]) -> str:
    """The digest of a benchmark version: every problem's id and grading tests."""
    return suite_digest([{"id": p.id, "tests": problem_grading_tests(p)} for p in problems])


def amplify_benchmark(pool: Any, benchmark: str, problems: list[Problem], *, seed: int = 0,
                      per_problem: int = DEFAULT_PER_PROBLEM, references: dict[str, str] | None = None,
                      settings: GradingSettings | None = None,
                      witnesses: dict[str, list[str]] | None = None,
                      panel: dict[str, list[tuple[str, str]]] | None = None) -> AmplifiedSuite:
    """Every problem amplified; the suite is named `<benchmark>+amplified:<digest[:12]>`. `witnesses`: stored
    programs passing each problem's original tests (see `agreement`). `panel`: independent solutions per problem
    (`amplify/panel.py`; None: the one bundled for the benchmark, {}: none)."""
    import hypothesis

    from execugraph.amplify.panel import bundled_panel

    panel = bundled_panel(benchmark) if panel is None else panel

    staged = f"{benchmark}{SUFFIX}"
    items = [(problem, reference_for(problem, references)) for problem in problems]
    used = {problem.id: reference for problem, reference in items if reference}
    results = amplify_problems(pool, items, seed=seed, per_problem=per_problem, settings=settings, benchmark=staged,
                               witnesses=witnesses, panel=panel)
    digest = hashlib.sha256(f"{GENERATOR_VERSION}:{RULES_VERSION}:{suite_of([r.problem for r in results])}"
                            .encode()).hexdigest()  # another generator or rule version: another suite
    name = f"{staged}:{digest[:12]}"
    ref_digest = reference_digest(used)
    for r in results:
        r.problem = r.problem.model_copy(update={
            "benchmark": name, "source": f"{r.problem.source or r.problem.id} {SUFFIX}",
            "rationale": _provenance_line(r, seed, ref_digest)})
    provenance = {
        "benchmark": benchmark, "name": name, "digest": digest, "generator": GENERATOR_VERSION, "rules": RULES_VERSION,
        "hypothesis": hypothesis.__version__, "seed": seed, "per_problem": per_problem,
        "reference_digest": ref_digest, "references": len(used),
        "witnesses": sum(len(v) for v in (witnesses or {}).values()),
        "panel": sum(len(v) for v in panel.values()),
        "problems": {r.problem.id: r.to_dict() for r in results},
    }
    return AmplifiedSuite(benchmark, name, digest, provenance, results)


def _provenance_line(result: ProblemAmplification, seed: int, ref_digest: str) -> str:
    """The per-problem provenance kept in the stored problem (its `rationale`), readable on its own."""
    import hypothesis

    dropped = ", ".join(f"{why}: {n}" for why, n in sorted(result.dropped.items())) or "none"
    origins = ", ".join(f"{k} {v}" for k, v in sorted(result.by_origin.items())) or "none"
    return (f"amplified by {GENERATOR_VERSION} (seed {seed}, hypothesis {hypothesis.__version__}, references "
            f"sha256 {ref_digest[:12]}): {result.original} original grading test(s) kept first, {result.added} "
            f"added ({origins}); dropped: {dropped}. {result.note}").strip()


def provenance_text(provenance: JsonObject) -> str:
    """The provenance as canonical JSON (what `amplify --json` prints and a rescore records)."""
    return json.dumps(provenance, sort_keys=True)

