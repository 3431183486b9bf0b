"""Running one job's suite inside a worker: load the candidate, pipeline call tests, relay assert checks, run stdio tests.

The worker only ever holds public data (code, test expressions, stdin).
`JobRunner` sends requests, relays the judge's calls to the candidate and
turns each answer into a per-test status; `sandbox.job_io.JobIO` below it
owns the processes and the poll loop. Expected values never pass through
here, so no process forked from the worker can find them; the host makes the
comparisons.
"""

from __future__ import annotations

import math
import os
import time
from typing import Any

from sandbox import frames
from sandbox.job_io import TIME_UP, TIMED_OUT, Clock, JobIO, as_text
from sandbox.limits import backstop_in
from sandbox.procs import Proc, pidfd_exited

PIPELINE_BYTES = 48 * 1024  # requests sent ahead stay below one pipe buffer


class JobRunner(JobIO):
    """Runs one job (a candidate with its whole suite) and returns the raw per-test statuses."""

    def run(self) -> dict[str, Any]:
        started = time.monotonic()
        cpu_started = self.meter.read()
        suite_cap = self.limits.get("suite_timeout_s")
        if suite_cap:
            self.cpu_cap = cpu_started + float(suite_cap)
            self.wall_cap = started + backstop_in(self.limits, float(suite_cap))
        self.env.cgroups.set_limits((int(self.limits["memory_mb"]) + 64) << 20, int(self.limits["max_processes"]))
        results: list[dict[str, Any]] = []
        self.timed_out, self.checked = False, 0
        try:
            while len(results) < len(self.tests):
                index = len(results)
                test = self.tests[index]
                if self.host_gone:
                    results.append({"status": "harness_error", "detail": "host closed the channel"})
                elif self._suite_spent():
                    results.append({"status": "not_run", "detail": "suite time limit reached before this test"})
                elif self._stopped(results):
                    results.append({"status": "not_run_after_timeout",
                                    "detail": "not run: an earlier test timed out"})
                elif test.get("kind") == "call":
                    results.extend(self._run_call_block(index))
                else:
                    results.append(self._run_test(index, test))
        finally:
            self._stop_all()
        return {
            "tests": results,
            "layers": self.layers,
            "stdout": as_text(self.stdout),
            "stderr": as_text(self.stderr),
            "worker_s": time.monotonic() - started,
            "cpu_s": max(0.0, self.meter.read() - cpu_started),
            "cpu_accounting": self.meter.describe(),
            "blocked_accounting": self.blocked_accounting(),
        }

    def _stopped(self, results: list[dict[str, Any]]) -> bool:
        """With `stop_after_timeout`, a test that timed out ends the suite: a stuck program costs one limit."""
        if self.stop_after_timeout and not self.timed_out:
            self.timed_out = any(r.get("status") in TIMED_OUT for r in results[self.checked:])
            self.checked = len(results)
        return self.timed_out

    def _suite_spent(self) -> bool:
        if self.wall_cap == math.inf:
            return False
        return time.monotonic() >= self.wall_cap or self.meter.read() >= self.cpu_cap

    def _test_clock(self, index: int, cpu_start: float | None = None, wall_start: float | None = None) -> Clock:
        return self._clock(self.cpu_limits[index], self.wall_limits[index], self.blocked_limits[index],
                           cpu_start, wall_start)

    def _run_test(self, index: int, test: dict[str, Any]) -> dict[str, Any]:
        kind = test.get("kind")
        oom_before = self.env.cgroups.oom_kills()
        if kind == "stdio":
            clock = self._test_clock(index)
            result = self._run_stdio(test, clock)
        else:
            problem = self._ensure_candidate()
            if problem is not None:
                return dict(problem)
            clock = self._test_clock(index)
            proc = self.cand
            assert proc is not None
            proc.window = bytearray()
            result = self._run_assert(index, clock)
            result["duration_s"] = time.monotonic() - clock.wall_start
            result.setdefault("stderr", as_text(proc.window))
            self._charge(result, clock)
        if self.env.cgroups.oom_kills() > oom_before:
            result = {**result, "status": "memory_limit", "detail": "the job's memory cgroup hit its limit (OOM kill)"}
            self._kill(self.cand)
            self._kill(self.judge)
        return result

    def _ensure_candidate(self) -> dict[str, Any] | None:
        """A live candidate process with the code loaded, or the load's failure (loading has its own clock)."""
        if self.load is not None and self.load["status"] != "ok":
            return self.load
        if self.cand is not None and not self.cand.exited:
            return None
        self._kill(self.cand)
        clock = self._clock(*self.load_limits)
        deadline = clock.wall_deadline
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
            "shared_namespace": self.job.get("shared_namespace") is True,
            "result_bytes": int(self.limits["result_bytes"]),
            "cpu_seconds": self.rlimit_cpu,
        }
        if not self._send(proc, start, deadline):
            self._kill(proc)
            self.load = {"status": "harness_error", "detail": "candidate process did not accept its code"}
            return self.load
        owner, item = self._wait([proc], deadline, clock)
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
            self.load = {"status": status, **_exception_fields(item), "at_load": True, "stderr": as_text(proc.window)}
            self._kill(proc)
            return self.load
        if isinstance(item, dict):
            self._kill(proc)
            self.load = {"status": "violation", "detail": "candidate process sent an unexpected frame while loading"}
            return self.load
        status = self._end_event(owner, item, clock)
        self._kill(proc)
        self.load = {**status, "at_load": True, "stderr": as_text(proc.window)}
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

    def _run_call_block(self, first: int) -> list[dict[str, Any]]:
        """Run consecutive call tests from `first` with their requests pipelined; returns results for a prefix (>= 1).

        The candidate process answers them back to back, so it never sleeps
        between tests; test k's clocks (CPU and wall) start when answer k-1 arrives.
        """
        problem = self._ensure_candidate()
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
        clock = self._test_clock(first)
        proc.window = bytearray()
        if not self._send_bytes(proc, b"".join(requests), clock.wall_deadline):
            if pidfd_exited(proc.pidfd):
                proc.drain()
                result = self._end_event(proc, "exited")
            else:
                self._kill(proc)
                result = self._end_event(None, "timeout", clock)
            self._charge(result, clock)
            return [result]
        results: list[dict[str, Any]] = []
        for offset in range(len(requests)):
            oom_before = self.env.cgroups.oom_kills()
            owner, item = self._wait([proc], clock.wall_deadline, clock)
            now = time.monotonic()
            if isinstance(item, dict):
                result = _reply_status(item, proc, self)
            else:
                result = self._end_event(owner, item, clock)
                self._kill(proc)
            if self.env.cgroups.oom_kills() > oom_before:
                result = {
                    **result,
                    "status": "memory_limit",
                    "detail": "the job's memory cgroup hit its limit (OOM kill)",
                }
                self._kill(proc)
            result["duration_s"] = now - clock.wall_start
            result.setdefault("stderr", as_text(proc.window))
            reading = self._charge(result, clock)
            proc.window = bytearray()
            results.append(result)
            if self.stop_after_timeout and result.get("status") in TIMED_OUT:
                self._kill(proc)  # answered past its CPU limit: the pipelined tests after it are not run
            if proc.dead:
                break
            if offset + 1 < len(requests):
                clock = self._test_clock(first + offset + 1, reading, now)
        return results

    def _run_assert(self, index: int, clock: Clock) -> dict[str, Any]:
        assert self.cand is not None and self.load is not None
        deadline = clock.wall_deadline
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
            owner, item = self._wait([judge, cand], deadline, clock)
            if isinstance(item, str):
                status = self._end_event(owner, item, clock)
                if owner is not judge:
                    self._kill(judge)  # it may be mid-check, waiting on a dead candidate
                if item in TIME_UP or owner is judge:
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

    def _run_stdio(self, test: dict[str, Any], clock: Clock) -> dict[str, Any]:
        deadline = clock.wall_deadline
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
        owner, item = self._wait([proc], deadline, clock)
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
            result = self._end_event(owner, item, clock)
        result["duration_s"] = time.monotonic() - clock.wall_start
        result.setdefault("stderr", as_text(proc.window))
        self._charge(result, clock)  # before the kill: a stdio test's CPU ends with its answer
        self._kill(proc)
        return result


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

