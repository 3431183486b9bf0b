"""Bait and tripwires on the host for hostile sandbox programs, and the checks that nothing was touched.

A HostContext plants secrets (an environment variable set before the pool
starts, a root-only file, a readable copy of a hidden suite), opens TCP and
UDP listeners on loopback, and prepares marker paths a successful escape
would create. The checks then look for the secrets in everything the
sandbox returned, for the markers on disk, for traffic on the listeners, for
surviving processes, and for the workers still being alive.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
SECRET_ENV = "EXECUGRAPH_HOSTILE_SECRET"
SANDBOX_UID = 65534


@dataclass
class HostContext:
    """Everything a hostile program might try to reach, created on the host before the pool starts."""

    env_secret: str
    file_secret: str
    expected_secret: str
    root_file: Path
    suite_file: Path
    open_dir: Path
    tmp_marker: Path
    tcp: socket.socket
    udp: socket.socket
    host_pid: int
    signalled: list[int] = field(default_factory=list)
    base: Path = field(default=Path())

    @classmethod
    def create(cls) -> HostContext:
        """Plant the bait. Call before starting the pool, so the env secret is there to be (not) inherited."""
        base = REPO_ROOT / ".cache" / "sandbox-hostile" / uuid.uuid4().hex
        base.mkdir(parents=True)
        os.chmod(base, 0o755)
        env_secret = f"envsecret-{secrets.token_hex(8)}"
        os.environ[SECRET_ENV] = env_secret
        file_secret = f"filesecret-{secrets.token_hex(8)}"
        root_file = base / "root-only.txt"
        root_file.write_text(file_secret)
        os.chmod(root_file, 0o600)
        expected_secret = f"EXPECTED-{secrets.token_hex(8)}"
        suite_file = base / "hidden-suite.json"
        suite_file.write_text(json.dumps({"tests": [{"kind": "call", "expr": "f()", "expected": expected_secret}]}))
        os.chmod(suite_file, 0o644)
        open_dir = base / "world-writable"
        open_dir.mkdir()
        os.chmod(open_dir, 0o777)
        tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        tcp.bind(("127.0.0.1", 0))
        tcp.listen(8)
        tcp.setblocking(False)
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.bind(("127.0.0.1", 0))
        udp.setblocking(False)
        ctx = cls(
            env_secret=env_secret,
            file_secret=file_secret,
            expected_secret=expected_secret,
            root_file=root_file,
            suite_file=suite_file,
            open_dir=open_dir,
            tmp_marker=Path("/tmp") / f"execugraph-hostile-{uuid.uuid4().hex}",
            tcp=tcp,
            udp=udp,
            host_pid=os.getpid(),
            base=base,
        )
        signal.signal(signal.SIGUSR2, ctx._on_signal)
        return ctx

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.signalled.append(signum)

    @property
    def tcp_port(self) -> int:
        return self.tcp.getsockname()[1]

    @property
    def udp_port(self) -> int:
        return self.udp.getsockname()[1]

    def markers(self) -> list[Path]:
        return [self.tmp_marker, self.open_dir / "pwned", Path("/etc") / self.tmp_marker.name]

    def close(self) -> None:
        self.tcp.close()
        self.udp.close()
        os.environ.pop(SECRET_ENV, None)
        signal.signal(signal.SIGUSR2, signal.SIG_DFL)
        shutil.rmtree(self.base, ignore_errors=True)
        for marker in self.markers():
            marker.unlink(missing_ok=True)


def sandbox_processes() -> dict[int, int]:
    """Live (non-zombie) processes running as the sandbox uid: pid -> parent pid."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            status = Path(f"/proc/{name}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        uid = int(fields.get("Uid", "-1").split()[0])
        if uid == SANDBOX_UID and not fields.get("State", "").strip().startswith("Z"):
            found[int(name)] = int(fields.get("PPid", "0"))
    return found


def leftover_processes(worker_pids: list[int], timeout_s: float = 3.0) -> list[int]:
    """Sandbox-uid descendants of these workers still alive after waiting, except each worker's one warm process.

    Only this pool's workers are considered, so other sandbox users on the
    same machine do not count. Orphans of a job are reparented to its worker
    (a child subreaper), so they show up here too.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        parents = sandbox_processes()
        mine: dict[int, int] = {}
        frontier = set(worker_pids)
        while frontier:
            children = {pid: ppid for pid, ppid in parents.items() if ppid in frontier and pid not in mine}
            mine.update(children)
            frontier = set(children)
        leftovers, warm_seen = [], set()
        for pid, ppid in sorted(mine.items()):
            if ppid in worker_pids and ppid not in warm_seen:
                warm_seen.add(ppid)
            else:
                leftovers.append(pid)
        if not leftovers or time.monotonic() > deadline:
            return leftovers
        time.sleep(0.02)


def wait_until_gone(pids: list[int], timeout_s: float = 3.0) -> list[int]:
    """The pids (among `pids`) still alive as sandbox processes after waiting up to `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while True:
        alive = [p for p in pids if p in sandbox_processes()]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.02)


def host_problems(ctx: HostContext, result: Any, worker_pids: list[int]) -> list[str]:
    """Everything wrong on the host after a hostile job (empty list: the host was untouched)."""
    problems = []
    data = result.to_dict()
    for test in data["tests"]:
        test.pop("expected")  # the host itself reports what was expected
    everything = json.dumps(data)
    # An assert test's stderr carries the judge's traceback, quoting the (secret-bearing) check source.
    from_candidate = json.dumps(
        [data["stdout"], data["stderr"]]
        + [t["got"] for t in data["tests"]]
        + [t["stderr"] for t in data["tests"] if t["kind"] != "assert"]
    )
    for label, secret, haystack in (
        ("environment secret", ctx.env_secret, everything),
        ("root-only file secret", ctx.file_secret, everything),
        ("hidden expected value", ctx.expected_secret, from_candidate),
    ):
        if secret in haystack:
            problems.append(f"{label} leaked into the result")
    for marker in ctx.markers():
        if marker.exists():
            problems.append(f"marker {marker} was created on the host")
    try:
        conn, _ = ctx.tcp.accept()
        conn.close()
        problems.append("the loopback TCP listener received a connection")
    except BlockingIOError:
        pass
    try:
        ctx.udp.recvfrom(100)
        problems.append("the loopback UDP socket received a datagram")
    except BlockingIOError:
        pass
    if ctx.signalled:
        problems.append(f"the host process received signals {ctx.signalled}")
    for pid in worker_pids:
        if not Path(f"/proc/{pid}").exists():
            problems.append(f"worker {pid} is gone")
    return problems
