"""CPU seconds of a worker's job processes, read by the worker from outside them.

A job's time limits are in CPU seconds, so they must be measured where the
candidate cannot reach: the job cgroup's usage counter (`cpuacct.usage` on
cgroup v1, `cpu.stat` on v2) when the worker could set one up, else the
kernel's own accounting of every process below the worker (its descendants'
`/proc/<pid>/stat`, threads and reaped children included, plus what the
worker itself reaped with `wait4`). Neither is a clock a job process can see
or change. Readings are cumulative; a test's CPU is the difference between two.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable

from sandbox.procfs import ProcFiles, after_command, listdir

CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_STAT_UTIME = 11  # fields after the command name: state is 0, utime 11, stime 12, cutime 13, cstime 14
_STAT_SESSION = 3
_STAT_THREADS = 17


def process_clock_id(pid: int) -> int:
    """The kernel's CPU clock of process `pid` (all its threads, live and exited): MAKE_PROCESS_CPUCLOCK."""
    return ((~pid) << 3) | 2  # CPUCLOCK_SCHED, not per-thread


def _stat_fields(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    return after_command(data).decode("ascii", "replace").split()


def _cpu_of(pid: int, fields: list[str]) -> float:
    """CPU seconds of `pid` itself (every thread) plus the children it reaped, from its stat fields."""
    utime, stime, cutime, cstime = (int(v) for v in fields[_STAT_UTIME : _STAT_UTIME + 4])
    try:
        own = time.clock_gettime(process_clock_id(pid))  # nanosecond precision where the kernel allows
    except OSError:
        own = (utime + stime) / CLK_TCK
    return own + (cutime + cstime) / CLK_TCK


def process_cpu(pid: int) -> float:
    """CPU seconds of `pid` (every thread) plus the children it reaped; 0 once it is gone."""
    fields = _stat_fields(pid)
    return _cpu_of(pid, fields) if fields is not None and len(fields) > _STAT_THREADS else 0.0


class ProcessTree:
    """Every process below `root` (not `root` itself), found through /proc/<pid>/task/<tid>/children.

    The /proc files of the processes seen are kept open (`sandbox.procfs`); those of processes
    gone are closed after each walk.
    """

    def __init__(self, root: int) -> None:
        self.root = root
        self.has_children_files = os.path.exists(f"/proc/{root}/task/{root}/children")
        self.files = ProcFiles()

    def _children(self, pid: int, threads: int) -> list[int]:
        tids = [str(pid)] if threads == 1 else listdir(f"/proc/{pid}/task")
        found: list[int] = []
        for tid in tids:
            data = self.files.read(f"/proc/{pid}/task/{tid}/children")
            if data:
                found.extend(int(c) for c in data.split())
        return found

    def cpu(self) -> float:
        """CPU seconds of every live (or not yet reaped) process below the root, in one walk."""
        if not self.has_children_files:
            return sum(process_cpu(pid) for pid in self._same_session())
        total = 0.0
        seen = {self.root}
        stack = self._children(self.root, 0)
        while stack:
            pid = stack.pop()
            seen.add(pid)
            data = self.files.read(f"/proc/{pid}/stat")
            fields = after_command(data).decode("ascii", "replace").split() if data else []
            if len(fields) <= _STAT_THREADS:
                continue
            total += _cpu_of(pid, fields)
            stack.extend(self._children(pid, int(fields[_STAT_THREADS])))
        self.files.close_unless(lambda path: int(path.split("/")[2]) in seen)
        return total

    def _same_session(self) -> list[int]:
        """Without children files: processes of the worker's session (job processes cannot setsid)."""
        try:
            session = os.getsid(self.root)
        except OSError:
            return []
        out = []
        for name in os.listdir("/proc"):
            if name.isdigit() and int(name) != self.root:
                fields = _stat_fields(int(name))
                if fields and len(fields) > _STAT_SESSION and fields[_STAT_SESSION] == str(session):
                    out.append(int(name))
        return out


class CpuMeter:
    """Cumulative CPU seconds of the worker's job processes (cgroup counter, else /proc plus reaped totals)."""

    def __init__(self, cgroup_usage: Callable[[], float | None], reaped: Callable[[], float], root: int) -> None:
        self._cgroup_usage = cgroup_usage
        self._reaped = reaped
        self._tree = ProcessTree(root)
        self.method = "cgroup" if cgroup_usage() is not None else "proc"
        self.cores = max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
        self._last = -math.inf  # readings may start below 0 (cgroup v1 less the worker's CPU from before it moved in)

    def read(self) -> float:
        """The cumulative reading, never below an earlier one.

        The sources jitter by a scheduler tick: cgroup v1's counter, less the worker's own
        exact `process_time`, lags the worker's CPU in flight; a process reaped between the
        /proc walk and the reaped total is briefly missing. A test that crossed its limit on
        one reading must not be reported below it on the next.
        """
        if self.method == "cgroup":
            usage = self._cgroup_usage()
            if usage is not None:
                return self._monotonic(usage)
            self.method = "proc"  # the cgroup went away: every later reading comes from /proc
            self._last = -math.inf  # another scale: readings restart from what /proc says
        return self._monotonic(self._reaped() + self._tree.cpu())

    def _monotonic(self, value: float) -> float:
        self._last = max(self._last, value)
        return self._last

    def describe(self) -> str:
        """How readings are taken, for the job's limits report."""
        if self.method == "cgroup":
            return "job cgroup CPU usage"
        return "/proc of every job process, threads and children, plus reaped children (wait4)"
