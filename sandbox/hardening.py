"""Per-job hardening, run inside a freshly forked job process before any untrusted code.

Order matters: join the job cgroups and set rlimits while still root, set
no_new_privs, enforce Landlock, close every inherited descriptor except the
job's own, drop to the unprivileged uid (which also makes the process
non-dumpable, so same-uid processes cannot open its /proc files), arm the
parent-death signal, and install seccomp last because it forbids calls the
earlier steps need. Each step reports 'active' or 'unavailable: why'; a step
that was expected to work and fails is reported, never silently skipped.
"""

from __future__ import annotations

import math
import os
import resource
import signal
from dataclasses import dataclass, field
from typing import Any

from sandbox import syscalls
from sandbox.landlock import Ruleset
from sandbox.seccomp import Filter

KEEP_FDS = 7  # 0 stdin, 1 stdout, 2 stderr, 3 requests, 4 replies, 5-6 judge memfds
CGROUP_LAYERS = ("cgroup_memory", "cgroup_pids", "cgroup_cpu")


@dataclass
class Plan:
    """Everything a job process needs to harden itself; prepared by the worker, shared by fork."""

    job_dir: str
    base_vm_bytes: int = 0
    cgroup_fds: list[tuple[tuple[str, ...], int]] = field(default_factory=list)  # (layers, cgroup.procs fd)
    cgroup_inherited: tuple[str, ...] = ()  # layers a job process has from birth (v1 cpuacct: the worker's cgroup)
    uid: int | None = None
    gid: int | None = None
    ruleset: Ruleset | None = None
    seccomp: Filter | None = None
    memory_bytes: int = 512 << 20
    cpu_seconds: int = 60
    file_bytes: int = 16 << 20
    open_files: int = 256
    processes: int = 64
    unavailable: dict[str, str] = field(default_factory=dict)  # layers the worker could not prepare


def _set(limit: int, soft: int, hard: int | None = None) -> None:
    hard = soft if hard is None else hard
    cur_soft, cur_hard = resource.getrlimit(limit)
    if cur_hard != resource.RLIM_INFINITY:
        hard = min(hard, cur_hard)
        soft = min(soft, hard)
    resource.setrlimit(limit, (soft, hard))


def vm_size() -> int:
    """Current address-space size; measured in the worker just before fork (the child's is the same)."""
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[0]) * resource.getpagesize()


def cpu_seconds_for(limits: dict[str, Any], cpu_limits: list[float]) -> int:
    """RLIMIT_CPU backstop for one job process: every test's CPU limit plus loading (or the suite's cap)."""
    load = float(limits["timeout_s"])
    total = load + sum(cpu_limits)
    if limits.get("suite_timeout_s"):
        total = min(total, float(limits["suite_timeout_s"]) + load)
    return math.ceil(total) + 1


def apply(plan: Plan) -> dict[str, str]:
    """Harden the calling (single-threaded, just-forked) process; returns the layer report."""
    report: dict[str, str] = dict(plan.unavailable)
    pid = os.getpid()

    report["process_group"] = "active" if os.getpgrp() == pid else "unavailable: not a process-group leader"

    joined: set[str] = set(plan.cgroup_inherited)
    for layers, fd in plan.cgroup_fds:
        try:
            os.write(fd, str(pid).encode())
            joined.update(layers)
        except OSError as exc:
            for layer in layers:
                report.setdefault(layer, f"unavailable: joining the job cgroup failed ({exc.strerror})")
    for layer in CGROUP_LAYERS:
        report.setdefault(layer, "active" if layer in joined else "unavailable: no job cgroup")

    try:
        _set(resource.RLIMIT_AS, (plan.base_vm_bytes or vm_size()) + plan.memory_bytes)
        _set(resource.RLIMIT_CPU, plan.cpu_seconds, plan.cpu_seconds + 1)
        _set(resource.RLIMIT_FSIZE, plan.file_bytes)
        _set(resource.RLIMIT_NOFILE, plan.open_files)
        _set(resource.RLIMIT_NPROC, plan.processes)
        _set(resource.RLIMIT_CORE, 0)
        _set(resource.RLIMIT_MEMLOCK, 0)
        _set(resource.RLIMIT_MSGQUEUE, 0)
        report["rlimits"] = "active"
    except (OSError, ValueError) as exc:
        report["rlimits"] = f"unavailable: {exc}"

    os.chdir(plan.job_dir)

    nnp = False
    try:
        syscalls.prctl(syscalls.PR_SET_NO_NEW_PRIVS, 1, what="no_new_privs")
        nnp = True
        report["no_new_privs"] = "active"
    except OSError as exc:
        report["no_new_privs"] = f"unavailable: {exc.strerror}"

    if plan.ruleset is not None and "landlock_fs" not in plan.unavailable:
        try:
            if not nnp:
                raise OSError("needs no_new_privs")
            plan.ruleset.restrict_self()
            report.update(plan.ruleset.parts)
        except OSError as exc:
            for layer in ("landlock_fs", "landlock_tcp", "landlock_scope"):
                report[layer] = f"unavailable: restrict_self failed ({exc})"
    for layer in ("landlock_fs", "landlock_tcp", "landlock_scope"):
        report.setdefault(layer, "unavailable: Landlock ruleset not prepared")

    os.closerange(KEEP_FDS, 1 << 20)  # close_range(2): cost is per open fd, not per number

    if plan.uid is not None and plan.gid is not None:
        try:
            os.setgroups([])
            os.setresgid(plan.gid, plan.gid, plan.gid)
            os.setresuid(plan.uid, plan.uid, plan.uid)
            report["unprivileged_uid"] = (
                "active" if os.getuid() == plan.uid and os.geteuid() != 0 else "unavailable: uid unchanged"
            )
        except OSError as exc:
            report["unprivileged_uid"] = f"unavailable: setuid failed ({exc.strerror})"
    else:
        report.setdefault("unprivileged_uid", "unavailable: worker is not root")
    try:
        syscalls.prctl(syscalls.PR_SET_DUMPABLE, 0, what="dumpable")
        syscalls.prctl(syscalls.PR_SET_PDEATHSIG, signal.SIGKILL, what="pdeathsig")
    except OSError:
        pass

    if plan.seccomp is not None and "seccomp" not in plan.unavailable:
        try:
            if not nnp:
                raise OSError("needs no_new_privs")
            plan.seccomp.install()
            report["seccomp"] = "active"
        except OSError as exc:
            report["seccomp"] = f"unavailable: install failed ({exc})"
    report.setdefault("seccomp", "unavailable: filter not prepared")
    return report
