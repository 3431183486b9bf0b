"""Per-worker memory and pids cgroups: a job's whole process tree is limited, counted and killed as one.

cgroup v1 (separate `memory` and `pids` hierarchies) and v2 (one unified
hierarchy with `cgroup.kill`) are both handled. The worker creates one child
cgroup per controller under its own cgroup, job processes move themselves in
before dropping privileges, and after every job whatever is left inside is
killed. A controller that cannot be set up is reported unavailable with the
reason; nothing is claimed that was not written and read back.
"""

from __future__ import annotations

import fcntl
import os
import signal
import time
from dataclasses import dataclass, field


def _read(path: str) -> str:
    with open(path, encoding="ascii") as f:
        return f.read()


def _write(path: str, value: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, value.encode("ascii"))
    finally:
        os.close(fd)


def _open_procs(path: str) -> int:
    """cgroup.procs opened for writing, at a high descriptor number job processes will not reuse."""
    fd = os.open(os.path.join(path, "cgroup.procs"), os.O_WRONLY | os.O_CLOEXEC)
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 100)
    os.close(fd)
    return high


def _mounts() -> list[tuple[str, str, set[str]]]:
    """(mount point, fs type, super options) of cgroup mounts, from /proc/self/mountinfo."""
    found = []
    with open("/proc/self/mountinfo", encoding="utf-8") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fstype, _source, super_opts = (right.split() + ["", "", ""])[:3]
            if fstype in ("cgroup", "cgroup2"):
                found.append((left.split()[4], fstype, set(super_opts.split(","))))
    return found


def _own_paths() -> dict[str, str]:
    """controller name (or '' for v2) -> this process's cgroup path, from /proc/self/cgroup."""
    paths = {}
    with open("/proc/self/cgroup", encoding="utf-8") as f:
        for line in f:
            _id, controllers, path = line.rstrip("\n").split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                paths[name] = path
    return paths


@dataclass
class JobCgroups:
    """The cgroup directories one worker's jobs run in, and what each one enforces."""

    dirs: dict[str, str] = field(default_factory=dict)  # controller -> directory
    layers: dict[str, str] = field(default_factory=dict)
    version: int = 0
    _procs_fds: list[int] = field(default_factory=list)
    _limits: dict[str, int] = field(default_factory=dict)

    @classmethod
    def create(cls, name: str) -> JobCgroups:
        """Make `name` under this process's cgroups; failures become 'unavailable: why' layers."""
        self = cls()
        try:
            mounts = _mounts()
            own = _own_paths()
        except OSError as exc:
            self.layers = {c: f"unavailable: cannot read cgroup info ({exc})" for c in ("cgroup_memory", "cgroup_pids")}
            return self
        v1 = {
            ctrl: point
            for point, fstype, opts in mounts
            if fstype == "cgroup"
            for ctrl in ("memory", "pids")
            if ctrl in opts
        }
        v2 = next((point for point, fstype, _ in mounts if fstype == "cgroup2"), None)
        for ctrl in ("memory", "pids"):
            layer = f"cgroup_{ctrl}"
            if ctrl in v1:
                self.version = 1
                self._setup(layer, ctrl, os.path.join(v1[ctrl], own.get(ctrl, "/").lstrip("/"), name))
            elif v2 is not None and "" in own:
                self.version = 2
                base = os.path.join(v2, own[""].lstrip("/"))
                self._setup_v2(layer, ctrl, base, name)
            else:
                self.layers[layer] = f"unavailable: no {ctrl} cgroup controller is mounted"
        return self

    def _setup(self, layer: str, ctrl: str, path: str) -> None:
        _remove_stale_siblings(path)
        try:
            os.makedirs(path, exist_ok=True)
            limit_file = "memory.limit_in_bytes" if ctrl == "memory" else "pids.max"
            if not os.path.exists(os.path.join(path, limit_file)):
                raise OSError(f"{limit_file} missing in {path}")
            _write(os.path.join(path, limit_file), "1048576000" if ctrl == "memory" else "64")
            self._procs_fds.append(_open_procs(path))
        except OSError as exc:
            self.layers[layer] = f"unavailable: cannot set up {path} ({exc.strerror or exc})"
            try:
                os.rmdir(path)
            except OSError:
                pass
            return
        self.dirs[ctrl] = path
        self.layers[layer] = "active"

    def _setup_v2(self, layer: str, ctrl: str, base: str, name: str) -> None:
        path = os.path.join(base, name)
        _remove_stale_siblings(path)
        try:
            if ctrl not in _read(os.path.join(base, "cgroup.controllers")).split():
                raise OSError(f"controller {ctrl} is not available in {base}")
            enabled = _read(os.path.join(base, "cgroup.subtree_control")).split()
            if ctrl not in enabled:
                _write(os.path.join(base, "cgroup.subtree_control"), f"+{ctrl}")
            os.makedirs(path, exist_ok=True)
            _write(
                os.path.join(path, "memory.max" if ctrl == "memory" else "pids.max"),
                "1048576000" if ctrl == "memory" else "64",
            )
            if not self._procs_fds:
                self._procs_fds.append(_open_procs(path))
        except OSError as exc:
            self.layers[layer] = f"unavailable: cgroup v2 {ctrl} below {base} ({exc.strerror or exc})"
            return
        self.dirs[ctrl] = path
        self.layers[layer] = "active"

    # -- per job -----------------------------------------------------------

    def set_limits(self, memory_bytes: int, pids_max: int) -> None:
        """Write the job's limits (only when they change; they persist between jobs)."""
        for ctrl, value in (("memory", memory_bytes), ("pids", pids_max)):
            path = self.dirs.get(ctrl)
            if path is None or self._limits.get(ctrl) == value:
                continue
            if ctrl == "memory":
                self._set_memory(path, value)
            else:
                _write(os.path.join(path, "pids.max"), str(value))
            self._limits[ctrl] = value

    def _set_memory(self, path: str, value: int) -> None:
        if self.version == 2:
            _write(os.path.join(path, "memory.max"), str(value))
            if os.path.exists(os.path.join(path, "memory.swap.max")):
                _write(os.path.join(path, "memory.swap.max"), "0")
            return
        memsw = os.path.join(path, "memory.memsw.limit_in_bytes")
        limit = os.path.join(path, "memory.limit_in_bytes")
        if not os.path.exists(memsw):
            _write(limit, str(value))
            return
        # memory+swap must stay >= memory: order the writes by direction.
        try:
            _write(limit, str(value))
            _write(memsw, str(value))
        except OSError:
            _write(memsw, str(value))
            _write(limit, str(value))

    def join_fds(self) -> list[int]:
        """Descriptors of cgroup.procs files; a job process writes its pid to each (inherited over fork)."""
        return list(self._procs_fds)

    def oom_kills(self) -> int:
        """How many processes the kernel has OOM-killed in the job cgroup so far."""
        path = self.dirs.get("memory")
        if path is None:
            return 0
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        try:
            for line in _read(os.path.join(path, name)).splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except OSError:
            pass
        return 0

    def pids(self) -> list[int]:
        path = next(iter(self.dirs.values()), None)
        if path is None:
            return []
        try:
            return [int(p) for p in _read(os.path.join(path, "cgroup.procs")).split()]
        except OSError:
            return []

    def kill_except(self, keep: set[int]) -> None:
        """SIGKILL every process in the job cgroups except `keep` (the job's still-live processes)."""
        for pid in self.pids():
            if pid not in keep:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def kill_all(self, wait_s: float = 2.0) -> list[int]:
        """SIGKILL everything in the job cgroups until empty; returns pids still present (should be none)."""
        if not self.dirs:
            return []
        deadline = time.monotonic() + wait_s
        while True:
            pids = self.pids()
            if not pids or time.monotonic() > deadline:
                return pids
            if self.version == 2:
                try:
                    _write(os.path.join(next(iter(self.dirs.values())), "cgroup.kill"), "1")
                except OSError:
                    pass
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.001)

    def destroy(self) -> None:
        """Kill what is left and remove the directories (worker exit or host clean-up)."""
        self.kill_all()
        for fd in self._procs_fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self._procs_fds = []
        for path in set(self.dirs.values()):
            remove_tree(path)


def _remove_stale_siblings(path: str) -> None:
    """rmdir empty cgroups left by workers that died without cleaning up (their pid no longer exists)."""
    parent, name = os.path.split(path)
    prefix = name.rsplit("-", 1)[0] + "-"
    try:
        entries = os.listdir(parent)
    except OSError:
        return
    for entry in entries:
        pid = entry[len(prefix) :]
        if entry.startswith(prefix) and pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            try:
                os.rmdir(os.path.join(parent, entry))  # fails (harmlessly) if processes remain inside
            except OSError:
                pass


def remove_tree(path: str, wait_s: float = 2.0) -> None:
    """rmdir a job cgroup once its (killed) processes are gone; used by the host when a worker died."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            for pid in [int(p) for p in _read(os.path.join(path, "cgroup.procs")).split()]:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() > deadline:
                return
            time.sleep(0.01)
