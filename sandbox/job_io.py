"""Talking to one job's processes: start them, send without blocking, wait on all of them in one poll loop, end them.

`JobIO` owns the job's live processes (the candidate, the judge, stdio
runs), the host socket it watches for a vanished host, and the layer report
and output excerpts gathered from them. It turns anything that is not a
reply (an exit, a timeout, a flood, a malformed frame) into a status.
Each test runs on a `Clock`: CPU seconds of the job's processes, read with
the worker's `CpuMeter` while it waits, time in which the job was blocked
(`sandbox.blocked`), and a wall-clock backstop;
`sandbox.job.JobRunner` builds the tests on top of it. It needs from the
worker only what `sandbox.env.JobEnv` names.
"""

from __future__ import annotations

import math
import os
import select
import signal
import socket
import time
from dataclasses import dataclass
from typing import Any

from sandbox import frames
from sandbox.blocked import BlockedTracker, interval_for, worker_sampler
from sandbox.env import JobEnv
from sandbox.hardening import cpu_seconds_for
from sandbox.limits import backstop_in, blocked_in
from sandbox.procs import EXCERPT_BYTES, Proc, describe_status, pidfd_exited, spawn

HELLO_GRACE_S = 5.0
MIN_CPU_CHECK_S = 0.005  # CPU is read at least this far apart while a test runs (overshoot <= this x cores)
_ANSWERED = ("value", "raised", "judged", "exited", "crashed")  # statuses a CPU overrun turns into a timeout
TIME_UP = ("timeout", "cpu_timeout", "blocked_timeout")  # wait events that end a test by one of its limits
TIMED_OUT = ("timeout", "cpu_timeout", "wall_timeout", "blocked_timeout", "suite_timeout")  # statuses of those tests


@dataclass
class Clock:
    """One test's allowance: CPU seconds of the job counted from `cpu_start`, blocked seconds counted from
    `blocked_start` (the job's `BlockedTracker` total), and a wall-clock backstop."""

    cpu_start: float
    cpu_limit: float
    wall_start: float
    wall_limit: float
    cpu_cap: float = math.inf  # meter reading at which the suite's CPU allowance runs out
    wall_cap: float = math.inf  # monotonic time at which the suite's backstop runs out
    blocked_start: float = 0.0
    blocked_limit: float = math.inf

    @property
    def cpu_deadline(self) -> float:
        return min(self.cpu_start + self.cpu_limit, self.cpu_cap)

    @property
    def wall_deadline(self) -> float:
        return min(self.wall_start + self.wall_limit, self.wall_cap)


class JobIO:
    """One job's processes and the channels to them; subclassed by `JobRunner`, which drives the tests."""

    def __init__(self, env: JobEnv, job: dict[str, Any], fds: list[int], host: socket.socket):
        self.env = env
        self.job = job
        self.limits: dict[str, Any] = job["limits"]
        self.tests: list[dict[str, Any]] = job["tests"]
        self.judge_fds = fds
        self.host = host
        self.host_fd = host.fileno()
        self.timeout_s = float(self.limits["timeout_s"])
        self.meter = env.cpu_meter
        default_wall = backstop_in(self.limits, self.timeout_s)
        self.cpu_limits = [float(c) for c in job.get("cpu_s") or [self.timeout_s] * len(self.tests)]
        self.wall_limits = [float(w) for w in job.get("wall_s") or [default_wall] * len(self.tests)]
        self.blocked_limits = [blocked_in(self.limits, c) for c in self.cpu_limits]
        self.stop_after_timeout = bool(self.limits.get("stop_after_timeout", True))
        self.load_limits = (self.timeout_s, default_wall, blocked_in(self.limits, self.timeout_s))
        self.blocked = BlockedTracker(worker_sampler())
        self.blocked.due = time.monotonic() + interval_for(0)  # jobs answered sooner pay nothing for it
        self.rlimit_cpu = cpu_seconds_for(self.limits, self.cpu_limits)
        self.cpu_cap = math.inf
        self.wall_cap = math.inf
        self.cand: Proc | None = None
        self.judge: Proc | None = None
        self.load: dict[str, Any] | None = None
        self.layers: dict[str, str] = {}
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.host_gone = False
        self.host_talking = False
        self.procs: list[Proc] = []

    def _spawn(self, role: str, stdin_fd: int | None = None) -> Proc:
        self.blocked.worker_busy = True
        job = {} if role == "candidate" else self.job  # the candidate gets its code in the start frame
        plan = self.env.plan(self.limits, self.rlimit_cpu)
        proc = spawn(
            role,
            job,
            plan,
            self.limits,
            devnull=self.env.devnull,
            reaper=self.env.reaper,
            stdin_fd=stdin_fd,
            judge_fds=self.judge_fds if role == "judge" else (),
        )
        self.procs.append(proc)
        return proc

    def _adopt_warm(self) -> Proc | None:
        """The worker's pre-forked, already hardened candidate process, if it was prepared for these limits."""
        warm = self.env.take_warm(self.limits)
        if warm is None:
            return None
        warm.adopt(self.limits)
        self.procs.append(warm)
        return warm

    def _kill(self, proc: Proc | None) -> None:
        if proc is None or proc.dead:
            return
        self.blocked.worker_busy = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.status = self.env.reaper.wait(proc.pid)
        proc.drain()
        self._collect_output(proc)
        proc.close()
        proc.dead = True
        # Anything that left the process group (impossible under seccomp) dies with the cgroup sweep.
        self.env.cgroups.kill_except({p.pid for p in self.procs if not p.dead})
        if proc is self.cand:
            self.cand = None
        if proc is self.judge:
            self.judge = None

    def _collect_output(self, proc: Proc) -> None:
        for mine, theirs in ((self.stdout, proc.stdout), (self.stderr, proc.stderr)):
            room = EXCERPT_BYTES - len(mine)
            if room > 0:
                mine += theirs[:room]

    def _send(self, proc: Proc, message: dict[str, Any], deadline: float) -> bool:
        """Write a request without ever blocking past the deadline; False if the process cannot take it."""
        return self._send_bytes(proc, frames.encode_frame(message), deadline)

    def _send_bytes(self, proc: Proc, payload: bytes, deadline: float) -> bool:
        self.blocked.worker_busy = True  # the job may be waiting on this worker (a relay, the next request)
        data = memoryview(payload)
        while data:
            try:
                written = os.write(proc.req_w, data)
                data = data[written:]
                continue
            except BlockingIOError:
                pass
            except OSError:
                return False
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            poller = select.poll()
            poller.register(proc.req_w, select.POLLOUT)
            poller.register(proc.pidfd, select.POLLIN)
            poller.poll(remaining * 1000)
            if pidfd_exited(proc.pidfd):
                return False
        return True

    def _wait(
        self, procs: list[Proc], deadline: float, clock: Clock | None = None
    ) -> tuple[Proc | None, dict[str, Any] | str]:
        """Next frame from any of `procs`, or an event: 'timeout' (wall clock), 'cpu_timeout' and
        'blocked_timeout' (with a `clock`), 'host_gone', 'exited', 'protocol', 'output_limit'.

        With a clock the job's CPU is read at intervals of the CPU left divided
        by the cores the job may use, so it cannot pass its allowance by more
        than MIN_CPU_CHECK_S per core between two readings; its blocked time is
        sampled every `interval_for(budget)` (at most 0.1 s).
        """
        try:
            return self._poll_until(procs, deadline, clock)
        finally:
            self.blocked.worker_busy = True  # whatever comes back, the worker now works for the job

    def _poll_until(
        self, procs: list[Proc], deadline: float, clock: Clock | None
    ) -> tuple[Proc | None, dict[str, Any] | str]:
        next_check = math.inf
        tracked = clock is not None and clock.blocked_limit < math.inf and self.blocked.enabled
        interval = interval_for(clock.blocked_limit) if clock is not None and tracked else math.inf
        if clock is not None:
            deadline = min(deadline, clock.wall_deadline)
            next_check = time.monotonic() + self._check_interval(clock.cpu_deadline - clock.cpu_start)
        while True:
            for proc in procs:
                if proc.frames:
                    return proc, proc.frames.popleft()
            for proc in procs:
                if proc.fault:
                    return proc, proc.fault
            for proc in procs:
                if proc.exited:
                    return proc, "exited"
            now = time.monotonic()
            if clock is not None and now >= next_check:
                left = clock.cpu_deadline - self.meter.read()
                if left <= 0:
                    return None, "cpu_timeout"
                next_check = now + self._check_interval(left)
            if clock is not None and tracked and now >= self.blocked.due:
                blocked = self.blocked.sample(now, self.meter.read(), interval) - clock.blocked_start
                if blocked >= clock.blocked_limit:
                    return None, "blocked_timeout"
            remaining = deadline - now
            if remaining <= 0:
                return None, "timeout"
            wake = min(remaining, next_check - now, self.blocked.due - now if tracked else math.inf)
            poller = select.poll()
            owners: dict[int, tuple[Proc, str]] = {}
            for proc in procs:
                for fd in proc.read_fds:
                    poller.register(fd, select.POLLIN)
                    owners[fd] = (proc, "read")
                poller.register(proc.pidfd, select.POLLIN)
                owners[proc.pidfd] = (proc, "pidfd")
            if not self.host_talking:
                poller.register(self.host_fd, select.POLLIN)
            for fd, _event in poller.poll(max(1, math.ceil(wake * 1000))):
                if fd == self.host_fd:
                    if _peer_closed(self.host):
                        self.host_gone = True
                        return None, "host_gone"
                    self.host_talking = True  # data for after this job: stop polling it (no busy loop)
                    continue
                proc, what = owners[fd]
                if what == "read":
                    if fd in proc.read_fds:
                        proc.on_readable(fd)
                else:
                    proc.drain()
                    proc.exited = True

    def _check_interval(self, cpu_left: float) -> float:
        return max(MIN_CPU_CHECK_S, cpu_left / self.meter.cores)

    def _clock(self, cpu_limit: float, wall_limit: float, blocked_limit: float = math.inf,
               cpu_start: float | None = None, wall_start: float | None = None) -> Clock:
        """A clock starting now (or at the given readings), bounded by the suite's caps.

        Its blocked time counts from the job's total at the last sample (a test may inherit up
        to one sampling interval of its predecessor's blocked time, never more).
        """
        return Clock(
            self.meter.read() if cpu_start is None else cpu_start,
            cpu_limit,
            time.monotonic() if wall_start is None else wall_start,
            wall_limit,
            self.cpu_cap,
            self.wall_cap,
            self.blocked.blocked,
            blocked_limit,
        )

    def _time_up(self, event: str, clock: Clock) -> dict[str, Any]:
        """The status of a test whose CPU allowance ran out ('cpu_timeout') or whose backstop passed ('timeout')."""
        used = max(0.0, self.meter.read() - clock.cpu_start)
        if event == "blocked_timeout":
            blocked = self.blocked.blocked - clock.blocked_start
            return {"status": "blocked_timeout", "cpu_s": used,
                    "detail": f"blocked-time limit: {blocked:.2f} s in which no process of the job ran or waited "
                    f"for a CPU (it slept, blocked on a lock or input, or was stopped), budget "
                    f"{clock.blocked_limit:g} s; {used:.3f} s of its {clock.cpu_limit:g} s CPU limit used"}
        if event == "cpu_timeout":
            if clock.cpu_cap < clock.cpu_start + clock.cpu_limit:
                return {"status": "suite_timeout", "cpu_s": used,
                        "detail": f"the suite's CPU limit ran out during this test ({used:.3f} s of CPU used here)"}
            return {"status": "cpu_timeout", "cpu_s": used,
                    "detail": f"CPU time limit: {used:.3f} s of CPU used, limit {clock.cpu_limit:g} s"}
        if clock.wall_cap < clock.wall_start + clock.wall_limit:
            return {"status": "suite_timeout", "cpu_s": used,
                    "detail": "the suite's wall-clock backstop passed during this test"}
        return {"status": "wall_timeout", "cpu_s": used,
                "detail": f"wall-clock backstop: no answer within {clock.wall_limit:g} s, having used {used:.3f} s "
                f"of its {clock.cpu_limit:g} s CPU limit (it slept, blocked, waited or was stopped)"}

    def blocked_accounting(self) -> str:
        """How blocked time was measured, for the job's limits report."""
        sampler = self.blocked.sampler
        if not sampler.available:
            return f"not measured ({sampler.why_unavailable}): the wall-clock backstop alone ends blocked programs"
        return "schedstat of every job task (run + run-queue wait) and of the worker while it works for the job"

    def _charge(self, result: dict[str, Any], clock: Clock) -> float:
        """Record the test's CPU and limits on `result`; an answer after the CPU limit is a CPU timeout.

        Returns the meter reading the next test starts from.
        """
        reading = self.meter.read()
        used = max(0.0, reading - clock.cpu_start)
        result.setdefault("cpu_s", used)
        if result.get("status") in _ANSWERED and used > clock.cpu_deadline - clock.cpu_start:
            kept = {k: result[k] for k in ("duration_s", "stderr") if k in result}
            result.clear()
            result.update(self._time_up("cpu_timeout", clock), **kept)
            result["cpu_s"] = used
        result["cpu_limit_s"] = clock.cpu_limit
        result["wall_limit_s"] = clock.wall_limit
        return reading

    def _end_event(self, proc: Proc | None, event: str, clock: Clock | None = None) -> dict[str, Any]:
        """Status for a test whose process did not answer; kills what must die."""
        if event in TIME_UP:
            if clock is not None:
                return self._time_up(event, clock)
            return {"status": "timeout", "detail": "no answer in time"}
        if event == "host_gone":
            return {"status": "harness_error", "detail": "host closed the channel"}
        assert proc is not None
        if event == "protocol":
            detail = proc.fault_detail
            self._kill(proc)
            if proc.role == "judge":
                return {"status": "harness_error", "detail": f"judge: {detail}"}
            return {"status": "violation", "detail": detail}
        if event == "output_limit":
            detail = proc.fault_detail
            self._kill(proc)
            return {"status": "output_limit", "detail": detail}
        self._kill(proc)  # exited: reap it and classify the exit status
        kind, detail = describe_status(proc.status)
        if proc.role == "judge" and kind == "crashed":
            return {"status": "crashed", "detail": f"judge process: {detail}", "stderr": as_text(proc.window)}
        return {"status": kind, "detail": detail}

    def _await_hello(self, proc: Proc, deadline: float) -> dict[str, Any] | None:
        """Wait for the process to report its hardening; returns a failure status if it does not."""
        owner, item = self._wait([proc], max(deadline, time.monotonic() + HELLO_GRACE_S))
        if isinstance(item, dict) and isinstance(item.get("hello"), dict):
            proc.layers = {str(k): str(v) for k, v in item["hello"].items()}
            for key, value in proc.layers.items():
                if self.layers.get(key, "active") == "active":
                    self.layers[key] = value
            return None
        if isinstance(item, dict):
            self._kill(proc)
            return {"status": "harness_error", "detail": "job process did not report its hardening"}
        status = self._end_event(owner, item)
        if status["status"] in ("crashed", "timeout"):
            status = {"status": "harness_error", "detail": f"job process failed while hardening: {status['detail']}"}
            status["stderr"] = as_text(proc.window)
        self._kill(proc)
        return status

    def _stop_all(self) -> None:
        """SIGKILL every live job process group now; reaping waits for finish()."""
        for proc in self.procs:
            if not proc.dead:
                proc.drain()
                self._collect_output(proc)
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except OSError:
                    pass

    def finish(self) -> None:
        """Reap, empty the cgroups, kill escaped orphans, clean the job directory (after the result went out)."""
        for proc in self.procs:
            if not proc.dead:
                proc.status = self.env.reaper.wait(proc.pid)
                proc.close()
                proc.dead = True
        self.env.sweep_after_job()


def as_text(data: bytes | bytearray) -> str:
    """Captured output as text (invalid UTF-8 replaced)."""
    return bytes(data).decode("utf-8", errors="replace")


def _peer_closed(sock: socket.socket) -> bool:
    try:
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
