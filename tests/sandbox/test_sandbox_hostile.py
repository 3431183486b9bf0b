"""Every hostile program gets its verdict, and the host is left untouched (real sandbox, real attacks)."""

from __future__ import annotations

import pytest

from sandbox import SandboxPool
from standins.hostile.catalog import CALL_F, CASES, HostileCase, suite_for
from standins.hostile.host import HostContext, host_problems, leftover_processes

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def host():
    ctx = HostContext.create()  # before the pool: the env secret must exist for the workers to (not) inherit
    yield ctx
    ctx.close()


@pytest.fixture(scope="module")
def pool(host):
    with SandboxPool(workers=2) as shared:
        yield shared


@pytest.fixture(scope="module")
def isolation(pool):
    """The layers a job on this pool actually runs under."""
    return pool.run_suite("def f():\n    return 1\n", CALL_F).isolation


def test_catalog_has_at_least_thirty_attacks():
    assert len(CASES) >= 30
    assert len({case.name for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_hostile_program_is_contained(case: HostileCase, host: HostContext, pool: SandboxPool, isolation):
    missing = case.missing_layers(isolation)
    if missing:
        pytest.skip(f"needs isolation layers {missing}, unavailable here")
    workers_before = pool.worker_pids()
    result = pool.run_suite(case.code(host), suite_for(case, host), case.limits)

    details = [(t.verdict, t.error_class, t.got[:120]) for t in result.tests]
    assert result.verdict == case.verdict, f"{case.name}: {details}\n{result.stderr[-500:]}"
    problems = host_problems(host, result, workers_before)
    if case.check is not None:
        problems += case.check(host, result, pool)
    assert not problems, f"{case.name}: {problems}"
    assert pool.worker_pids() == workers_before, "a worker had to be replaced"
    assert not leftover_processes(pool.worker_pids()), "sandbox processes outlived the job"


def test_parallel_hostile_batch_keeps_order_and_verdicts(host: HostContext, pool: SandboxPool, isolation):
    cases = [case for case in CASES if case.fast and not case.missing_layers(isolation)]
    results = pool.run_many([(case.code(host), suite_for(case, host), case.limits) for case in cases])
    wrong = [
        (case.name, result.verdict)
        for case, result in zip(cases, results, strict=True)
        if result.verdict != case.verdict
    ]
    assert not wrong
    assert not host_problems(host, results[-1], pool.worker_pids())


@pytest.mark.parametrize("disabled", ["landlock", "seccomp", "unprivileged_uid", "network_namespace"])
def test_with_one_layer_off_the_attacks_that_do_not_need_it_are_still_contained(disabled: str, host: HostContext):
    """Each case declares the layers its verdict relies on; with any other layer missing it must still hold."""
    with SandboxPool(workers=2, disable=[disabled]) as degraded:
        isolation = degraded.run_suite("def f():\n    return 1\n", CALL_F).isolation
        cases = [case for case in CASES if case.fast and not case.missing_layers(isolation)]
        assert len(cases) >= 20
        workers = degraded.worker_pids()
        results = degraded.run_many([(case.code(host), suite_for(case, host), case.limits) for case in cases])
        wrong = [(c.name, r.verdict) for c, r in zip(cases, results, strict=True) if r.verdict != c.verdict]
        assert not wrong
        problems = [p for case, r in zip(cases, results, strict=True) for p in host_problems(host, r, workers)]
        problems += [
            p for case, r in zip(cases, results, strict=True) if case.check for p in case.check(host, r, degraded)
        ]
        assert not problems
        assert not leftover_processes(degraded.worker_pids())
