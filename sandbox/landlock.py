"""Landlock through raw syscalls: filesystem, TCP and signal confinement an unprivileged process can apply to itself.

The worker builds one ruleset at start-up (read-only: interpreter and system
libraries; read-write: the per-job directory; nothing for TCP; signals and
abstract unix sockets scoped to the job) and each job process enforces it
with landlock_restrict_self() just before running untrusted code. Rights the
running kernel's ABI does not know are simply not requested, and the report
says which parts are in force.
"""

from __future__ import annotations

import ctypes
import os
import stat
from dataclasses import dataclass, field

from sandbox import syscalls

SYS_CREATE_RULESET = 444  # same number on every architecture (generic syscall table)
SYS_ADD_RULE = 445
SYS_RESTRICT_SELF = 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1

FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_REMOVE_DIR = 1 << 4
FS_REMOVE_FILE = 1 << 5
FS_MAKE_CHAR = 1 << 6
FS_MAKE_DIR = 1 << 7
FS_MAKE_REG = 1 << 8
FS_MAKE_SOCK = 1 << 9
FS_MAKE_FIFO = 1 << 10
FS_MAKE_BLOCK = 1 << 11
FS_MAKE_SYM = 1 << 12
FS_REFER = 1 << 13  # ABI 2
FS_TRUNCATE = 1 << 14  # ABI 3
FS_IOCTL_DEV = 1 << 15  # ABI 5
NET_BIND_TCP = 1 << 0  # ABI 4
NET_CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1

FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
READ_ONLY = FS_READ_FILE | FS_READ_DIR
READ_WRITE = (
    FS_WRITE_FILE
    | FS_READ_FILE
    | FS_READ_DIR
    | FS_REMOVE_DIR
    | FS_REMOVE_FILE
    | FS_MAKE_DIR
    | FS_MAKE_REG
    | FS_MAKE_SYM
    | FS_MAKE_FIFO
    | FS_MAKE_SOCK
    | FS_REFER
    | FS_TRUNCATE
)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def abi_version() -> int:
    """The kernel's Landlock ABI version; raises OSError when Landlock is missing or disabled."""
    return syscalls.syscall(SYS_CREATE_RULESET, None, 0, CREATE_RULESET_VERSION, what="landlock_create_ruleset")


def handled_fs(abi: int) -> int:
    mask = (1 << 13) - 1
    if abi >= 2:
        mask |= FS_REFER
    if abi >= 3:
        mask |= FS_TRUNCATE
    if abi >= 5:
        mask |= FS_IOCTL_DEV
    return mask


@dataclass
class Ruleset:
    """A prepared ruleset fd plus a description of what enforcing it restricts."""

    fd: int
    abi: int
    parts: dict[str, str] = field(default_factory=dict)

    def restrict_self(self) -> None:
        """Enforce on the calling process (needs no_new_privs or CAP_SYS_ADMIN); irreversible."""
        syscalls.syscall(SYS_RESTRICT_SELF, self.fd, 0, what="landlock_restrict_self")

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _add_path(ruleset_fd: int, path: str, access: int, handled: int) -> bool:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            access &= FILE_RIGHTS
        attr = _PathBeneathAttr(access & handled, fd)
        syscalls.syscall(
            SYS_ADD_RULE, ruleset_fd, RULE_PATH_BENEATH, ctypes.byref(attr), 0, what=f"landlock_add_rule {path}"
        )
    finally:
        os.close(fd)
    return True


def build_ruleset(read_only: list[str], read_write: list[str]) -> Ruleset:
    """Create the ruleset: only `read_only` paths readable, only `read_write` paths writable, no TCP, scoped signals."""
    abi = abi_version()
    fs = handled_fs(abi)
    attr = _RulesetAttr(fs, 0, 0)
    size = 8
    parts = {"landlock_fs": "active"}
    if abi >= 4:
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP
        size = 16
        parts["landlock_tcp"] = "active"
    else:
        parts["landlock_tcp"] = f"unavailable: Landlock ABI {abi} < 4 has no network rules"
    if abi >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
        size = 24
        parts["landlock_scope"] = "active"
    else:
        parts["landlock_scope"] = f"unavailable: Landlock ABI {abi} < 6 cannot scope signals"
    fd = syscalls.syscall(SYS_CREATE_RULESET, ctypes.byref(attr), size, 0, what="landlock_create_ruleset")
    try:
        for path in read_only:
            _add_path(fd, path, READ_ONLY, fs)
        for path in read_write:
            if not _add_path(fd, path, READ_WRITE, fs):
                raise OSError(f"landlock: read-write path {path} is missing")
    except BaseException:
        os.close(fd)
        raise
    os.set_inheritable(fd, False)
    return Ruleset(fd, abi, parts)
