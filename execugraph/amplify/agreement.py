"""Agreement among independent solutions: an input on which programs that pass the original tests, and agree with
the reference almost everywhere else, answer otherwise than the reference is dropped.

Why: the reference is one program; where it alone answers an input differently (a quirk on a corner
the statement leaves open, a bug of its own), its answer is not the problem's. Programs stored for the
problem that pass its original tests are independent witnesses, but only the ones that agree with the
reference on nearly every new input are trusted (`AGREE_MIN`): a wrong program disagrees often and
says nothing. An input is dropped when most of the trusted witnesses (more than half) disagree there.
Everything runs in the sandbox, in one batch of jobs for all problems.
"""

from __future__ import annotations

from typing import Any

from execugraph.amplify.expected import Answer
from execugraph.domain.problem import Problem
from execugraph.grading.rules import build_suite

AGREE_MIN = 0.9  # a witness agrees with the reference on at least this share of the reference's answered inputs
WITNESS_CPU_S = 0.5
MAX_WITNESSES = 10


def _dropped(disagree: int, witnesses: int) -> str:
    return f"independent solutions disagree with the reference ({disagree} of {witnesses})"


def agree_many(pool: Any, items: list[tuple[Problem, list[Answer], list[str]]]) -> tuple[list[list[Answer]],
                                                                                          list[int]]:
    """Per item (problem, the reference's answers, stored programs passing its original tests): the answers with
    those the trusted witnesses dispute turned into drops, and how many witnesses were trusted."""
    from sandbox import Limits

    limits = Limits(timeout_s=WITNESS_CPU_S, stop_after_timeout=False)
    jobs, plans = [], []
    for k, (problem, answers, programs) in enumerate(items):
        kept = [n for n, a in enumerate(answers) if a.test is not None]
        programs = list(dict.fromkeys(programs))[:MAX_WITNESSES]
        if not kept or not programs:
            continue
        tests = [{**answers[n].test, "name": f"agree {n}"} for n in kept]  # type: ignore[dict-item]
        suite = build_suite(problem, tests, "standalone")
        plans.append((k, kept, len(jobs), len(programs)))
        jobs += [(code, suite, limits) for code in programs]
    results = pool.run_many(jobs) if jobs else []
    out = [list(answers) for _, answers, _ in items]
    trusted = [0] * len(items)
    for k, kept, start, count in plans:
        verdicts = []
        for result in results[start:start + count]:
            passed = [bool(t.passed) for t in result.tests] + [False] * (len(kept) - len(result.tests))
            if sum(passed[: len(kept)]) >= AGREE_MIN * len(kept):
                verdicts.append(passed[: len(kept)])
        trusted[k] = len(verdicts)
        if not verdicts:
            continue
        for position, n in enumerate(kept):
            disagree = sum(1 for v in verdicts if not v[position])
            if 2 * disagree > len(verdicts):
                out[k][n] = Answer(out[k][n].expr, dropped=_dropped(disagree, len(verdicts)))
    return out, trusted
