"""The warm worker process: prepared once (imports, namespaces, cgroups, Landlock, seccomp), then forks one hardened process tree per job.

Started by the pool with a scrubbed environment and `python -S -s -B`, it
talks to the host over one Unix socket (frames plus passed descriptors) and
never holds an expected value: the host keeps those and compares.
"""

from __future__ import annotations

import fcntl
import gc
import os
import pwd
import socket
import sys
import tempfile
import traceback
from typing import Any

from sandbox import cgroups, frames, hardening, landlock, namespaces, preload, seccomp, syscalls
from sandbox.cputime import CpuMeter
from sandbox.job import JobRunner
from sandbox.jobdir import empty_dir
from sandbox.procs import Proc, Reaper, kill_now, spawn

DISABLEABLE_LAYERS = ("network_namespace", "mount_namespace", "cgroups", "unprivileged_uid", "landlock", "seccomp")
ALLOWED_ENV = {"PATH", "LANG", "LC_ALL", "PYTHONHASHSEED"}
TMPFS_MB = 256
HIGH_FD = 100
WARM_CPU_SECONDS = 3600  # lowered to the job's own budget when the job starts
CLEANUP_LIMIT_S = 10.0  # a job directory not empty by then retires the worker (the next job gets a fresh one)
CLOSE_CLEANUP_LIMIT_S = 60.0
NPROC_BACKSTOP = 4096


def _high(fd: int) -> int:
    """Move a long-lived descriptor out of the range job processes reuse for their channels."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, HIGH_FD)
    os.close(fd)
    return moved


def _system_read_paths() -> list[str]:
    """What job processes may read: the interpreter's prefix, shared libraries, time zones, random devices."""
    paths = [sys.base_prefix, "/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/local/lib"]
    paths += ["/etc/ld.so.cache", "/etc/localtime", "/usr/share/zoneinfo", "/dev/urandom", "/dev/zero"]
    return [p for p in dict.fromkeys(paths) if os.path.exists(p)]


class WorkerEnv:
    """Everything prepared once per worker and shared (by fork) with every job process.

    A `JobRunner` sees it only as a `sandbox.env.JobEnv` (which this class satisfies structurally).
    """

    def __init__(self, config: dict[str, Any]) -> None:
        self.index = int(config.get("index", 0))
        self.n_workers = max(1, int(config.get("n_workers", 1)))
        self.cleanup_limit_s = float(config.get("cleanup_limit_s", CLEANUP_LIMIT_S))
        disabled = set(config.get("disable") or ())
        real_root = os.geteuid() == 0  # before any user namespace makes us look like root
        self.layers: dict[str, str] = {}
        self.job_unavailable: dict[str, str] = {}
        self.reaper = Reaper()
        self.warm: Proc | None = None
        self.warm_limits: tuple[int, ...] = ()

        self.devnull = _high(os.open(os.devnull, os.O_RDWR))
        for fd in (0, 1):
            os.dup2(self.devnull, fd)

        failed = preload.preload()
        if failed:
            self.layers["preload"] = f"unavailable: could not import {', '.join(failed)}"
        leaked = sorted(set(os.environ) - ALLOWED_ENV)
        self.layers["clean_environment"] = "active" if not leaked else f"unavailable: inherited {', '.join(leaked)}"

        self.layers.update(
            namespaces.enter("network_namespace" not in disabled, "mount_namespace" not in disabled, TMPFS_MB)
        )
        if self.layers.get("mount_namespace") == "active":
            self.job_dir = "/tmp/job"
            os.makedirs(self.job_dir, exist_ok=True)
        else:
            base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
            self.job_dir = tempfile.mkdtemp(prefix="execugraph-job-", dir=base)
        self.owns_job_dir = self.layers.get("mount_namespace") != "active"

        self.uid: int | None = None
        self.gid: int | None = None
        if "unprivileged_uid" in disabled:
            self.job_unavailable["unprivileged_uid"] = "unavailable: disabled by configuration"
        elif not real_root:
            self.job_unavailable["unprivileged_uid"] = "unavailable: the worker is not root, so it cannot switch user"
        else:
            try:
                entry = pwd.getpwnam("nobody")
                self.uid, self.gid = entry.pw_uid, entry.pw_gid
            except KeyError:
                self.uid = self.gid = 65534
        self.reset_job_dir()

        if "cgroups" in disabled:
            self.cgroups = cgroups.JobCgroups()
            self.cgroups.layers = {
                k: "unavailable: disabled by configuration" for k in hardening.CGROUP_LAYERS
            }
        else:
            self.cgroups = cgroups.JobCgroups.create(f"execugraph-sandbox-{os.getpid()}")
        for layer, state in self.cgroups.layers.items():
            if state != "active":
                self.job_unavailable[layer] = state
        self.cpu_meter = CpuMeter(self.cgroups.cpu_usage, lambda: self.reaper.reaped_cpu, os.getpid())

        self.ruleset: landlock.Ruleset | None = None
        if "landlock" in disabled:
            self._unavailable(("landlock_fs", "landlock_tcp", "landlock_scope"), "disabled by configuration")
        else:
            try:
                self.ruleset = landlock.build_ruleset(_system_read_paths(), [self.job_dir, os.devnull])
                self.ruleset.fd = _high(self.ruleset.fd)
                for layer, state in self.ruleset.parts.items():
                    if state != "active":
                        self.job_unavailable[layer] = state
            except OSError as exc:
                self._unavailable(("landlock_fs", "landlock_tcp", "landlock_scope"), f"Landlock not usable ({exc})")

        self.seccomp: seccomp.Filter | None = None
        if "seccomp" in disabled:
            self._unavailable(("seccomp",), "disabled by configuration")
        else:
            try:
                self.seccomp = seccomp.Filter()
            except OSError as exc:
                self._unavailable(("seccomp",), str(exc))
        self._probe()
        try:
            syscalls.prctl(syscalls.PR_SET_CHILD_SUBREAPER, 1, what="subreaper")
            self.subreaper = True
        except OSError:
            self.subreaper = False
        gc.collect()
        gc.freeze()  # forked job processes then leave the worker's objects untouched (fewer copied pages)

    def _unavailable(self, layers: tuple[str, ...], why: str) -> None:
        for layer in layers:
            self.job_unavailable[layer] = f"unavailable: {why}"

    def _probe(self) -> None:
        """Enforce Landlock and seccomp once in a throwaway child, so a kernel that refuses is known up front."""
        if self.ruleset is None and self.seccomp is None:
            return
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            message = b""
            try:
                syscalls.prctl(syscalls.PR_SET_NO_NEW_PRIVS, 1)
                if self.ruleset is not None:
                    try:
                        self.ruleset.restrict_self()
                    except OSError as exc:
                        message += f"landlock:{exc}\n".encode()
                if self.seccomp is not None:
                    try:
                        self.seccomp.install()
                    except OSError as exc:
                        message += f"seccomp:{exc}\n".encode()
            except BaseException as exc:  # noqa: BLE001
                message += f"probe:{exc}\n".encode()
            os.write(write_fd, message)
            os._exit(0)
        os.close(write_fd)
        report = b""
        while chunk := os.read(read_fd, 4096):
            report += chunk
        os.close(read_fd)
        os.waitpid(pid, 0)
        for line in report.decode(errors="replace").splitlines():
            what, _, why = line.partition(":")
            if what == "landlock":
                self._unavailable(("landlock_fs", "landlock_tcp", "landlock_scope"), f"kernel refused ({why})")
                self.ruleset = None
            elif what == "seccomp":
                self._unavailable(("seccomp",), f"kernel refused ({why})")
                self.seccomp = None

    # -- per job -----------------------------------------------------------

    @staticmethod
    def warm_key(limits: dict[str, Any]) -> tuple[int, ...]:
        """The limits a pre-forked process was hardened with (the CPU limit is lowered at start instead)."""
        return tuple(int(limits[k]) for k in ("memory_mb", "file_bytes", "max_open_files", "max_processes"))

    def prefork(self, limits: dict[str, Any]) -> None:
        """Fork and harden the next job's candidate process now, while the worker would otherwise wait."""
        self.drop_warm()
        plan = self.plan(limits, WARM_CPU_SECONDS)
        self.warm = spawn("candidate", {}, plan, limits, devnull=self.devnull, reaper=self.reaper)
        self.warm_limits = self.warm_key(limits)

    def take_warm(self, limits: dict[str, Any]) -> Proc | None:
        warm, self.warm = self.warm, None
        if warm is not None and self.warm_limits != self.warm_key(limits):
            kill_now(warm, self.reaper)
            return None
        return warm

    def drop_warm(self) -> None:
        warm, self.warm = self.warm, None
        if warm is not None:
            kill_now(warm, self.reaper)

    def plan(self, limits: dict[str, Any], cpu_seconds: int) -> hardening.Plan:
        return hardening.Plan(
            job_dir=self.job_dir,
            base_vm_bytes=hardening.vm_size(),
            cgroup_fds=self.cgroups.join_fds(),
            cgroup_inherited=self.cgroups.inherited_layers(),
            uid=self.uid,
            gid=self.gid,
            ruleset=self.ruleset,
            seccomp=self.seccomp,
            memory_bytes=int(limits["memory_mb"]) << 20,
            cpu_seconds=cpu_seconds,
            file_bytes=int(limits["file_bytes"]),
            open_files=int(limits["max_open_files"]),
            processes=self._nproc_limit(int(limits["max_processes"])),
            unavailable=dict(self.job_unavailable),
        )

    def _nproc_limit(self, per_job: int) -> int:
        """RLIMIT_NPROC counts every process of the sandbox uid on the host, so it is only a backstop.

        With a pids cgroup the per-job limit is exact and this stays generous
        (other pools may run jobs as the same uid); without one it bounds this
        pool's jobs together.
        """
        if "pids" in self.cgroups.dirs:
            return NPROC_BACKSTOP
        return per_job * self.n_workers + 8

    def reset_job_dir(self) -> None:
        os.chmod(self.job_dir, 0o700)
        if self.uid is not None and self.gid is not None:
            os.chown(self.job_dir, self.uid, self.gid)

    def clean_job_dir(self, time_limit_s: float | None = None) -> None:
        """Empty the job directory in place (its inode is what the Landlock rule names).

        Raises (`sandbox.jobdir.JobDirStuck`, OSError) when it cannot: the worker then retires
        rather than run the next job beside what is left.
        """
        os.chmod(self.job_dir, 0o700)  # the candidate may have made it unreadable
        empty_dir(self.job_dir, self.cleanup_limit_s if time_limit_s is None else time_limit_s)
        self.reset_job_dir()

    def kill_orphans(self) -> None:
        """Without cgroups, kill descendants that escaped the process group and were reparented to this subreaper."""
        if self.cgroups.holds_jobs or not self.subreaper:
            return
        self.reaper.kill_orphans()

    def sweep_after_job(self) -> None:
        """After a job's processes were reaped: kill what is left in its cgroups and any orphans, empty its directory."""
        leftovers = self.cgroups.kill_all()
        if leftovers:
            print(f"sandbox worker: processes {leftovers} survived the job kill", file=sys.stderr, flush=True)
        self.kill_orphans()
        self.reaper.reap_orphans()
        self.clean_job_dir()

    def close(self) -> None:
        self.drop_warm()
        self.cgroups.destroy()
        if self.owns_job_dir:  # in a mount namespace the tmpfs goes with the worker
            try:
                os.chmod(self.job_dir, 0o700)
                empty_dir(self.job_dir, CLOSE_CLEANUP_LIMIT_S)
                os.rmdir(self.job_dir)
            except (OSError, RuntimeError) as exc:
                print(f"sandbox worker: left job directory {self.job_dir}: {exc}", file=sys.stderr, flush=True)


def _after_job(env: WorkerEnv, runner: JobRunner, fds: list[int], limits: dict[str, Any]) -> str | None:
    """Sweep up after a job (its result already went out); why this worker must retire, or None.

    Whatever the job left (a directory tree too deep or too big, processes that will not
    die) stays contained here: the host hears "retire" and starts a fresh worker, so the
    next job never runs beside it.
    """
    problem = None
    try:
        runner.finish()
    except Exception as exc:  # noqa: BLE001 - anything: RecursionError, OSError, JobDirStuck
        problem = f"cleaning up after the job failed ({type(exc).__name__}: {exc})"[:2000]
    for received in fds:
        os.close(received)
    if problem is None:
        try:
            env.prefork(limits)
        except Exception as exc:  # noqa: BLE001 - the next job forks its own candidate process instead
            env.warm = None
            print(f"sandbox worker: could not pre-fork a candidate process: {exc}", file=sys.stderr, flush=True)
    return problem


def main(fd: int) -> None:
    """Worker entry point (`fd` is this end of the host's socketpair)."""
    host = socket.socket(fileno=_high(fd))
    reader = frames.FrameReader()
    env: WorkerEnv | None = None
    try:
        config, _ = frames.recv_frame(host, reader)
        env = WorkerEnv(config)
        hello = {
            "pid": os.getpid(),
            "layers": {**env.layers, **env.job_unavailable},
            "cgroup_dirs": sorted(set(env.cgroups.dirs.values())),
        }
        frames.send_frame(host, {"hello": hello})
        if isinstance(config.get("limits"), dict):
            env.prefork(config["limits"])
        while True:
            try:
                request, fds = frames.recv_frame(host, reader)
            except EOFError:
                return
            op = request.get("op")
            if op == "job":
                runner = JobRunner(env, request, fds, host)
                try:
                    result = runner.run()
                except Exception:  # noqa: BLE001 - a worker bug must come back as a harness error, not a hang
                    result = {"error": traceback.format_exc()[-4000:]}
                try:
                    frames.send_frame(host, {"result": result})
                finally:
                    problem = _after_job(env, runner, fds, request["limits"])
                if problem is not None:  # the host replaces this worker before its next job
                    print(f"sandbox worker: retiring after a job: {problem}", file=sys.stderr, flush=True)
                    frames.send_frame(host, {"retire": problem})
                    return
                frames.send_frame(host, {"ready": True})
            elif op == "exit":
                return
            else:
                frames.send_frame(host, {"error": f"unknown request {op!r}"})
    except (EOFError, BrokenPipeError, ConnectionResetError):
        return
    finally:
        if env is not None:
            env.close()
