"""Blocked programs end near their limit, whatever the load; time spent waiting for a CPU is never charged.

A program that sleeps, deadlocks or waits for input uses no CPU, so before the
blocked-time budget only the wall-clock backstop (10 x the limit + 10 s per test,
every test run) ended it. Blocked time is read from every job task's schedstat; the
busy loops here (4 x nproc, each in its own session) make the run-queue waits that
must be excused real.
"""

from __future__ import annotations

import time

import pytest

from sandbox import Limits, SandboxPool
from sandbox.blocked import BlockedTracker, TaskSampler
from tests.sandbox.test_sandbox_cpu_limits import _cores, busy_loops

pytestmark = pytest.mark.integration

ONE_S = Limits(timeout_s=1.0)  # blocked budget 1 x 1 s + 0.5 s
SLEEP = "import time\ndef f():\n    time.sleep(3600)\n"
BLOCKED = {
    "sleep": SLEEP,
    "lock_taken_twice": "import threading\ndef f():\n    lock = threading.Lock()\n    lock.acquire()\n"
                        "    lock.acquire()\n",
    "read_a_pipe_nobody_writes": "import os\ndef f():\n    r, w = os.pipe()\n    return os.read(r, 1)\n",
    "sleep_in_a_retry_loop": "import time\ndef f():\n    while True:\n        try:\n            raise OSError('busy')\n"
                             "        except OSError:\n            time.sleep(0.05)\n",
    "stopped": "import os, signal\ndef f():\n    os.kill(os.getpid(), signal.SIGSTOP)\n    return 1\n",
}
MIXED = (  # 30 x (sleep 10 ms, then compute 10 ms of CPU): 0.3 s of each, under a 1 s limit
    "import time\ndef f():\n    for _ in range(30):\n        time.sleep(0.01)\n"
    "        end = time.process_time() + 0.01\n        while time.process_time() < end:\n            pass\n"
    "    return 1\n"
)
SLEEPER_BESIDE_WORKER = (  # one thread sleeps while another computes 0.6 s of CPU; then both sleep
    "import threading, time\n"
    "def spin(forever):\n    end = time.process_time() + 0.6\n    while time.process_time() < end:\n        pass\n"
    "    if forever:\n        time.sleep(3600)\n"
    "def f(forever=False):\n    t = threading.Thread(target=spin, args=(forever,))\n    t.start()\n"
    "    time.sleep(0.01 if not forever else 3600)\n    t.join()\n    return 1\n"
)
RELAYED = "def f(x):\n    return x + 1\n"
RELAY_CHECK = "def check(candidate):\n    for i in range(150):\n        assert candidate(i) == i + 1\n"


def call_f(n: int = 1, args: list | None = None) -> dict:
    return {"entry_point": "f", "tests": [{"kind": "call", "args": args or [], "expected": 1}] * n}


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(workers=1) as shared:
        yield shared


def test_a_sleeper_with_two_tests_is_a_timeout_within_twice_its_limit(pool):
    started = time.monotonic()
    result = pool.run_suite(SLEEP, call_f(2), Limits(timeout_s=3.0))
    took = time.monotonic() - started
    slept, skipped = result.tests
    assert (result.verdict, result.passed) == ("timeout", False)
    assert (slept.verdict, slept.error_class) == ("timeout", "BlockedTimeLimit"), slept.got
    assert "blocked-time limit" in slept.got and slept.cpu_s < 0.2
    assert (skipped.verdict, skipped.error_class, skipped.passed) == ("timeout", "NotRun", False)
    assert skipped.got == "not run: an earlier test timed out"
    assert 3.0 <= slept.duration_s and took < 2 * 3.0 + 2, took  # was 80 s: two backstops of 40 s
    assert result.limits["blocked_s_per_test"] == 3.5 and result.limits["stop_after_timeout"] is True
    assert result.limits["blocked_accounting"].startswith("schedstat")


@pytest.mark.parametrize("name", sorted(BLOCKED))
def test_blocked_programs_end_within_twice_their_limit_beside_busy_loops(pool, name):
    with busy_loops(4 * _cores()):
        started = time.monotonic()
        result = pool.run_suite(BLOCKED[name], call_f(2), ONE_S)
        took = time.monotonic() - started
    first, second = result.tests
    assert (first.verdict, first.error_class) == ("timeout", "BlockedTimeLimit"), first.got
    assert second.error_class == "NotRun"
    assert first.duration_s >= 1.5 and took < 2 * ONE_S.timeout_s + 1, took


def test_sleeping_between_bursts_of_work_passes_beside_busy_loops(pool):
    with busy_loops(4 * _cores()):
        result = pool.run_suite(MIXED, call_f(2), ONE_S)
    assert result.verdict == "passed", [(t.error_class, t.got) for t in result.tests]
    assert all(0.25 <= t.cpu_s < 0.6 for t in result.tests)
    assert max(t.duration_s for t in result.tests) > 1.0, "not loaded: the test would prove nothing"


def test_a_thread_sleeping_beside_one_that_computes_is_not_charged(pool):
    with busy_loops(4 * _cores()):
        result = pool.run_suite(SLEEPER_BESIDE_WORKER, call_f(1), Limits(timeout_s=1.0, blocked_grace_s=0.0))
    (test,) = result.tests
    assert test.passed, (test.error_class, test.got)
    assert test.duration_s > 1.0, "not loaded: the test would prove nothing"


def test_once_every_thread_sleeps_the_job_is_charged(pool):
    result = pool.run_suite(SLEEPER_BESIDE_WORKER, call_f(1, [True]), ONE_S)
    (test,) = result.tests
    assert (test.error_class, test.passed) == ("BlockedTimeLimit", False), test.got
    assert 0.55 <= test.cpu_s < 0.9
    assert test.duration_s >= 1.5 + 0.5, "the computing part was charged as blocked"


def test_relayed_assert_calls_are_not_charged_beside_busy_loops(pool):
    suite = {"entry_point": "f", "tests": [{"kind": "assert", "source": RELAY_CHECK}]}
    tight = Limits(timeout_s=2.0, blocked_factor=0.01, blocked_grace_s=0.0)  # 20 ms of blocked time allowed
    with busy_loops(4 * _cores()):
        result = pool.run_suite(RELAYED, suite, tight)
    (test,) = result.tests
    assert test.passed, (test.error_class, test.got)


def test_stop_after_timeout_can_be_switched_off(pool):
    result = pool.run_suite(SLEEP, call_f(2), Limits(timeout_s=0.5, stop_after_timeout=False))
    assert [t.error_class for t in result.tests] == ["BlockedTimeLimit"] * 2
    assert result.limits["stop_after_timeout"] is False


def test_tests_before_a_cpu_timeout_keep_their_details(pool):
    code = "def f(x):\n    while x:\n        pass\n    return 1\n"
    suite = {"entry_point": "f", "tests": [{"kind": "call", "args": [0], "expected": 1},
                                           {"kind": "call", "args": [1], "expected": 1},
                                           {"kind": "call", "args": [0], "expected": 1}]}
    result = pool.run_suite(code, suite, Limits(timeout_s=0.3))
    assert [(t.verdict, t.error_class) for t in result.tests] == [
        ("passed", None), ("timeout", "CpuTimeLimit"), ("timeout", "NotRun")]
    assert result.verdict == "timeout" and result.tests_passed == 1
    assert result.tests[0].got == "1" and result.tests[1].cpu_s >= 0.3


def test_without_a_blocked_budget_the_wall_clock_backstop_still_ends_a_sleeper(pool):
    limits = Limits(timeout_s=0.5, wall_factor=2.0, wall_grace_s=1.0, blocked_factor=None)  # backstop 2 s
    result = pool.run_suite(SLEEP, call_f(1), limits)
    (test,) = result.tests
    assert (test.verdict, test.error_class) == ("timeout", "WallTimeLimit"), test.got
    assert 2.0 <= test.duration_s < 2.0 + 5
    assert result.limits["blocked_rule"].startswith("off")


def test_limits_validate_the_new_options():
    for bad in ({"blocked_factor": 0}, {"blocked_factor": float("inf")}, {"blocked_grace_s": -1},
                {"blocked_grace_s": True}, {"stop_after_timeout": "yes"}):
        with pytest.raises(ValueError, match="Limits.(blocked|stop)"):
            Limits(**bad)
    assert Limits(timeout_s=2).blocked_for(2.0) == 2.5 and Limits(blocked_factor=None).blocked_for(2.0) == float("inf")
    assert Limits(stop_after_timeout=False).to_dict()["stop_after_timeout"] is False


class FakeSampler(TaskSampler):
    """Schedstat readings supplied by the test: (tid -> run+wait ns, any task runnable)."""

    def __init__(self) -> None:
        self.why_unavailable = ""
        self.tasks: dict[int, int] = {}
        self.runnable = False

    def job_tasks(self) -> tuple[dict[int, int], bool]:
        return dict(self.tasks), self.runnable

    def own(self) -> int:
        return 0


def test_a_wait_not_yet_in_schedstat_is_held_until_it_arrives():
    sampler = FakeSampler()
    tracker = BlockedTracker(sampler)
    sampler.tasks = {1: 0}
    tracker.sample(0.0, 0.0, 0.1)
    sampler.runnable = True  # waiting for a CPU for the whole interval: schedstat has not seen it yet
    assert tracker.sample(0.1, 0.0, 0.1) == 0.0 and tracker.pending == pytest.approx(0.1)
    sampler.runnable, sampler.tasks = False, {1: 200_000_000}  # it ran: 0.1 s of wait and 0.1 s of run arrive
    assert tracker.sample(0.2, 0.1, 0.1) == 0.0 and tracker.pending == 0.0
    assert tracker.sample(0.3, 0.1, 0.1) == pytest.approx(0.1)  # then it slept: charged
    sampler.tasks = {}  # the task exited between samples: that interval is excused
    assert tracker.sample(0.4, 0.1, 0.1) == pytest.approx(0.1)


def test_without_schedstat_blocked_time_is_not_measured(tmp_path):
    (tmp_path / "1" / "task" / "1").mkdir(parents=True)
    (tmp_path / "1" / "task" / "1" / "children").write_text("")
    sampler = TaskSampler(1, proc=str(tmp_path))
    assert not sampler.available and "schedstat" in sampler.why_unavailable
    assert not BlockedTracker(sampler).enabled  # the worker then leaves blocked programs to the backstop
    assert "children" in TaskSampler(1, proc=str(tmp_path / "none")).why_unavailable
