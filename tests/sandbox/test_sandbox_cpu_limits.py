"""Time limits are CPU seconds of the whole job, measured by the worker; the wall clock is only a backstop.

Run on both ways the worker measures: the job cgroup's CPU counter and, with cgroups
switched off, /proc of every job process plus what the worker reaped. The programs
measure their own work in CPU seconds (`time.process_time`), so they need the same CPU
on a slow machine; the busy loops started here make the machine as loaded as a shared
box running a model server.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from sandbox import Limits, SandboxPool
from standins.hostile.catalog import CASES
from standins.hostile.host import HostContext, leftover_processes

pytestmark = pytest.mark.integration

SPIN = (
    "import time\n"
    "def f(seconds):\n"
    "    end = time.process_time() + seconds\n"
    "    while time.process_time() < end:\n"
    "        pass\n"
    "    return seconds\n"
)
LIMIT = Limits(timeout_s=1.0, wall_factor=20.0)  # a 1 s CPU limit; a backstop (30 s) far beyond any test here


def spin_suite(*seconds: float) -> dict:
    return {"entry_point": "f", "tests": [{"kind": "call", "args": [s], "expected": s} for s in seconds]}


def _cpu_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


@contextmanager
def busy_loops(count: int, limit_s: float = 120.0) -> Iterator[list[subprocess.Popen]]:
    """`count` busy-loop processes (each ends by itself after `limit_s`), running before this yields.

    Each gets its own session, as separate services do, so the kernel's autogroup
    scheduling shares the cores between them and the sandbox as between equals.
    """
    code = f"import time\nend = time.monotonic() + {limit_s}\nwhile time.monotonic() < end:\n    pass\n"
    procs = [subprocess.Popen([sys.executable, "-c", code], start_new_session=True) for _ in range(count)]
    try:
        deadline = time.monotonic() + 60
        while not all(_cpu_ticks(p.pid) > 0 for p in procs):  # each has been on a CPU: the load is real
            assert time.monotonic() < deadline, "busy loops did not start"
            time.sleep(0.01)
        yield procs
    finally:
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait()


def _cores() -> int:
    return len(os.sched_getaffinity(0))


@pytest.fixture(scope="module", params=["cgroup", "proc"])
def pool(request):
    disable = () if request.param == "cgroup" else ("cgroups",)
    with SandboxPool(workers=1, disable=disable) as shared:
        limits = shared.run_suite(SPIN, spin_suite(0.0), LIMIT).limits
        if request.param == "cgroup" and limits["cpu_accounting"] != "job cgroup CPU usage":
            pytest.skip(f"no CPU cgroup here ({shared.isolation().get('cgroup_cpu')})")
        yield shared


def test_a_program_needing_60_percent_of_its_cpu_limit_passes_beside_busy_loops(pool):
    with busy_loops(4 * _cores()):
        near = pool.run_suite(SPIN, spin_suite(0.6), LIMIT)
        over = pool.run_suite(SPIN, spin_suite(1.5), LIMIT)
    test = near.tests[0]
    assert near.passed, (test.verdict, test.got)
    assert 0.55 <= test.cpu_s < 0.9 and test.cpu_limit_s == 1.0
    assert test.duration_s > 1.0, "the machine was not loaded: a 1 s wall-clock limit would have passed it too"
    (late,) = over.tests
    assert (late.verdict, late.error_class) == ("timeout", "CpuTimeLimit"), late.got
    assert 1.0 <= late.cpu_s < 1.3 and late.duration_s < late.wall_limit_s


def test_cpu_per_test_is_recorded_and_a_tests_own_limit_applies(pool):
    suite = spin_suite(0.2, 0.0, 0.2)
    suite["tests"][2]["cpu_limit_s"] = 0.1
    result = pool.run_suite(SPIN, suite, LIMIT)
    first, second, third = result.tests
    assert first.passed and 0.19 <= first.cpu_s < 0.5 and second.cpu_s < 0.05
    assert (third.error_class, third.cpu_limit_s) == ("CpuTimeLimit", 0.1) and 0.1 <= third.cpu_s < 0.2
    assert third.wall_limit_s == LIMIT.wall_for(0.1)
    assert result.cpu_s >= first.cpu_s + third.cpu_s


def test_a_sleeper_ends_by_its_blocked_time_budget_not_by_cpu(pool):
    code = "import time\ndef f(seconds):\n    time.sleep(600)\n"
    limits = Limits(timeout_s=0.5, wall_factor=2.0, wall_grace_s=1.0)  # blocked budget 1 s, backstop 2 s
    started = time.monotonic()
    result = pool.run_suite(code, spin_suite(0.0), limits)
    (test,) = result.tests
    assert (test.verdict, test.error_class) == ("timeout", "BlockedTimeLimit"), test.got
    assert test.wall_limit_s == 2.0 and 1.0 <= test.duration_s < 2.0
    assert test.cpu_s < 0.25 and "blocked-time limit" in test.got
    assert time.monotonic() - started < 2.0 + 10


def test_without_a_blocked_budget_a_sleeper_ends_by_the_wall_backstop(pool):
    code = "import time\ndef f(seconds):\n    time.sleep(600)\n"
    limits = Limits(timeout_s=0.5, wall_factor=2.0, wall_grace_s=1.0, blocked_factor=None)  # backstop 2 s
    result = pool.run_suite(code, spin_suite(0.0), limits)
    (test,) = result.tests
    assert (test.verdict, test.error_class) == ("timeout", "WallTimeLimit"), test.got
    assert test.wall_limit_s == 2.0 and 2.0 <= test.duration_s < 2.0 + 5
    assert test.cpu_s < 0.25 and "wall-clock backstop" in test.got


THREAD_SPIN = (
    "import threading, time\n"
    "def spin():\n"
    "    while True:\n"
    "        pass\n"
    "def start():\n"
    "    threading.Thread(target=spin, daemon=True).start()\n"
    "    return 1\n"
    "def wait(seconds):\n"
    "    time.sleep(seconds)\n"
    "    return seconds\n"
)
FORK_SPIN = THREAD_SPIN.replace(
    "    threading.Thread(target=spin, daemon=True).start()\n",
    "    import os\n    if os.fork() == 0:\n        spin()\n",
)
REAPED_CHILD = (
    "import os, time\n"
    "def start():\n"
    "    pid = os.fork()\n"
    "    if pid == 0:\n"
    "        end = time.process_time() + 0.4\n"
    "        while time.process_time() < end:\n"
    "            pass\n"
    "        os._exit(0)\n"
    "    os.waitpid(pid, 0)\n"
    "    return 1\n"
)


@pytest.mark.parametrize("code", [THREAD_SPIN, FORK_SPIN], ids=["thread", "forked-child"])
def test_a_spinning_thread_or_child_is_charged_to_the_job(pool, code):
    suite = {"tests": [{"kind": "call", "expr": "start()", "expected": 1},
                       {"kind": "call", "expr": "wait(20)", "expected": 20}]}
    result = pool.run_suite(code, suite, LIMIT)
    started, waited = result.tests
    assert started.passed
    assert (waited.verdict, waited.error_class) == ("timeout", "CpuTimeLimit"), waited.got
    assert waited.duration_s < 20, "the job's CPU, not the sleeping main thread, ended the test"


def test_a_child_that_exited_and_was_reaped_still_counts(pool):
    result = pool.run_suite(REAPED_CHILD, {"tests": [{"kind": "call", "expr": "start()", "expected": 1}]}, LIMIT)
    (test,) = result.tests
    assert test.passed and 0.38 <= test.cpu_s < 0.9, test.cpu_s


TIME_CASES = [case for case in CASES if case.verdict == "timeout"]


@pytest.fixture(scope="module")
def host():
    ctx = HostContext.create()
    yield ctx
    ctx.close()


@pytest.mark.parametrize("case", TIME_CASES, ids=[case.name for case in TIME_CASES])
def test_the_hostile_timeouts_end_by_the_right_limit_and_leave_nothing(pool, host, case):
    result = pool.run_suite(case.code(host), case.job_suite(), case.limits)
    assert result.verdict == "timeout"
    assert case.check is not None and case.check(host, result, pool) == []
    assert not leftover_processes(pool.worker_pids())
