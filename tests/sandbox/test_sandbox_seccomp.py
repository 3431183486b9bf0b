"""The seccomp program, run through a small classic-BPF interpreter: every decision it makes, without a kernel."""

from __future__ import annotations

import errno
import struct

import pytest

from sandbox import seccomp
from sandbox.seccomp import RET_ALLOW, RET_ERRNO, RET_KILL_PROCESS, build_program, pack_seccomp_data


def run_bpf(program: list[tuple[int, int, int, int]], data: bytes) -> int:
    """Interpret the subset of classic BPF the filter uses (LD W ABS, JEQ/JGE/JSET K, RET K)."""
    acc, pc = 0, 0
    for _ in range(10_000):
        code, jt, jf, k = program[pc]
        if code == seccomp.LD_W_ABS:
            (acc,) = struct.unpack_from("<I", data, k)
            pc += 1
        elif code in (seccomp.JMP_JEQ_K, seccomp.JMP_JGE_K, seccomp.JMP_JSET_K):
            taken = {seccomp.JMP_JEQ_K: acc == k, seccomp.JMP_JGE_K: acc >= k, seccomp.JMP_JSET_K: bool(acc & k)}[code]
            pc += 1 + (jt if taken else jf)
        elif code == seccomp.RET_K:
            return k
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")
    raise AssertionError("program did not terminate")


PROGRAM = build_program()


def decide(nr: int, *args: int, arch: int = seccomp.AUDIT_ARCH_X86_64) -> int:
    return run_bpf(PROGRAM, pack_seccomp_data(nr, args, arch))


def test_program_is_well_formed():
    assert len(PROGRAM) < 4096
    for index, (code, jt, jf, _k) in enumerate(PROGRAM):
        assert code in (seccomp.LD_W_ABS, seccomp.JMP_JEQ_K, seccomp.JMP_JGE_K, seccomp.JMP_JSET_K, seccomp.RET_K)
        if code != seccomp.RET_K:
            assert index + 1 + max(jt, jf) < len(PROGRAM), f"jump out of the program at {index}"
    assert PROGRAM[-1] == (seccomp.RET_K, 0, 0, RET_ALLOW)


@pytest.mark.parametrize("name", sorted(seccomp.X86_64_KILL))
def test_escape_syscalls_kill_the_process(name):
    assert decide(seccomp.X86_64_KILL[name]) == RET_KILL_PROCESS


@pytest.mark.parametrize(
    ("nr", "err"),
    [(41, errno.EACCES), (112, errno.EPERM), (109, errno.EPERM), (435, errno.ENOSYS)],
    ids=["socket", "setsid", "setpgid", "clone3"],
)
def test_probed_syscalls_fail_softly(nr, err):
    assert decide(nr) == RET_ERRNO | err


@pytest.mark.parametrize("nr", [0, 1, 2, 3, 9, 11, 12, 39, 57, 58, 60, 61, 231, 202, 318, 334])
def test_ordinary_syscalls_are_allowed(nr):
    assert decide(nr) == RET_ALLOW


def test_clone_is_judged_by_its_flags():
    fork_flags = 0x01200011  # CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD
    thread_flags = 0x003D0F00
    assert decide(seccomp.SYS_CLONE, fork_flags) == RET_ALLOW
    assert decide(seccomp.SYS_CLONE, thread_flags) == RET_ALLOW
    for flag in (0x00020000, 0x10000000, 0x20000000, 0x40000000, 0x80, 0x02000000, 0x04000000, 0x08000000):
        assert decide(seccomp.SYS_CLONE, fork_flags | flag) == RET_KILL_PROCESS, hex(flag)


def test_kill_minus_one_is_fatal_but_other_kills_are_not():
    assert decide(seccomp.SYS_KILL, -1, 9) == RET_KILL_PROCESS
    assert decide(seccomp.SYS_KILL, 0xFFFFFFFF, 9) == RET_KILL_PROCESS
    assert decide(seccomp.SYS_KILL, 1234, 9) == RET_ALLOW
    assert decide(seccomp.SYS_KILL, -1234, 9) == RET_ALLOW


def test_terminal_injection_ioctls_are_fatal():
    assert decide(seccomp.SYS_IOCTL, 0, seccomp.TIOCSTI) == RET_KILL_PROCESS
    assert decide(seccomp.SYS_IOCTL, 0, seccomp.TIOCLINUX) == RET_KILL_PROCESS
    assert decide(seccomp.SYS_IOCTL, 0, 0x5401) == RET_ALLOW  # TCGETS


def test_foreign_architectures_and_x32_are_fatal():
    assert decide(0, arch=0x40000003) == RET_KILL_PROCESS  # i386
    assert decide(0x40000000 | 59) == RET_KILL_PROCESS
    assert decide(0x40000000) == RET_KILL_PROCESS
