"""Per-worker memory, pids and CPU-accounting cgroups: a job's whole process tree is limited, counted and killed as one.

cgroup v1 (separate `memory`, `pids` and `cpuacct` hierarchies) and v2 (one
unified hierarchy with `cgroup.kill`, whose `cpu.stat` counts CPU in every
cgroup) are both handled. The CPU counter is what the worker reads to charge
a job's CPU time (`sandbox.cputime`). On v1 the worker moves itself into its
`cpuacct` cgroup, so job processes are in it from fork on (moving a process
between v1 cgroups costs about 0.1 ms, per job process), and the worker's own
CPU is subtracted from the counter. The worker creates one child
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


LAYERS = {"memory": "cgroup_memory", "pids": "cgroup_pids", "cpuacct": "cgroup_cpu"}
_V1_FILES = {"memory": "memory.limit_in_bytes", "pids": "pids.max", "cpuacct": "cpuacct.usage"}
_V1_INITIAL = {"memory": "1048576000", "pids": "64"}


@dataclass
class JobCgroups:
    """The cgroup directories one worker's jobs run in, and what each one enforces."""

    dirs: dict[str, str] = field(default_factory=dict)  # controller -> directory
    layers: dict[str, str] = field(default_factory=dict)
    version: int = 0
    _procs_fds: list[tuple[tuple[str, ...], int]] = field(default_factory=list)  # (layers it joins, fd)
    _limits: dict[str, int] = field(default_factory=dict)
    _cpu_fd: int = -1  # the CPU counter, kept open: a pread per reading (a job reads it once or twice per test)
    worker_inside: str = ""  # v1: the cgroup the worker left for its cpuacct cgroup (it returns there at the end)

    @classmethod
    def create(cls, name: str) -> JobCgroups:
        """Make `name` under this process's cgroups; failures become 'unavailable: why' layers."""
        self = cls()
        try:
            mounts = _mounts()
            own = _own_paths()
        except OSError as exc:
            self.layers = {layer: f"unavailable: cannot read cgroup info ({exc})" for layer in LAYERS.values()}
            return self
        v1 = {
            ctrl: point
            for point, fstype, opts in mounts
            if fstype == "cgroup"
            for ctrl in ("memory", "pids", "cpuacct")
            if ctrl in opts
        }
        v2 = next((point for point, fstype, _ in mounts if fstype == "cgroup2"), None)
        for ctrl in ("memory", "pids", "cpuacct"):
            layer = LAYERS[ctrl]
            if ctrl == "cpuacct" and self.version == 2:  # never mix versions: v2 counts CPU in its own job cgroup
                self._setup_v2_cpu(layer)
            elif ctrl in v1:
                self.version = 1
                self._setup(layer, ctrl, os.path.join(v1[ctrl], own.get(ctrl, "/").lstrip("/"), name))
            elif v2 is not None and "" in own and ctrl != "cpuacct":
                self.version = 2
                self._setup_v2(layer, ctrl, os.path.join(v2, own[""].lstrip("/")), name)
            else:
                self.layers[layer] = f"unavailable: no {ctrl} cgroup controller is mounted"
        if self.layers.get("cgroup_cpu", "active") != "active":
            self.layers["cgroup_cpu"] += "; CPU time is read from /proc instead"
        return self

    def _setup(self, layer: str, ctrl: str, path: str) -> None:
        _remove_stale_siblings(path)
        try:
            os.makedirs(path, exist_ok=True)
            limit_file = _V1_FILES[ctrl]
            if not os.path.exists(os.path.join(path, limit_file)):
                raise OSError(f"{limit_file} missing in {path}")
            if ctrl in _V1_INITIAL:
                _write(os.path.join(path, limit_file), _V1_INITIAL[ctrl])
                self._procs_fds.append(((layer,), _open_procs(path)))
            else:  # cpuacct: the worker itself moves in, and every process it forks is born there
                int(_read(os.path.join(path, limit_file)))
                _write(os.path.join(path, "cgroup.procs"), str(os.getpid()))
                self.worker_inside = os.path.dirname(path)
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
                self._procs_fds.append(((), _open_procs(path)))
        except OSError as exc:
            self.layers[layer] = f"unavailable: cgroup v2 {ctrl} below {base} ({exc.strerror or exc})"
            return
        self.dirs[ctrl] = path
        self.layers[layer] = "active"
        self._joins(layer)

    def _setup_v2_cpu(self, layer: str) -> None:
        """v2 counts CPU in `cpu.stat` of every cgroup: the job cgroup made for memory or pids has it."""
        path = self.dirs.get("memory") or self.dirs.get("pids")
        if path is None:
            self.layers[layer] = "unavailable: no cgroup v2 job cgroup (memory and pids could not be set up)"
            return
        try:
            int(_read_cpu_stat(path))
        except (OSError, ValueError) as exc:
            self.layers[layer] = f"unavailable: cannot read cpu.stat in {path} ({exc})"
            return
        self.dirs["cpuacct"] = path
        self.layers[layer] = "active"
        self._joins(layer)

    def _joins(self, layer: str) -> None:
        """Record that joining the v2 job cgroup also enforces `layer`."""
        if self._procs_fds:
            layers, fd = self._procs_fds[0]
            self._procs_fds[0] = ((*layers, layer), fd)

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

    def inherited_layers(self) -> tuple[str, ...]:
        """Layers job processes have from birth, without joining anything (v1 cpuacct: the worker's cgroup)."""
        return ("cgroup_cpu",) if self.worker_inside else ()

    @property
    def holds_jobs(self) -> bool:
        """Whether a cgroup holds the job processes and not the worker (memory or pids), to count and kill them."""
        return self._job_dir() is not None

    def _job_dir(self) -> str | None:
        return self.dirs.get("memory") or self.dirs.get("pids")

    def join_fds(self) -> list[tuple[tuple[str, ...], int]]:
        """(layers, descriptor of a cgroup.procs file): a job process writes its pid to each (inherited over fork)."""
        return list(self._procs_fds)

    def cpu_usage(self) -> float | None:
        """CPU seconds used so far by every process that was ever in the job cgroup (None: no CPU cgroup)."""
        path = self.dirs.get("cpuacct")
        if path is None:
            return None
        try:
            if self._cpu_fd < 0:
                name = "cpu.stat" if self.version == 2 else "cpuacct.usage"
                fd = os.open(os.path.join(path, name), os.O_RDONLY | os.O_CLOEXEC)
                self._cpu_fd = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 100)  # out of the job processes' range
                os.close(fd)
            data = os.pread(self._cpu_fd, 4096, 0).decode("ascii")
            if self.version == 2:
                return _usage_usec(data) / 1e6
            return int(data) / 1e9 - (time.process_time() if self.worker_inside else 0.0)
        except (OSError, ValueError):
            return None

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
        path = self._job_dir()
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
        if self._job_dir() is None:
            return []
        deadline = time.monotonic() + wait_s
        while True:
            pids = self.pids()
            if not pids or time.monotonic() > deadline:
                return pids
            if self.version == 2:
                try:
                    _write(os.path.join(self._job_dir() or "", "cgroup.kill"), "1")
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
        for fd in [fd for _layers, fd in self._procs_fds] + ([self._cpu_fd] if self._cpu_fd >= 0 else []):
            try:
                os.close(fd)
            except OSError:
                pass
        self._procs_fds = []
        self._cpu_fd = -1
        if self.worker_inside:
            try:
                _write(os.path.join(self.worker_inside, "cgroup.procs"), str(os.getpid()))
            except OSError:
                pass  # then the directory stays until the host removes it after this process ends
            self.worker_inside = ""
        for path in set(self.dirs.values()):
            if path != self.dirs.get("cpuacct") or self.version == 2 or not _holds(path, os.getpid()):
                remove_tree(path)


def _holds(path: str, pid: int) -> bool:
    try:
        return str(pid) in _read(os.path.join(path, "cgroup.procs")).split()
    except OSError:
        return False


def _read_cpu_stat(path: str) -> int:
    """`usage_usec` from a v2 cgroup's cpu.stat."""
    return _usage_usec(_read(os.path.join(path, "cpu.stat")))


def _usage_usec(text: str) -> int:
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if key == "usage_usec":
            return int(value)
    raise ValueError("no usage_usec in cpu.stat")


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
