"""Thin ctypes access to the Linux calls the standard library does not wrap (prctl, unshare, mount, raw syscall)."""

from __future__ import annotations

import ctypes
import os
import platform

MACHINE = platform.machine()

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_SECCOMP = 22
PR_SET_NO_NEW_PRIVS = 38
PR_SET_CHILD_SUBREAPER = 36

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000

MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_REC = 0x4000
MS_PRIVATE = 1 << 18

_libc: ctypes.CDLL | None
try:
    _libc = ctypes.CDLL(None, use_errno=True)
    _libc.syscall.restype = ctypes.c_long
    _libc.prctl.restype = ctypes.c_int
    _libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    _libc.unshare.argtypes = [ctypes.c_int]
    _libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
except (OSError, AttributeError):  # not glibc/musl Linux
    _libc = None


def available() -> bool:
    return _libc is not None and os.name == "posix"


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def libc() -> ctypes.CDLL:
    if _libc is None:
        raise OSError("libc is not reachable through ctypes on this platform")
    return _libc


def syscall(number: int, *args: object, what: str = "syscall") -> int:
    """Raw syscall(2); raises OSError with errno on failure."""
    converted = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    return _check(libc().syscall(ctypes.c_long(number), *converted), what)


def prctl(option: int, arg2: int = 0, arg3: int = 0, arg4: int = 0, arg5: int = 0, *, what: str = "prctl") -> int:
    return _check(libc().prctl(option, arg2, arg3, arg4, arg5), what)


def unshare(flags: int) -> None:
    _check(libc().unshare(flags), "unshare")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = lambda s: s.encode() if s is not None else None  # noqa: E731
    _check(libc().mount(enc(source), enc(target), enc(fstype), flags, enc(data)), f"mount {target}")
