"""Time a job spends blocked: no task of it running or waiting for a CPU (sleeping, on a lock or input, stopped).

CPU seconds are the limit for programs that compute, but a program that
sleeps, deadlocks or waits for input uses none, so only the wall-clock
backstop (many times the CPU limit) used to end it. Blocked time is what a
verdict may be charged for without depending on the load: time spent waiting
on a run queue is excused, so a loaded machine never turns a correct program
into a timeout. The kernel counts both per task in
`/proc/<pid>/task/<tid>/schedstat` (ns on a CPU, ns waiting on a run queue,
timeslices); `BlockedTracker` polls every task below the worker and, per
interval, charges the part of it in which no task ran or waited. A task's
current run-queue wait is added to its schedstat only when it gets the CPU,
so while any task is runnable (state R) the charge waits for the next sample.

The worker relays judge <-> candidate messages and forks job processes, so
while it does that for the job its own run and wait count as the job's.
"""

from __future__ import annotations

import math
import os

from sandbox.procfs import ProcFiles, after_command, listdir

MAX_CACHED_FDS = 512
MIN_INTERVAL_S = 0.01
MAX_INTERVAL_S = 0.1


def interval_for(budget_s: float) -> float:
    """How often to poll for a test with this blocked budget: overshoot stays a small share of it."""
    return min(MAX_INTERVAL_S, max(MIN_INTERVAL_S, budget_s / 20))


class TaskSampler:
    """run+wait nanoseconds (and whether it is runnable) of every task below `root`, and of `root`'s own tasks.

    Descendants are found through /proc/<pid>/task/<tid>/children (orphans of the job are
    reparented to the worker, a subreaper, so they stay below it). Files are kept open
    (`sandbox.procfs`), at most `MAX_CACHED_FDS` of them.
    """

    def __init__(self, root: int, proc: str = "/proc") -> None:
        self.root = root
        self.proc = proc
        self.files = ProcFiles(max_open=MAX_CACHED_FDS)
        self.why_unavailable = ""
        if not os.path.exists(f"{proc}/{root}/task/{root}/children"):
            self.why_unavailable = "no /proc/<pid>/task/<tid>/children (CONFIG_PROC_CHILDREN)"
        elif self.files.read(f"{proc}/{root}/task/{root}/schedstat") is None:
            self.why_unavailable = "no /proc/<pid>/task/<tid>/schedstat (CONFIG_SCHED_INFO)"

    @property
    def available(self) -> bool:
        return not self.why_unavailable

    def _tids(self, pid: int) -> list[str]:
        return listdir(f"{self.proc}/{pid}/task")

    def _run_wait(self, pid: int, tid: str) -> int | None:
        data = self.files.read(f"{self.proc}/{pid}/task/{tid}/schedstat")
        if not data:
            return None
        fields = data.split()
        return int(fields[0]) + int(fields[1]) if len(fields) >= 2 else None

    def _runnable(self, pid: int, tid: str, seen: set[str]) -> bool:
        path = f"{self.proc}/{pid}/task/{tid}/stat"
        seen.add(path)
        data = self.files.read(path)
        return bool(data) and after_command(data)[:3].strip() == b"R"

    def own(self) -> int:
        """run+wait ns of the root's own tasks (the worker)."""
        return sum(v for tid in self._tids(self.root) if (v := self._run_wait(self.root, tid)) is not None)

    def job_tasks(self) -> tuple[dict[int, int], bool]:
        """(tid -> run+wait ns, whether any is running or runnable) for every task below the root, in one walk."""
        found: dict[int, int] = {}
        runnable = False
        seen: set[str] = set()
        stack = self._children(self.root, self._tids(self.root), seen)
        visited = {self.root}
        while stack:
            pid = stack.pop()
            if pid in visited:
                continue
            visited.add(pid)
            tids = self._tids(pid)
            for tid in tids:
                value = self._run_wait(pid, tid)
                if value is not None:
                    found[int(tid)] = value
                    seen.add(f"{self.proc}/{pid}/task/{tid}/schedstat")
                    runnable = runnable or self._runnable(pid, tid, seen)
            stack.extend(self._children(pid, tids, seen))
        own = f"{self.proc}/{self.root}/"
        self.files.close_unless(lambda path: path in seen or path.startswith(own))
        return found, runnable

    def _children(self, pid: int, tids: list[str], seen: set[str]) -> list[int]:
        out: list[int] = []
        for tid in tids:
            path = f"{self.proc}/{pid}/task/{tid}/children"
            data = self.files.read(path)
            seen.add(path)
            if data:
                out.extend(int(c) for c in data.split())
        return out

    def close(self) -> None:
        self.files.close()


class BlockedTracker:
    """Cumulative seconds one job has spent blocked, advanced by `sample()` while the worker waits on it.

    Per interval the job made progress (ran, or waited for a CPU) for
    min(interval, sum over its tasks of delta(run + wait)), never less than the
    job's CPU delta (which covers processes that exited); the rest is blocked.
    A run-queue wait is added to schedstat only when the task gets the CPU, so
    an interval that ends while a task is runnable may look blocked: its
    shortfall stays pending until a sample with no runnable task, and the
    excess of later intervals (that wait, arriving) cancels it first. A task
    that vanished between two samples took its last wait with it, so that
    interval is never charged.
    """

    def __init__(self, sampler: TaskSampler) -> None:
        self.sampler = sampler
        self.blocked = 0.0
        self.worker_busy = True  # the job starts with the worker sending it work
        self._last_time: float | None = None
        self._last_cpu = 0.0
        self._last_tasks: dict[int, int] = {}
        self._last_worker = 0
        self.pending = 0.0
        self.due = -math.inf
        self.samples = 0

    @property
    def enabled(self) -> bool:
        return self.sampler.available

    def sample(self, now: float, cpu: float, interval: float) -> float:
        """Advance to `now` (monotonic seconds; `cpu` the job's cumulative CPU reading); returns blocked seconds."""
        tasks, runnable = self.sampler.job_tasks()
        worker = self.sampler.own()
        self.samples += 1
        self.due = now + interval
        if self._last_time is None:
            self._remember(now, cpu, tasks, worker)
            return self.blocked
        elapsed = now - self._last_time
        live = sum(ns - self._last_tasks.get(tid, 0) for tid, ns in tasks.items()) / 1e9
        if self.worker_busy:
            live += (worker - self._last_worker) / 1e9
        progress = max(live, cpu - self._last_cpu)
        if any(tid not in tasks for tid in self._last_tasks):
            progress = max(progress, elapsed)  # its last run-queue wait is unknown: excuse the interval
        self._account(elapsed - progress, runnable)
        self._remember(now, cpu, tasks, worker)
        return self.blocked

    def _remember(self, now: float, cpu: float, tasks: dict[int, int], worker: int) -> None:
        self._last_time, self._last_cpu, self._last_tasks, self._last_worker = now, cpu, tasks, worker
        self.worker_busy = False

    def _account(self, shortfall: float, runnable: bool) -> None:
        """Charge this interval's shortfall, or hold it while a task is runnable (its wait not yet in schedstat)."""
        if shortfall < 0:
            self.pending = max(0.0, self.pending + shortfall)  # waits that arrived pay off what was held for them
            shortfall = 0.0
        self.pending += shortfall
        if not runnable:
            self.blocked += self.pending
            self.pending = 0.0


_samplers: dict[int, TaskSampler] = {}


def worker_sampler() -> TaskSampler:
    """The sampler of this worker process (kept across jobs, so its /proc files stay open)."""
    pid = os.getpid()
    sampler = _samplers.get(pid)
    if sampler is None:
        _samplers.clear()  # a forked copy never reads its parent's
        sampler = _samplers[pid] = TaskSampler(pid)
    return sampler
