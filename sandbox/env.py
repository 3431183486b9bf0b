"""What one job needs from the worker that hosts it, named as protocols so the job never imports the worker.

`sandbox.worker.WorkerEnv` satisfies `JobEnv` structurally; `sandbox.job`
and `sandbox.job_io` depend only on these names. Dependencies then run one
way: worker -> job -> job_io -> procs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from sandbox.cputime import CpuMeter
    from sandbox.hardening import Plan
    from sandbox.procs import Proc, Reaper


class JobCgroupControl(Protocol):
    """The job-cgroup operations used while a job runs (`sandbox.cgroups.JobCgroups` has them)."""

    def set_limits(self, memory_bytes: int, pids_max: int) -> None: ...

    def oom_kills(self) -> int: ...

    def kill_except(self, keep: set[int]) -> None: ...


@runtime_checkable
class JobEnv(Protocol):
    """Prepared once per worker, used by every job it runs."""

    @property
    def devnull(self) -> int:
        """A descriptor on /dev/null: stdin for job processes that get none."""
        ...

    @property
    def reaper(self) -> Reaper:
        """Tracks job processes so their exit statuses survive orphan sweeps."""
        ...

    @property
    def cgroups(self) -> JobCgroupControl: ...

    @property
    def cpu_meter(self) -> CpuMeter:
        """Cumulative CPU seconds of the job's processes, read from outside them."""
        ...

    def plan(self, limits: dict[str, Any], cpu_seconds: int) -> Plan:
        """How a job process with these limits (and this RLIMIT_CPU backstop) hardens itself."""
        ...

    def take_warm(self, limits: dict[str, Any]) -> Proc | None:
        """The pre-forked candidate process, if it was hardened for these limits (it is then the job's)."""
        ...

    def sweep_after_job(self) -> None:
        """Kill whatever the job left behind and empty its directory (after its processes were reaped)."""
        ...
