"""Input shapes added in amplify-3 (found from the distinguishability search's survivors), each pinned by a plausible
wrong program that passes the original tests, fails the amplified ones, while the reference passes them."""

from __future__ import annotations

import pytest

from execugraph.amplify.build import GENERATOR_VERSION, amplify_benchmark
from execugraph.amplify.references import reference_for
from execugraph.benchmarks import load_humaneval
from execugraph.grading.rules import GradingSettings, problem_grading_tests, sandbox_job

pytestmark = pytest.mark.integration

# Each wrong program differs from the reference in one place the HumanEval tests never reach.
WRONG = {
    # a loop from index 2 never compares the first pair: caught by the first two elements swapped
    "humaneval_135": "def can_arrange(arr):\n    ind = -1\n    i = 2\n    while i < len(arr):\n"
                     "        if arr[i] < arr[i - 1]:\n            ind = i\n        i += 1\n    return ind\n",
    # rounds 0.5 towards zero: caught by a numeric string mutated as a number (its fractional part, '0.5')
    "humaneval_99": "from math import floor, ceil\n\ndef closest_integer(value):\n"
                    "    if value.count('.') == 1:\n        while value[-1] == '0':\n            value = value[:-1]\n"
                    "    num = float(value)\n    if value[-2:] == '.5':\n        res = ceil(num) if num > 1 else floor(num)\n"
                    "    elif len(value) > 0:\n        res = int(round(num))\n    else:\n        res = 0\n    return res\n",
    # accepts a degenerate triangle when the first side is the sum of the others: caught by the sides rotated
    "humaneval_71": "def triangle_area(a, b, c):\n    if a + b <= c or a + c <= b or b + c < a:\n        return -1\n"
                    "    s = (a + b + c) / 2\n    return round((s * (s - a) * (s - b) * (s - c)) ** 0.5, 2)\n",
}


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=2) as shared:
        yield shared


def _verdict(pool, problem, code: str) -> str:
    return pool.run_suite(*sandbox_job(problem, code, problem_grading_tests(problem), GradingSettings())).verdict


def test_new_shapes_catch_wrong_programs_the_originals_pass(pool) -> None:
    chosen = [p for p in load_humaneval() if p.id in WRONG]
    suite = amplify_benchmark(pool, "humaneval", chosen, seed=0, per_problem=30)
    assert suite.provenance["generator"] == GENERATOR_VERSION
    for original, amplified in zip(chosen, suite.stored_problems(), strict=True):
        wrong = WRONG[original.id]
        assert _verdict(pool, original, wrong) == "passed", original.id
        assert _verdict(pool, amplified, wrong) != "passed", original.id
        assert _verdict(pool, amplified, reference_for(original)) == "passed", original.id
