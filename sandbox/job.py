"""One job inside a worker: fork hardened processes, drive the tests, enforce time and output limits.

The worker only ever holds public data (code, test expressions, stdin). It
sends requests, relays the judge's calls, watches every pipe and pidfd with
one poll loop, and turns whatever happens (a reply, an exit, a timeout, a
flood, a malformed frame) into a per-test status. Expected values never pass
through here, so no process forked from the worker can find them; the host
makes the comparisons.
"""

from __future__ import annotations

import fcntl
import math
import os
import select
import signal
import socket
import sys
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from sandbox import child, frames

if TYPE_CHECKING:
    from sandbox.worker import WorkerEnv

EXCERPT_BYTES = 4096
PIPELINE_BYTES = 48 * 1024  # requests sent ahead stay below one pipe buffer
WINDOW_BYTES = 2048
HELLO_GRACE_S = 5.0


class Reaper:
    """waitpid() bookkeeping for a subreaper: orphans are reaped without losing a tracked child's status."""

    def __init__(self) -> None:
        self.tracked: set[int] = set()
        self.statuses: dict[int, int] = {}

    def reap_orphans(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid in self.tracked:
                self.statuses[pid] = status

    def wait(self, pid: int) -> int | None:
        if pid not in self.statuses:
            try:
                _, status = os.waitpid(pid, 0)
                self.statuses[pid] = status
            except ChildProcessError:
                pass
        self.tracked.discard(pid)
        return self.statuses.pop(pid, None)


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


def _describe_status(status: int | None) -> tuple[str, str]:
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
            return "timeout", "CPU time limit (SIGXCPU)"
        if sig == signal.SIGXFSZ:
            return "output_limit", "file size limit (SIGXFSZ)"
        return "crashed", f"process killed by {name}"
    return "crashed", f"process exited with status {os.WEXITSTATUS(status)} before answering"


def spawn(
    env: WorkerEnv,
    role: str,
    job: dict[str, Any],
    plan: Any,
    limits: dict[str, Any],
    stdin_fd: int | None = None,
    judge_fds: list[int] | tuple[int, ...] = (),
) -> Proc:
    """Fork one job process: own process group, channels on fixed descriptors, hardened before anything else."""
    req_r, req_w = os.pipe()
    rep_r, rep_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    placement = {0: stdin_fd if stdin_fd is not None else env.devnull, 1: out_w, 2: err_w, 3: req_r, 4: rep_w}
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
    env.reaper.tracked.add(pid)
    for fd in (req_r, rep_w, out_w, err_w):
        os.close(fd)
    for fd in (rep_r, out_r, err_r, req_w):
        os.set_blocking(fd, False)
    proc = Proc(role, pid, os.pidfd_open(pid), req_w, rep_r, out_r, err_r, limits)
    if role == "stdio":
        proc.keep_stdout = proc.output_cap
    return proc


class JobRunner:
    """Runs one job (a candidate with its whole suite) and returns the raw per-test statuses."""

    def __init__(self, env: WorkerEnv, job: dict[str, Any], fds: list[int], host: socket.socket):
        self.env = env
        self.job = job
        self.limits: dict[str, Any] = job["limits"]
        self.tests: list[dict[str, Any]] = job["tests"]
        self.judge_fds = fds
        self.host = host
        self.host_fd = host.fileno()
        self.timeout_s = float(self.limits["timeout_s"])
        self.cand: Proc | None = None
        self.judge: Proc | None = None
        self.load: dict[str, Any] | None = None
        self.layers: dict[str, str] = {}
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.host_gone = False
        self.host_talking = False
        self.procs: list[Proc] = []

    # -- process management ------------------------------------------------

    def _spawn(self, role: str, stdin_fd: int | None = None) -> Proc:
        job = {} if role == "candidate" else self.job  # the candidate gets its code in the start frame
        plan = self.env.plan(self.limits, len(self.tests))
        proc = spawn(self.env, role, job, plan, self.limits, stdin_fd, self.judge_fds if role == "judge" else ())
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
            if _pidfd_exited(proc.pidfd):
                return False
        return True

    def _wait(self, procs: list[Proc], deadline: float) -> tuple[Proc | None, dict[str, Any] | str]:
        """Next frame from any of `procs`, or an event: 'timeout', 'host_gone', 'exited', 'protocol', 'output_limit'."""
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
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None, "timeout"
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
            for fd, _event in poller.poll(max(1, math.ceil(remaining * 1000))):
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

    def _end_event(self, proc: Proc | None, event: str) -> dict[str, Any]:
        """Status for a test whose process did not answer; kills what must die."""
        if event == "timeout":
            return {"status": "timeout", "detail": f"no answer within {self.timeout_s:g} s"}
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
        kind, detail = _describe_status(proc.status)
        if proc.role == "judge" and kind == "crashed":
            return {"status": "crashed", "detail": f"judge process: {detail}", "stderr": _text(proc.window)}
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
            status["stderr"] = _text(proc.window)
        self._kill(proc)
        return status

    # -- tests -------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        started = time.monotonic()
        suite_cap = self.limits.get("suite_timeout_s")
        suite_deadline = started + float(suite_cap) if suite_cap else math.inf
        self.env.cgroups.set_limits((int(self.limits["memory_mb"]) + 64) << 20, int(self.limits["max_processes"]))
        results: list[dict[str, Any]] = []
        try:
            while len(results) < len(self.tests):
                index = len(results)
                test = self.tests[index]
                if self.host_gone:
                    results.append({"status": "harness_error", "detail": "host closed the channel"})
                elif time.monotonic() >= suite_deadline:
                    results.append({"status": "not_run", "detail": "suite time limit reached before this test"})
                elif test.get("kind") == "call":
                    results.extend(self._run_call_block(index, suite_deadline))
                else:
                    results.append(self._run_test(index, test, suite_deadline))
        finally:
            self._stop_all()
        return {
            "tests": results,
            "layers": self.layers,
            "stdout": _text(self.stdout),
            "stderr": _text(self.stderr),
            "worker_s": time.monotonic() - started,
        }

    def _run_test(self, index: int, test: dict[str, Any], suite_deadline: float) -> dict[str, Any]:
        kind = test.get("kind")
        oom_before = self.env.cgroups.oom_kills()
        if kind == "stdio":
            result = self._run_stdio(test, suite_deadline)
        else:
            problem = self._ensure_candidate(suite_deadline)
            if problem is not None:
                return dict(problem)
            started = time.monotonic()
            deadline = min(started + self.timeout_s, suite_deadline)
            proc = self.cand
            assert proc is not None
            proc.window = bytearray()
            result = self._run_assert(index, deadline)
            result["duration_s"] = time.monotonic() - started
            result.setdefault("stderr", _text(proc.window))
        if self.env.cgroups.oom_kills() > oom_before:
            result = {**result, "status": "memory_limit", "detail": "the job's memory cgroup hit its limit (OOM kill)"}
            self._kill(self.cand)
            self._kill(self.judge)
        return result

    def _ensure_candidate(self, suite_deadline: float) -> dict[str, Any] | None:
        if self.load is not None and self.load["status"] != "ok":
            return self.load
        if self.cand is not None and not self.cand.exited:
            return None
        self._kill(self.cand)
        deadline = min(time.monotonic() + self.timeout_s, suite_deadline)
        proc = self._adopt_warm()
        if proc is None or self._await_hello(proc, deadline) is not None:
            self._kill(proc)
            proc = self._spawn("candidate")
            problem = self._await_hello(proc, deadline)
            if problem is not None:
                self.load = problem
                return problem
        self.cand = proc
        start = {
            "op": "start",
            "code": self.job["code"],
            "entry_point": self.job.get("entry_point"),
            "aliases": self.job.get("aliases") or [],
            "result_bytes": int(self.limits["result_bytes"]),
            "cpu_seconds": self.env.cpu_seconds(self.limits, len(self.tests)),
        }
        if not self._send(proc, start, deadline):
            self._kill(proc)
            self.load = {"status": "harness_error", "detail": "candidate process did not accept its code"}
            return self.load
        owner, item = self._wait([proc], deadline)
        if isinstance(item, dict) and item.get("load") == "ok":
            entry = item.get("entry")
            names = item.get("names")
            self.load = {
                "status": "ok",
                "entry": entry if isinstance(entry, str) else None,
                "names": [n for n in names if isinstance(n, str)][:10_000] if isinstance(names, list) else [],
            }
            return None
        if isinstance(item, dict) and item.get("load") == "error":
            status = "syntax_error" if item.get("syntax") else "raised"
            self.load = {"status": status, **_exception_fields(item), "at_load": True, "stderr": _text(proc.window)}
            self._kill(proc)
            return self.load
        if isinstance(item, dict):
            self._kill(proc)
            self.load = {"status": "violation", "detail": "candidate process sent an unexpected frame while loading"}
            return self.load
        status = self._end_event(owner, item)
        self._kill(proc)
        self.load = {**status, "at_load": True, "stderr": _text(proc.window)}
        return self.load

    def _call_request(self, test: dict[str, Any]) -> dict[str, Any]:
        """The request for a call test, or (key 'status') the failure when there is nothing to call."""
        if "expr" in test:
            return {"op": "eval", "expr": test["expr"]}
        entry = (self.load or {}).get("entry")
        if not entry:
            wanted = [n for n in [self.job.get("entry_point"), *(self.job.get("aliases") or [])] if n]
            return {
                "status": "raised",
                "exc_type": "MissingEntryPoint",
                "message": f"the candidate defines none of {wanted}",
            }
        return {"op": "call", "target": entry, "args": test.get("args", []), "kwargs": test.get("kwargs", {"$d": []})}

    def _run_call_block(self, first: int, suite_deadline: float) -> list[dict[str, Any]]:
        """Run consecutive call tests from `first` with their requests pipelined; returns results for a prefix (>= 1).

        The candidate process answers them back to back, so it never sleeps
        between tests; test k's clock starts when answer k-1 arrives.
        """
        problem = self._ensure_candidate(suite_deadline)
        if problem is not None:
            return [dict(problem)]
        proc = self.cand
        assert proc is not None
        requests: list[bytes] = []
        size = 0
        for index in range(first, len(self.tests)):
            test = self.tests[index]
            if test.get("kind") != "call":
                break
            request = self._call_request(test)
            if "status" in request:
                if not requests:
                    return [request]
                break
            data = frames.encode_frame(request)
            if requests and size + len(data) > PIPELINE_BYTES:
                break
            requests.append(data)
            size += len(data)
        previous = time.monotonic()
        proc.window = bytearray()
        if not self._send_bytes(proc, b"".join(requests), min(previous + self.timeout_s, suite_deadline)):
            if _pidfd_exited(proc.pidfd):
                proc.drain()
                return [self._end_event(proc, "exited")]
            self._kill(proc)
            return [self._end_event(None, "timeout")]
        results: list[dict[str, Any]] = []
        for _ in requests:
            oom_before = self.env.cgroups.oom_kills()
            owner, item = self._wait([proc], min(previous + self.timeout_s, suite_deadline))
            now = time.monotonic()
            if isinstance(item, dict):
                result = _reply_status(item, proc, self)
            else:
                result = self._end_event(owner, item)
                self._kill(proc)
            if self.env.cgroups.oom_kills() > oom_before:
                result = {
                    **result,
                    "status": "memory_limit",
                    "detail": "the job's memory cgroup hit its limit (OOM kill)",
                }
                self._kill(proc)
            result["duration_s"] = now - previous
            result.setdefault("stderr", _text(proc.window))
            proc.window = bytearray()
            previous = now
            results.append(result)
            if proc.dead:
                break
        return results

    def _run_assert(self, index: int, deadline: float) -> dict[str, Any]:
        assert self.cand is not None and self.load is not None
        if len(self.judge_fds) < 2:
            return {"status": "harness_error", "detail": "no judge channel was provided for assert tests"}
        if self.judge is None:
            self.judge = self._spawn("judge")
            problem = self._await_hello(self.judge, deadline)
            if problem is not None:
                return problem
        judge, cand = self.judge, self.cand
        assert judge is not None
        judge.window = bytearray()
        request = {
            "op": "assert",
            "i": index,
            "entry": self.load.get("entry"),
            "names": self.load.get("names", []),
            "wanted": self.job.get("entry_point"),
        }
        if not self._send(judge, request, deadline):
            self._kill(judge)
            return {"status": "harness_error", "detail": "judge process did not accept the test"}
        pending = False
        while True:
            owner, item = self._wait([judge, cand], deadline)
            if isinstance(item, str):
                status = self._end_event(owner, item)
                if owner is not judge:
                    self._kill(judge)  # it may be mid-check, waiting on a dead candidate
                if item == "timeout" or owner is judge:
                    self._kill(cand)
                return status
            if owner is judge:
                if item.get("op") == "call" and not pending and isinstance(item.get("target"), str):
                    forward = {
                        "op": "call",
                        "target": item["target"],
                        "args": item.get("args"),
                        "kwargs": item.get("kwargs"),
                    }
                    if not self._send(cand, forward, deadline):
                        continue  # the wait loop will see the exit or the deadline
                    pending = True
                elif item.get("done") == index and not pending:
                    return {"status": "judged"}
                else:
                    self._kill(judge)
                    self._kill(cand)
                    return {"status": "harness_error", "detail": "judge sent an unexpected frame"}
            else:
                if pending and "ok" in item:
                    if not self._send(judge, item, deadline):
                        continue
                    pending = False
                else:
                    self._kill(cand)
                    self._kill(judge)
                    return {"status": "violation", "detail": "candidate process spoke out of turn"}

    def _run_stdio(self, test: dict[str, Any], suite_deadline: float) -> dict[str, Any]:
        started = time.monotonic()
        deadline = min(started + self.timeout_s, suite_deadline)
        stdin_fd = os.memfd_create("stdin", os.MFD_CLOEXEC)
        try:
            frames.write_all(stdin_fd, str(test.get("stdin", "")).encode("utf-8"))
            os.lseek(stdin_fd, 0, os.SEEK_SET)
            proc = self._spawn("stdio", stdin_fd)
        finally:
            os.close(stdin_fd)
        problem = self._await_hello(proc, deadline)
        if problem is not None:
            return problem
        owner, item = self._wait([proc], deadline)
        if isinstance(item, dict) and "exit" in item:
            proc.drain()
            if proc.fault == "output_limit":
                result = self._end_event(proc, "output_limit")
            else:
                out = bytes(proc.stdout).decode("utf-8", errors="replace")
                if item["exit"] == "ok":
                    result = {"status": "exited", "stdout": out}
                else:
                    status = "syntax_error" if item.get("syntax") else "raised"
                    result = {"status": status, **_exception_fields(item), "stdout": out}
        elif isinstance(item, dict):
            result = {"status": "violation", "detail": "stdio process sent an unexpected frame"}
        else:
            result = self._end_event(owner, item)
        result["duration_s"] = time.monotonic() - started
        result.setdefault("stderr", _text(proc.window))
        self._kill(proc)
        return result

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
        leftovers = self.env.cgroups.kill_all()
        if leftovers:
            print(f"sandbox worker: processes {leftovers} survived the job kill", file=sys.stderr, flush=True)
        self.env.kill_orphans()
        self.env.reaper.reap_orphans()
        self.env.clean_job_dir()


def _text(data: bytes | bytearray) -> str:
    return bytes(data).decode("utf-8", errors="replace")


def _exception_fields(item: dict[str, Any]) -> dict[str, Any]:
    return {
        "exc_type": str(item.get("exc_type", "Exception"))[:200],
        "message": str(item.get("message", ""))[:2000],
        "traceback": str(item.get("traceback", ""))[-2000:],
    }


def _reply_status(item: dict[str, Any], proc: Proc, runner: JobRunner) -> dict[str, Any]:
    if item.get("ok") is True and "value" in item:
        return {"status": "value", "value": item["value"]}
    if item.get("ok") is False:
        return {"status": "raised", **_exception_fields(item)}
    runner._kill(proc)
    return {"status": "violation", "detail": "candidate process sent a malformed reply"}


def _pidfd_exited(pidfd: int) -> bool:
    if pidfd < 0:
        return True
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    return bool(poller.poll(0))


def _peer_closed(sock: socket.socket) -> bool:
    try:
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


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
