"""The CPU meter without cgroups: the kernel's accounting of a process tree, read from outside it."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from sandbox.cgroups import _usage_usec
from sandbox.cputime import CpuMeter, ProcessTree, process_clock_id, process_cpu

SPIN_THEN_WAIT = (
    "import os, sys, time\n"
    "def spin(s):\n"
    "    end = time.process_time() + s\n"
    "    while time.process_time() < end:\n"
    "        pass\n"
    "pid = os.fork()\n"
    "if pid == 0:\n"
    "    spin(0.3)\n"
    "    os._exit(0)\n"
    "os.waitpid(pid, 0)\n"  # the child's CPU is now the parent's cutime
    "spin(0.2)\n"
    "sys.stdout.write('ready\\n'); sys.stdout.flush()\n"
    "time.sleep(60)\n"
)


def test_a_process_clock_of_another_process_is_readable_and_counts_all_its_threads() -> None:
    own = time.clock_gettime(process_clock_id(os.getpid()))
    assert abs(own - time.process_time()) < 0.05
    assert process_cpu(2**22 + 12345) == 0.0  # no such process


def test_the_tree_counts_a_child_its_reaped_grandchild_and_drops_what_ended() -> None:
    child = subprocess.Popen([sys.executable, "-c", SPIN_THEN_WAIT], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
        meter = CpuMeter(lambda: None, lambda: 0.0, os.getpid())
        assert meter.method == "proc"
        own = process_cpu(child.pid)
        assert 0.45 <= own < 1.5, own  # 0.2 s of its own, 0.3 s of the reaped grandchild (in ticks), start-up
        assert meter.read() >= own  # this process's other children, if any, count too
        assert any(path.startswith(f"/proc/{child.pid}/") for path in meter._tree.files.paths())
    finally:
        child.kill()
        child.wait()
    meter.read()
    assert not any(path.startswith(f"/proc/{child.pid}/") for path in meter._tree.files.paths())


def test_the_same_session_fallback_and_cgroup_v2_usage() -> None:
    tree = ProcessTree(os.getpid())
    tree.has_children_files = False  # a kernel without /proc/<pid>/task/<tid>/children
    assert tree.cpu() >= 0.0
    assert _usage_usec("usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n") == 1_500_000


def test_a_reading_never_goes_below_an_earlier_one() -> None:
    """cgroup v1 less the worker's exact CPU jitters by a tick: a test past its limit stays past it."""
    readings = iter([0.5, 1.0, 0.99995, 1.2])
    meter = CpuMeter(lambda: next(readings), lambda: 0.0, os.getpid())  # the first reading picks the method
    assert meter.method == "cgroup"
    assert [meter.read(), meter.read(), meter.read()] == [1.0, 1.0, 1.2]


def test_readings_below_zero_still_count_their_differences() -> None:
    """cgroup v1 less the worker's whole process_time starts negative (its CPU before it moved in)."""
    readings = iter([-0.1, -0.09, 0.01, 0.0])
    meter = CpuMeter(lambda: next(readings), lambda: 0.0, os.getpid())
    assert [meter.read(), meter.read(), meter.read()] == [-0.09, 0.01, 0.01]
