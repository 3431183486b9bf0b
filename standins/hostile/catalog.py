"""Hostile programs, each with the verdict the sandbox must give it and what must stay untouched on the host.

Used by tests/sandbox/test_sandbox_hostile.py and test_sandbox_soak.py,
and by bench/sandbox.py to report that every one was contained. A case's
program is built from the HostContext (ports, paths, pids) it attacks.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sandbox import Limits, SandboxPool, SuiteResult
from standins.hostile.host import HostContext, wait_until_gone

DEFAULT_LIMITS = Limits(timeout_s=3.0, memory_mb=256)
SHORT_LIMITS = Limits(timeout_s=0.5, memory_mb=256)
SLEEPER_LIMITS = Limits(timeout_s=0.5, memory_mb=256, wall_factor=2.0, wall_grace_s=1.0)  # backstop 2 s

Check = Callable[[HostContext, SuiteResult, SandboxPool], list[str]]


@dataclass(frozen=True)
class HostileCase:
    """One attack: the program, its suite, the verdict it must get, and extra host checks."""

    name: str
    program: Callable[[HostContext], str]
    verdict: str
    suite: dict[str, Any] | None = None
    limits: Limits = DEFAULT_LIMITS
    requires: tuple[str, ...] = ()  # isolation layers that must all be active for this verdict
    requires_any: tuple[str, ...] = ()  # ... and at least one of these
    check: Check | None = None
    fast: bool = True  # cheap enough to repeat hundreds of times in the soak test

    def missing_layers(self, isolation: dict[str, str]) -> list[str]:
        """Layers this case's verdict depends on that are not active here (empty: run it)."""
        missing = [layer for layer in self.requires if isolation.get(layer) != "active"]
        if self.requires_any and not any(isolation.get(layer) == "active" for layer in self.requires_any):
            missing.append(" or ".join(self.requires_any))
        return missing

    def code(self, ctx: HostContext) -> str:
        return textwrap.dedent(self.program(ctx)).strip() + "\n"

    def job_suite(self) -> dict[str, Any]:
        return self.suite or CALL_F


CALL_F = {"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": 1}]}


def _returned_pids_gone(ctx: HostContext, result: SuiteResult, pool: SandboxPool) -> list[str]:
    """The program returned pids of processes it left behind: all must be dead."""
    pids = [int(x) for x in result.tests[0].got.strip("[]() ").replace(",", " ").split() if x.isdigit()]
    if not pids:
        return [f"no pid came back (got {result.tests[0].got!r})"]
    alive = wait_until_gone(pids)
    return [f"processes {alive} outlived the job"] if alive else []


def _next_job_sees_clean_dir(ctx: HostContext, result: SuiteResult, pool: SandboxPool) -> list[str]:
    """A following job on every worker finds an empty job directory."""
    probe = "import os\ndef f():\n    return sorted(os.listdir('.'))\n"
    suite = {"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": []}]}
    results = pool.run_many([(probe, suite)] * (2 * pool.size))
    return [f"a later job saw {r.tests[0].got}" for r in results if not r.passed]


def _ended_by(error_class: str) -> Check:
    """The (last) test ended by this limit, within the wall-clock backstop of every test plus loading."""

    def check(ctx: HostContext, result: SuiteResult, pool: SandboxPool) -> list[str]:
        problems = []
        last = result.tests[-1]
        if last.error_class != error_class:
            problems.append(f"ended as {last.error_class} ({last.got[:160]}), expected {error_class}")
        backstops = sum(t.wall_limit_s for t in result.tests) + result.limits.get("wall_backstop_s_per_test", 0)
        if result.duration_s > backstops + 10:
            problems.append(f"took {result.duration_s:.1f} s, beyond the backstops ({backstops:.1f} s)")
        return problems

    return check


def _correct_program_still_passes(ctx: HostContext, result: SuiteResult, pool: SandboxPool) -> list[str]:
    follow = pool.run_many([("def f():\n    return 1\n", CALL_F)] * (2 * pool.size))
    return [f"a correct program then got {r.verdict}" for r in follow if not r.passed]


CASES: list[HostileCase] = [
    # -- secrets ---------------------------------------------------------------
    HostileCase(
        "env_secret_returned",
        lambda c: (
            """
        import os
        def f():
            return sorted(os.environ.items())
        """
        ),
        "wrong_answer",
    ),
    HostileCase(
        "env_secret_printed",
        lambda c: (
            """
        import os, sys
        def f():
            print(dict(os.environ)); print(os.environ, file=sys.stderr)
        """
        ),
        "wrong_answer",
    ),
    HostileCase(
        "proc_self_environ",
        lambda c: (
            """
        def f():
            return open('/proc/self/environ', 'rb').read()
        """
        ),
        "runtime_error",
        requires_any=("landlock_fs", "unprivileged_uid"),
    ),
    HostileCase(
        "proc_parent_environ",
        lambda c: (
            """
        import os
        def f():
            return open(f'/proc/{os.getppid()}/environ', 'rb').read()
        """
        ),
        "runtime_error",
        requires_any=("landlock_fs", "unprivileged_uid"),
    ),
    HostileCase(
        "proc_host_environ",
        lambda c: (
            f"""
        def f():
            return open('/proc/{c.host_pid}/environ', 'rb').read()
        """
        ),
        "runtime_error",
        requires_any=("landlock_fs", "unprivileged_uid"),
    ),
    HostileCase(
        "proc_scan_all_environs",
        lambda c: (
            """
        import os
        def f():
            found = []
            for pid in os.listdir('/proc'):
                if pid.isdigit():
                    try:
                        found.append(open(f'/proc/{pid}/environ', 'rb').read())
                    except OSError:
                        pass
            return found
        """
        ),
        "runtime_error",
        requires=("landlock_fs",),
    ),
    HostileCase(
        "root_only_file",
        lambda c: (
            f"""
        def f():
            return open({str(c.root_file)!r}).read()
        """
        ),
        "runtime_error",
        requires_any=("landlock_fs", "unprivileged_uid"),
    ),
    HostileCase(
        "hidden_suite_file",
        lambda c: (
            f"""
        import json
        def f():
            return json.load(open({str(c.suite_file)!r}))['tests'][0]['expected']
        """
        ),
        "runtime_error",
        requires=("landlock_fs",),
    ),
    HostileCase(
        "list_root_home",
        lambda c: (
            """
        import os
        def f():
            return os.listdir('/root')
        """
        ),
        "runtime_error",
        requires_any=("landlock_fs", "unprivileged_uid"),
    ),
    # -- writes ----------------------------------------------------------------
    HostileCase(
        "write_tmp",
        lambda c: (
            f"""
        def f():
            open({str(c.tmp_marker)!r}, 'w').write('pwned')
            return 1
        """
        ),
        "runtime_error",
        requires=("landlock_fs",),
    ),
    HostileCase(
        "write_world_writable_dir",
        lambda c: (
            f"""
        def f():
            open({str(c.open_dir / "pwned")!r}, 'w').write('pwned')
            return 1
        """
        ),
        "runtime_error",
        requires=("landlock_fs",),
    ),
    HostileCase(
        "write_etc",
        lambda c: (
            f"""
        def f():
            open('/etc/{c.tmp_marker.name}', 'w').write('pwned')
            return 1
        """
        ),
        "runtime_error",
        requires_any=("landlock_fs", "unprivileged_uid"),
    ),
    HostileCase(
        "symlink_out_of_job_dir",
        lambda c: (
            f"""
        import os
        def f():
            os.symlink({str(c.root_file)!r}, 'link')
            return open('link').read()
        """
        ),
        "runtime_error",
        requires_any=("landlock_fs", "unprivileged_uid"),
    ),
    HostileCase(
        "hardlink_out_of_job_dir",
        lambda c: (
            """
        import os
        def f():
            os.link('/etc/passwd', 'copy')
            return open('copy').read()
        """
        ),
        "runtime_error",
        requires_any=("landlock_fs", "unprivileged_uid", "mount_namespace"),
    ),
    HostileCase(
        "file_size_limit",
        lambda c: (
            """
        def f():
            with open('big', 'wb') as out:
                for _ in range(64):
                    out.write(b'x' * (1 << 20))
            return 1
        """
        ),
        "runtime_error",
        limits=Limits(timeout_s=3.0, memory_mb=256, file_bytes=8 << 20),
    ),
    HostileCase(
        "leave_files_for_next_job",
        lambda c: (
            """
        import os
        def f():
            os.makedirs('loot/deeper', exist_ok=True)
            open('loot/deeper/state', 'w').write('remember me')
            os.chmod('loot', 0)
            os.chmod('.', 0o500)
            return 1
        """
        ),
        "passed",
        check=_next_job_sees_clean_dir,
    ),
    # -- network ---------------------------------------------------------------
    HostileCase(
        "tcp_to_loopback_listener",
        lambda c: (
            f"""
        import socket
        def f():
            socket.create_connection(('127.0.0.1', {c.tcp_port}), timeout=1).sendall(b'pwned')
            return 1
        """
        ),
        "runtime_error",
        requires_any=("seccomp", "network_namespace", "landlock_tcp"),
    ),
    HostileCase(
        "udp_to_loopback_listener",
        lambda c: (
            f"""
        import socket
        def f():
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'pwned', ('127.0.0.1', {c.udp_port}))
            return 1
        """
        ),
        "runtime_error",
        requires_any=("seccomp", "network_namespace"),
    ),
    HostileCase(
        "tcp_via_raw_ctypes_socket",
        lambda c: (
            f"""
        import ctypes, struct
        def f():
            libc = ctypes.CDLL(None, use_errno=True)
            fd = libc.socket(2, 1, 0)
            if fd < 0:
                raise OSError(ctypes.get_errno(), 'socket refused')
            addr = struct.pack('!HH4s8x', 2, {c.tcp_port}, bytes([127, 0, 0, 1]))
            addr = struct.pack('<H', 2) + addr[2:]
            if libc.connect(fd, addr, len(addr)) != 0:
                raise OSError(ctypes.get_errno(), 'connect refused')
            return 1
        """
        ),
        "runtime_error",
        requires_any=("seccomp", "network_namespace", "landlock_tcp"),
    ),
    HostileCase(
        "unix_socket_to_host",
        lambda c: (
            """
        import socket
        def f():
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect('/run/postgresql/.s.PGSQL.5432')
            return 1
        """
        ),
        "runtime_error",
        requires=("seccomp",),
    ),
    # -- exec ------------------------------------------------------------------
    HostileCase(
        "execv_bin_sh",
        lambda c: (
            f"""
        import os
        def f():
            os.execv('/bin/sh', ['sh', '-c', 'touch {c.tmp_marker}'])
        """
        ),
        "sandbox_violation",
        requires=("seccomp",),
    ),
    HostileCase(
        "os_system",
        lambda c: (
            f"""
        import os
        def f():
            return os.system('touch {c.open_dir / "pwned"}')
        """
        ),
        "wrong_answer",
        requires=("seccomp",),
    ),
    HostileCase(
        "posix_spawn_shell",
        lambda c: (
            f"""
        import os
        def f():
            pid = os.posix_spawn('/bin/sh', ['sh', '-c', 'touch {c.open_dir / "pwned"}'], {{}})
            return os.waitpid(pid, 0)[1]
        """
        ),
        "wrong_answer",
        requires=("seccomp",),
    ),
    HostileCase(
        "subclasses_escape_to_system",
        lambda c: (
            f"""
        def f():
            for cls in ().__class__.__base__.__subclasses__():
                if cls.__name__ == '_wrap_close':
                    return cls.__init__.__globals__['system']('touch {c.open_dir / "pwned"}')
            return 'os not found'
        """
        ),
        "wrong_answer",
        requires=("seccomp",),
    ),
    HostileCase(
        "ctypes_execve",
        lambda c: (
            f"""
        import ctypes
        def f():
            libc = ctypes.CDLL(None)
            argv = (ctypes.c_char_p * 4)(b'sh', b'-c', b'touch {c.tmp_marker}', None)
            libc.execve(b'/bin/sh', argv, None)
            return 1
        """
        ),
        "sandbox_violation",
        requires=("seccomp",),
    ),
    HostileCase(
        "ctypes_ptrace_worker",
        lambda c: (
            """
        import ctypes, os
        def f():
            return ctypes.CDLL(None).ptrace(16, os.getppid(), 0, 0)
        """
        ),
        "sandbox_violation",
        requires=("seccomp",),
    ),
    HostileCase(
        "ctypes_unshare_user_namespace",
        lambda c: (
            """
        import ctypes
        def f():
            return ctypes.CDLL(None).unshare(0x10000000)
        """
        ),
        "sandbox_violation",
        requires=("seccomp",),
    ),
    HostileCase(
        "ctypes_mount",
        lambda c: (
            """
        import ctypes
        def f():
            return ctypes.CDLL(None).mount(b'none', b'/tmp', b'tmpfs', 0, None)
        """
        ),
        "sandbox_violation",
        requires=("seccomp",),
    ),
    # -- processes and resources ----------------------------------------------------
    HostileCase(
        "fork_bomb_bounded",
        lambda c: (
            """
        import os, time
        def f():
            for _ in range(200):
                if os.fork() == 0:
                    time.sleep(60)
                    os._exit(0)
            return 1
        """
        ),
        "runtime_error",
        requires=("cgroup_pids",),
        fast=False,
    ),
    HostileCase(
        "thread_bomb",
        lambda c: (
            """
        import threading, time
        def f():
            for _ in range(2000):
                threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
            return 1
        """
        ),
        "runtime_error",
        requires=("cgroup_pids",),
        fast=False,
    ),
    HostileCase(
        "child_left_running",
        lambda c: (
            """
        import os, time
        def f():
            pid = os.fork()
            if pid == 0:
                time.sleep(600)
                os._exit(0)
            return [pid]
        """
        ),
        "wrong_answer",
        check=_returned_pids_gone,
    ),
    HostileCase(
        "setsid_grandchild_left_behind",
        lambda c: (
            """
        import os, time
        def f():
            pid = os.fork()
            if pid == 0:
                try:
                    os.setsid()
                except OSError:
                    pass
                time.sleep(600)
                os._exit(0)
            return [pid]
        """
        ),
        "wrong_answer",
        check=_returned_pids_gone,
    ),
    HostileCase(
        "double_fork_daemon",
        lambda c: (
            """
        import os, time
        def f():
            r, w = os.pipe()
            if os.fork() == 0:
                if os.fork() == 0:
                    os.write(w, str(os.getpid()).encode())
                    time.sleep(600)
                os._exit(0)
            return [int(os.read(r, 32))]
        """
        ),
        "wrong_answer",
        check=_returned_pids_gone,
    ),
    HostileCase(
        "setsid_self",
        lambda c: (
            """
        import os
        def f():
            os.setsid()
            return 1
        """
        ),
        "runtime_error",
        requires=("seccomp",),
    ),
    HostileCase(
        "allocate_4_gib",
        lambda c: (
            """
        def f():
            block = bytearray(4 << 30)
            return len(block)
        """
        ),
        "memory_limit",
    ),
    HostileCase(
        "allocate_until_refused",
        lambda c: (
            """
        def f():
            hoard = []
            while True:
                hoard.append(bytearray(8 << 20))
        """
        ),
        "memory_limit",
        fast=False,
    ),
    HostileCase(
        "memory_spread_over_forks",
        lambda c: (
            """
        import os
        def f():
            pids = []
            for _ in range(4):
                pid = os.fork()
                if pid == 0:
                    block = bytearray(200 << 20)
                    for i in range(0, len(block), 4096):
                        block[i] = 1
                    os._exit(0)
                pids.append(pid)
            return [os.waitpid(p, 0)[1] for p in pids]
        """
        ),
        "memory_limit",
        requires=("cgroup_memory",),
        fast=False,
    ),
    HostileCase(
        "cpu_spin",
        lambda c: (
            """
        def f():
            while True:
                pass
        """
        ),
        "timeout",
        limits=SHORT_LIMITS,
        check=_ended_by("CpuTimeLimit"),
        fast=False,
    ),
    HostileCase(
        "ignore_sigterm_and_spin",
        lambda c: (
            """
        import signal
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        def f():
            while True:
                pass
        """
        ),
        "timeout",
        limits=SHORT_LIMITS,
        check=_ended_by("CpuTimeLimit"),
        fast=False,
    ),
    HostileCase(
        "sleep_forever",
        lambda c: (
            """
        import time
        def f():
            time.sleep(10 ** 6)
        """
        ),
        "timeout",
        limits=SLEEPER_LIMITS,
        check=_ended_by("BlockedTimeLimit"),
        fast=False,
    ),
    HostileCase(
        "stop_self",
        lambda c: (
            """
        import os, signal
        def f():
            os.kill(os.getpid(), signal.SIGSTOP)
            return 1
        """
        ),
        "timeout",
        limits=SLEEPER_LIMITS,
        check=_ended_by("BlockedTimeLimit"),
        fast=False,
    ),
    HostileCase(
        "spin_in_threads_while_main_sleeps",
        lambda c: (
            """
        import threading, time
        def spin():
            while True:
                pass
        def f():
            for _ in range(4):
                threading.Thread(target=spin, daemon=True).start()
            time.sleep(10 ** 6)
        """
        ),
        "timeout",
        limits=SHORT_LIMITS,
        check=_ended_by("CpuTimeLimit"),
        fast=False,
    ),
    HostileCase(
        "spin_in_forked_children_while_parent_waits",
        lambda c: (
            """
        import os
        def f():
            for _ in range(3):
                if os.fork() == 0:
                    while True:
                        pass
            os.wait()
        """
        ),
        "timeout",
        limits=SHORT_LIMITS,
        check=_ended_by("CpuTimeLimit"),
        fast=False,
    ),
    HostileCase(
        "spin_in_an_orphaned_grandchild",
        lambda c: (
            """
        import os, time
        def f():
            if os.fork() == 0:
                if os.fork() == 0:
                    while True:
                        pass
                os._exit(0)
            os.wait()
            time.sleep(10 ** 6)
        """
        ),
        "timeout",
        limits=SHORT_LIMITS,
        check=_ended_by("CpuTimeLimit"),
        fast=False,
    ),
    HostileCase(
        "block_on_a_lock_forever",
        lambda c: (
            """
        import threading
        def f():
            lock = threading.Lock()
            lock.acquire()
            lock.acquire()
        """
        ),
        "timeout",
        limits=SLEEPER_LIMITS,
        check=_ended_by("BlockedTimeLimit"),
        fast=False,
    ),
    HostileCase(
        "deep_recursion",
        lambda c: (
            """
        def f(depth=0):
            return f(depth + 1) + 1
        """
        ),
        "runtime_error",
    ),
    HostileCase(
        "c_stack_overflow",
        lambda c: (
            """
        import sys
        sys.setrecursionlimit(10 ** 8)
        class Nest:
            def __init__(self, n):
                self.n = n
            def __repr__(self):
                return repr(Nest(self.n + 1))
        def f():
            return repr(Nest(0))
        """
        ),
        "runtime_error",
    ),
    # -- signals ---------------------------------------------------------------
    HostileCase(
        "kill_the_worker",
        lambda c: (
            """
        import os, signal
        def f():
            os.kill(os.getppid(), signal.SIGKILL)
            return 1
        """
        ),
        "runtime_error",
        check=_correct_program_still_passes,
        requires_any=("landlock_scope", "unprivileged_uid"),
    ),
    HostileCase(
        "stop_the_worker",
        lambda c: (
            """
        import os, signal
        def f():
            os.kill(os.getppid(), signal.SIGSTOP)
            return 1
        """
        ),
        "runtime_error",
        check=_correct_program_still_passes,
        requires_any=("landlock_scope", "unprivileged_uid"),
    ),
    HostileCase(
        "kill_everything",
        lambda c: (
            """
        import os, signal
        def f():
            os.kill(-1, signal.SIGKILL)
            return 1
        """
        ),
        "sandbox_violation",
        check=_correct_program_still_passes,
        requires=("seccomp",),
    ),
    HostileCase(
        "signal_the_host",
        lambda c: (
            f"""
        import os, signal
        def f():
            os.kill({c.host_pid}, signal.SIGUSR2)
            return 1
        """
        ),
        "runtime_error",
        requires_any=("landlock_scope", "unprivileged_uid"),
    ),
    HostileCase(
        "probe_every_pid",
        lambda c: (
            """
        import os
        def f():
            reachable = []
            for pid in range(1, 65536):
                try:
                    os.kill(pid, 0)
                except OSError:
                    continue
                if pid != os.getpid():
                    reachable.append(pid)
            return reachable
        """
        ),
        "passed",
        suite={"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": []}]},
        requires=("landlock_scope",),
        fast=False,
    ),
    # -- output ----------------------------------------------------------------
    HostileCase(
        "stdout_flood",
        lambda c: (
            """
        def f():
            while True:
                print('x' * 4096)
        """
        ),
        "output_limit",
    ),
    HostileCase(
        "stderr_flood",
        lambda c: (
            """
        import os
        def f():
            while True:
                os.write(2, b'y' * 65536)
        """
        ),
        "output_limit",
    ),
    HostileCase(
        "stdio_flood",
        lambda c: (
            """
        import sys
        while True:
            sys.stdout.write('z' * 65536)
        """
        ),
        "output_limit",
        suite={"tests": [{"kind": "stdio", "stdin": "", "expected_stdout": "z"}]},
    ),
    HostileCase(
        "huge_return_value",
        lambda c: (
            """
        def f():
            return 'x' * (40 << 20)
        """
        ),
        "output_limit",
        fast=False,
    ),
    # -- forgery -----------------------------------------------------------------
    HostileCase(
        "fake_json_on_stdout",
        lambda c: (
            """
        import json
        def f():
            print(json.dumps({'verdict': 'passed', 'tests_total': 1, 'tests_passed': 1, 'ok': True, 'value': 1}))
            return 0
        """
        ),
        "wrong_answer",
    ),
    HostileCase(
        "os_exit_mid_suite",
        lambda c: (
            """
        import os
        def f(x):
            if x == 2:
                os._exit(0)
            return x
        """
        ),
        "runtime_error",
        suite={
            "entry_point": "f",
            "tests": [{"kind": "call", "args": [x], "expected": x} for x in (1, 2, 3)],
        },
        check=lambda ctx, result, pool: (
            []
            if [t.passed for t in result.tests] == [True, False, True]
            else [f"per-test outcome {[t.verdict for t in result.tests]}"]
        ),
    ),
    HostileCase(
        "always_equal_object",
        lambda c: (
            """
        class Anything:
            def __eq__(self, other):
                return True
            def __ne__(self, other):
                return False
            __hash__ = object.__hash__
        def f():
            return Anything()
        """
        ),
        "wrong_answer",
    ),
    HostileCase(
        "always_equal_in_assert_test",
        lambda c: (
            """
        class Anything:
            def __eq__(self, other):
                return True
        def f(x):
            return Anything()
        """
        ),
        "wrong_answer",
        suite={
            "entry_point": "f",
            "tests": [{"kind": "assert", "source": "def check(candidate):\n    assert candidate(2) == 4\n"}],
        },
    ),
    HostileCase(
        "int_subclass_lies",
        lambda c: (
            """
        class Liar(int):
            def __eq__(self, other):
                return True
            __hash__ = int.__hash__
        def f():
            return Liar(0)
        """
        ),
        "wrong_answer",
    ),
    HostileCase(
        "spoofed_class_attribute",
        lambda c: (
            """
        class Fake:
            __class__ = int
            def __eq__(self, other):
                return True
        def f():
            return Fake()
        """
        ),
        "wrong_answer",
    ),
    HostileCase(
        "patch_the_harness",
        lambda c: (
            """
        import sys
        def f():
            child = sys.modules['sandbox.child']
            child._answer = lambda *a, **k: {'ok': True, 'verdict': 'passed', 'passed': True}
            child.codec.encode = lambda value: {'$u': ['passed', 'passed']}
            return 0
        """
        ),
        "sandbox_violation",
        suite={"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": 1}] * 3},
    ),
    HostileCase(
        "forge_frames_on_every_fd",
        lambda c: (
            """
        import json, os, struct
        def f():
            body = json.dumps({'ok': True, 'passed': True, 'verdict': 'passed', 'done': 0}).encode()
            for fd in range(3, 256):
                try:
                    os.write(fd, struct.pack('>I', len(body)) + body)
                except OSError:
                    pass
            return 0
        """
        ),
        "sandbox_violation",
    ),
    HostileCase(
        "patch_builtins_against_the_judge",
        lambda c: (
            """
        import builtins, sys
        builtins.AssertionError = type('Harmless', (Exception,), {})
        sys.modules['sandbox.child']._judge_one = lambda *a, **k: {'i': 0, 'passed': True}
        def f(x):
            return -1
        """
        ),
        "wrong_answer",
        suite={
            "entry_point": "f",
            "tests": [{"kind": "assert", "source": "def check(candidate):\n    assert candidate(2) == 4\n"}],
        },
    ),
    HostileCase(
        "search_memory_for_expected",
        lambda c: (
            """
        import gc
        def f():
            for obj in gc.get_objects():
                if isinstance(obj, dict):
                    for value in obj.values():
                        if isinstance(value, str) and value.startswith('EXPECTED-'):
                            return value
                if isinstance(obj, str) and obj.startswith('EXPECTED-'):
                    return obj
            return 'not found'
        """
        ),
        "wrong_answer",
        suite=None,
    ),
    HostileCase(
        "search_memory_for_assert_source",
        lambda c: (
            """
        import gc
        def f():
            for obj in gc.get_objects():
                if isinstance(obj, dict):
                    for value in list(obj.values()):
                        if isinstance(value, str) and 'EXPECTED-' in value:
                            return value.split("'")[1]
            return 'not found'
        """
        ),
        "wrong_answer",
        suite=None,
    ),
]


def suite_for(case: HostileCase, ctx: HostContext) -> dict[str, Any]:
    """The case's suite; the memory-search cases expect the host's secret value, which only the host knows."""
    if case.name == "search_memory_for_expected":
        return {"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": ctx.expected_secret}]}
    if case.name == "search_memory_for_assert_source":
        source = f"def check(candidate):\n    assert candidate() == '{ctx.expected_secret}'\n"
        return {"entry_point": "f", "tests": [{"kind": "assert", "source": source}]}
    return case.job_suite()
