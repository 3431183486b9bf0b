"""A seccomp deny-list written directly as classic BPF (no libseccomp needed).

Syscalls that only an escape attempt needs (exec, ptrace, mount, namespaces,
bpf, io_uring, keyrings, kernel modules, clone with namespace flags,
kill(-1), terminal input injection) kill the whole process with SIGSYS, which
the worker reports as `sandbox_violation`. `socket` fails with EACCES and
`setsid`/`setpgid` with EPERM, so library code that merely probes them (for
example glibc's name-service lookups) degrades instead of dying; `clone3`
fails with ENOSYS so threads fall back to `clone`, whose flags the filter can
inspect. x86-64 only; elsewhere the layer is reported unavailable.
"""

from __future__ import annotations

import ctypes
import errno
import struct

from sandbox import syscalls

AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000
SECCOMP_SET_MODE_FILTER = 1
SYS_SECCOMP_X86_64 = 317

RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000

# classic BPF opcodes
LD_W_ABS = 0x20
JMP_JEQ_K = 0x15
JMP_JGE_K = 0x35
JMP_JSET_K = 0x45
RET_K = 0x06

OFF_NR = 0
OFF_ARCH = 4


def off_arg_low(index: int) -> int:
    """Offset of the low 32 bits of syscall argument `index` in struct seccomp_data (little endian)."""
    return 16 + 8 * index


# x86-64 syscall numbers
X86_64_KILL = {
    "execve": 59,
    "execveat": 322,
    "ptrace": 101,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "mount": 165,
    "umount2": 166,
    "pivot_root": 155,
    "chroot": 161,
    "unshare": 272,
    "setns": 308,
    "bpf": 321,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "keyctl": 250,
    "add_key": 248,
    "request_key": 249,
    "perf_event_open": 298,
    "kexec_load": 246,
    "kexec_file_load": 320,
    "init_module": 175,
    "finit_module": 313,
    "delete_module": 176,
    "reboot": 169,
    "swapon": 167,
    "swapoff": 168,
    "userfaultfd": 323,
    "open_by_handle_at": 304,
    "name_to_handle_at": 303,
    "fanotify_init": 300,
    "syslog": 103,
    "acct": 163,
    "settimeofday": 164,
    "clock_settime": 227,
    "clock_adjtime": 305,
    "adjtimex": 159,
    "sethostname": 170,
    "setdomainname": 171,
    "iopl": 172,
    "ioperm": 173,
    "quotactl": 179,
    "quotactl_fd": 443,
    "uselib": 134,
    "vhangup": 153,
    "pidfd_getfd": 438,
    "kcmp": 312,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
    "process_madvise": 440,
    "lookup_dcookie": 212,
    "modify_ldt": 154,
}
X86_64_ERRNO = {
    "socket": (41, errno.EACCES),
    "setsid": (112, errno.EPERM),
    "setpgid": (109, errno.EPERM),
    "clone3": (435, errno.ENOSYS),
}
SYS_CLONE = 56
SYS_KILL = 62
SYS_IOCTL = 16
CLONE_NAMESPACE_FLAGS = (
    0x00000080 | 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
)
TIOCSTI = 0x5412
TIOCLINUX = 0x541C

Insn = tuple[int, int, int, int]  # code, jt, jf, k


def build_program() -> list[Insn]:
    """The filter as (code, jt, jf, k) instructions; also interpreted directly by the unit tests."""
    prog: list[Insn] = [
        (LD_W_ABS, 0, 0, OFF_ARCH),
        (JMP_JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
        (RET_K, 0, 0, RET_KILL_PROCESS),
        (LD_W_ABS, 0, 0, OFF_NR),
        (JMP_JGE_K, 0, 1, X32_SYSCALL_BIT),
        (RET_K, 0, 0, RET_KILL_PROCESS),
    ]
    for nr in sorted(X86_64_KILL.values()):
        prog += [(JMP_JEQ_K, 0, 1, nr), (RET_K, 0, 0, RET_KILL_PROCESS)]
    for nr, err in sorted(X86_64_ERRNO.values()):
        prog += [(JMP_JEQ_K, 0, 1, nr), (RET_K, 0, 0, RET_ERRNO | err)]
    # clone(flags, ...): any namespace flag kills.
    prog += [
        (JMP_JEQ_K, 0, 4, SYS_CLONE),
        (LD_W_ABS, 0, 0, off_arg_low(0)),
        (JMP_JSET_K, 0, 1, CLONE_NAMESPACE_FLAGS),
        (RET_K, 0, 0, RET_KILL_PROCESS),
        (RET_K, 0, 0, RET_ALLOW),
    ]
    # kill(-1, sig) would signal every process the uid may reach.
    prog += [
        (JMP_JEQ_K, 0, 4, SYS_KILL),
        (LD_W_ABS, 0, 0, off_arg_low(0)),
        (JMP_JEQ_K, 0, 1, 0xFFFFFFFF),
        (RET_K, 0, 0, RET_KILL_PROCESS),
        (RET_K, 0, 0, RET_ALLOW),
    ]
    # ioctl(fd, TIOCSTI|TIOCLINUX, ...) injects input into a terminal.
    prog += [
        (JMP_JEQ_K, 0, 5, SYS_IOCTL),
        (LD_W_ABS, 0, 0, off_arg_low(1)),
        (JMP_JEQ_K, 1, 0, TIOCSTI),
        (JMP_JEQ_K, 0, 1, TIOCLINUX),
        (RET_K, 0, 0, RET_KILL_PROCESS),
        (RET_K, 0, 0, RET_ALLOW),
    ]
    prog.append((RET_K, 0, 0, RET_ALLOW))
    return prog


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


class Filter:
    """The compiled filter, built once in the worker and installed by each job process."""

    def __init__(self) -> None:
        if syscalls.MACHINE != "x86_64":
            raise OSError(f"seccomp filter is written for x86_64, this machine is {syscalls.MACHINE}")
        prog = build_program()
        self._insns = (_SockFilter * len(prog))(*[_SockFilter(*insn) for insn in prog])
        self._fprog = _SockFprog(len(prog), self._insns)

    def install(self) -> None:
        """Install on the calling thread (needs no_new_privs); irreversible, inherited by children."""
        syscalls.syscall(SYS_SECCOMP_X86_64, SECCOMP_SET_MODE_FILTER, 0, ctypes.byref(self._fprog), what="seccomp")


def pack_seccomp_data(nr: int, args: tuple[int, ...] = (), arch: int = AUDIT_ARCH_X86_64) -> bytes:
    """A struct seccomp_data, for interpreting the program in tests."""
    padded = list(args) + [0] * (6 - len(args))
    return struct.pack("<IIQ6Q", nr, arch, 0, *[a & 0xFFFFFFFFFFFFFFFF for a in padded])
