"""No state leaks between jobs: after 1,000 hostile jobs on one pool, a correct program still passes."""

from __future__ import annotations

import itertools

import pytest

from sandbox import SandboxPool
from standins.hostile.catalog import CASES, suite_for
from standins.hostile.host import HostContext, host_problems, leftover_processes

pytestmark = pytest.mark.integration

HOSTILE_JOBS = 1000
CORRECT = "import heapq, bisect, collections\ndef f(xs):\n    return heapq.nsmallest(2, xs) + [bisect.bisect(sorted(xs), 3)]\n"
CORRECT_SUITE = {"entry_point": "f", "tests": [{"kind": "call", "args": [[5, 1, 4, 2]], "expected": [1, 2, 2]}]}


@pytest.fixture(scope="module")
def host():
    ctx = HostContext.create()
    yield ctx
    ctx.close()


def test_correct_program_passes_after_a_thousand_hostile_jobs(host: HostContext):
    with SandboxPool(workers=2) as pool:
        baseline = pool.run_suite(CORRECT, CORRECT_SUITE)
        assert baseline.passed
        workers = pool.worker_pids()
        cases = [c for c in CASES if c.fast and not c.missing_layers(baseline.isolation)]
        picked = list(itertools.islice(itertools.cycle(cases), HOSTILE_JOBS))
        results = pool.run_many([(c.code(host), suite_for(c, host), c.limits) for c in picked])

        wrong = [(c.name, r.verdict) for c, r in zip(picked, results, strict=True) if r.verdict != c.verdict]
        assert not wrong, wrong[:10]
        after = pool.run_many([(CORRECT, CORRECT_SUITE)] * 8)
        assert all(r.passed for r in after), [r.to_dict() for r in after if not r.passed][:1]
        assert pool.worker_pids() == workers, "a worker died and was replaced during the soak"
        assert after[0].isolation == baseline.isolation, "isolation layers changed after hostile jobs"
        assert not host_problems(host, results[-1], workers)
        assert not leftover_processes(pool.worker_pids())
