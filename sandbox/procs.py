"""Job processes as the worker sees them: forking one (`spawn`), its record (`Proc`), and reaping (`Reaper`).

The worker is a child subreaper, so `waitpid` hands it both its own job
processes and descendants of theirs that were reparented to it. `Reaper`
keeps the two apart so that an orphan sweep never swallows a tracked child's
exit status. Nothing here knows about tests or verdicts: `sandbox.job_io`
and `sandbox.job` turn what these records capture into per-test statuses.
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
from collections import deque
from typing import TYPE_CHECKING, Any

from sandbox import child, frames

if TYPE_CHECKING:
    from sandbox.hardening import Plan

EXCERPT_BYTES = 4096
WINDOW_BYTES = 2048
ORPHAN_SWEEPS = 20


class Reaper:
    """waitpid() bookkeeping for a subreaper: orphans are reaped without losing a tracked child's status.

    Every reap goes through wait4, so the CPU time of each process the worker
    reaps (with its own reaped children) is added to `reaped_cpu`: a job's
    CPU still counts after its processes are gone.
    """

    def __init__(self) -> None:
        self.tracked: set[int] = set()
        self.statuses: dict[int, int] = {}
        self.reaped_cpu = 0.0

    def _wait4(self, pid: int, options: int) -> tuple[int, int]:
        found, status, usage = os.wait4(pid, options)
        if found:
            self.reaped_cpu += usage.ru_utime + usage.ru_stime
        return found, status

    def reap_orphans(self) -> None:
        while True:
            try:
                pid, status = self._wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid in self.tracked:
                self.statuses[pid] = status

    def wait(self, pid: int) -> int | None:
        if pid not in self.statuses:
            try:
                _, status = self._wait4(pid, 0)
                self.statuses[pid] = status
            except ChildProcessError:
                pass
        self.tracked.discard(pid)
        return self.statuses.pop(pid, None)

    def kill_orphans(self) -> None:
        """SIGKILL every process reparented to this subreaper (descendants that left their group), then reap them."""
        me = os.getpid()
        for _ in range(ORPHAN_SWEEPS):
            found = False
            for name in os.listdir("/proc"):
                if not name.isdigit():
                    continue
                try:
                    with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as f:
                        ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
                if ppid == me:
                    found = True
                    try:
                        os.kill(int(name), signal.SIGKILL)
                    except OSError:
                        pass
            self.reap_orphans()
            if not found:
                return


class Proc:
    """A forked job process as the worker sees it: channels, captured output, fate."""

    def __init__(
        self, role: str, pid: int, pidfd: int, req_w: int, rep_r: int, out_r: int, err_r: int, limits: dict[str, Any]
    ):
        self.role = role
        self.pid = pid
        self.pidfd = pidfd
        self.req_w = req_w
        self.read_fds = {rep_r: "rep", out_r: "out", err_r: "err"}
        self.reader = frames.FrameReader(max_bytes=int(limits["result_bytes"]) + (1 << 16))
        self.frames: deque[dict[str, Any]] = deque()
        self.output_cap = int(limits["output_bytes"])
        self.keep_stdout = EXCERPT_BYTES
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.totals = {"out": 0, "err": 0}
        self.window = bytearray()
        self.fault: str | None = None
        self.fault_detail = ""
        self.exited = False
        self.status: int | None = None
        self.dead = False
        self.layers: dict[str, str] | None = None

    def adopt(self, limits: dict[str, Any]) -> None:
        """Take over a pre-forked process for a job with these limits."""
        self.reader.max_bytes = int(limits["result_bytes"]) + (1 << 16)
        self.output_cap = int(limits["output_bytes"])

    def on_readable(self, fd: int) -> None:
        kind = self.read_fds[fd]
        while True:
            try:
                data = os.read(fd, 1 << 16)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:
                os.close(fd)
                del self.read_fds[fd]
                return
            if kind == "rep":
                try:
                    self.frames.extend(self.reader.feed(data))
                except frames.FrameError as exc:
                    self._set_fault("protocol", f"malformed reply: {exc}")
                    return
                continue
            self.totals[kind] += len(data)
            if kind == "out":
                room = self.keep_stdout - len(self.stdout)
                if room > 0:
                    self.stdout += data[:room]
            else:
                if len(self.stderr) < EXCERPT_BYTES:
                    self.stderr += data[: EXCERPT_BYTES - len(self.stderr)]
                if len(self.window) < WINDOW_BYTES:
                    self.window += data[: WINDOW_BYTES - len(self.window)]
            if self.totals[kind] > self.output_cap:
                name = "stdout" if kind == "out" else "stderr"
                self._set_fault("output_limit", f"{name} exceeded {self.output_cap} bytes")
                return

    def drain(self) -> None:
        for fd in list(self.read_fds):
            if fd in self.read_fds:
                self.on_readable(fd)

    def _set_fault(self, fault: str, detail: str) -> None:
        if self.fault is None:
            self.fault, self.fault_detail = fault, detail

    def close(self) -> None:
        for fd in [*self.read_fds, self.req_w, self.pidfd]:
            try:
                os.close(fd)
            except OSError:
                pass
        self.read_fds = {}
        self.req_w = self.pidfd = -1


def describe_status(status: int | None) -> tuple[str, str]:
    """(status kind, detail) for a process that ended without answering."""
    if status is None:
        return "crashed", "process ended (status unknown)"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = str(sig)
        if sig == signal.SIGSYS:
            return "violation", "killed by seccomp (SIGSYS): a forbidden system call"
        if sig == signal.SIGXCPU:
            return "cpu_timeout", "the job process's own CPU backstop (RLIMIT_CPU, SIGXCPU)"
        if sig == signal.SIGXFSZ:
            return "output_limit", "file size limit (SIGXFSZ)"
        return "crashed", f"process killed by {name}"
    return "crashed", f"process exited with status {os.WEXITSTATUS(status)} before answering"


def pidfd_exited(pidfd: int) -> bool:
    """True once the process behind `pidfd` has exited (or there is no pidfd any more)."""
    if pidfd < 0:
        return True
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    return bool(poller.poll(0))


def spawn(
    role: str,
    job: dict[str, Any],
    plan: Plan,
    limits: dict[str, Any],
    *,
    devnull: int,
    reaper: Reaper,
    stdin_fd: int | None = None,
    judge_fds: list[int] | tuple[int, ...] = (),
) -> Proc:
    """Fork one job process: own process group, channels on fixed descriptors, hardened before anything else.

    `devnull` is its stdin unless `stdin_fd` is given; `reaper` tracks it so
    that its exit status survives orphan sweeps.
    """
    req_r, req_w = os.pipe()
    rep_r, rep_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    placement = {0: stdin_fd if stdin_fd is not None else devnull, 1: out_w, 2: err_w, 3: req_r, 4: rep_w}
    if role == "judge":
        placement[5], placement[6] = judge_fds[0], judge_fds[1]
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        try:
            os.setpgid(0, 0)
            _place_fds(placement)
            child.run_role(role, job, plan)
        finally:
            os._exit(71)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass  # the child did it first
    reaper.tracked.add(pid)
    for fd in (req_r, rep_w, out_w, err_w):
        os.close(fd)
    for fd in (rep_r, out_r, err_r, req_w):
        os.set_blocking(fd, False)
    proc = Proc(role, pid, os.pidfd_open(pid), req_w, rep_r, out_r, err_r, limits)
    if role == "stdio":
        proc.keep_stdout = proc.output_cap
    return proc


def kill_now(proc: Proc, reaper: Reaper) -> None:
    """Kill and reap a job process outside any job (a pre-forked one that will not be used)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    reaper.wait(proc.pid)
    proc.close()
    proc.dead = True


def _place_fds(placement: dict[int, int]) -> None:
    """dup2 each source onto its target number without clobbering a source that sits on another target."""
    staged = {target: fcntl.fcntl(source, fcntl.F_DUPFD, 32) for target, source in placement.items()}
    for target, temp in staged.items():
        os.dup2(temp, target, inheritable=True)
        os.set_blocking(target, True)
        os.close(temp)
    for target in range(child.JUDGE_OUT_FD + 1):
        if target not in placement:
            try:
                os.close(target)
            except OSError:
                pass
