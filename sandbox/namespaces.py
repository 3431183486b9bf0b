"""Namespaces for a worker: no network at all, and private scratch filesystems.

As root the worker unshares a network namespace (only a downed loopback
inside, so nothing is reachable, not even the host's 127.0.0.1) and a mount
namespace in which /tmp, /var/tmp and /dev/shm are fresh size-capped tmpfs
mounts that the host never sees; the per-job directory lives there. Without
root it tries the same inside a new user namespace. Each part is reported on
its own.
"""

from __future__ import annotations

import os

from sandbox import syscalls

PRIVATE_TMPFS = ("/tmp", "/var/tmp", "/dev/shm")


def _write_map(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def enter(want_net: bool, want_mount: bool, tmpfs_mb: int) -> dict[str, str]:
    """Unshare what is wanted and possible; returns layer -> 'active' | 'unavailable: why'."""
    layers: dict[str, str] = {}
    if not want_net:
        layers["network_namespace"] = "unavailable: disabled by configuration"
    if not want_mount:
        layers["mount_namespace"] = "unavailable: disabled by configuration"
    flags = (syscalls.CLONE_NEWNET if want_net else 0) | (syscalls.CLONE_NEWNS if want_mount else 0)
    if not flags:
        return layers
    if not syscalls.available():
        for name in ("network_namespace", "mount_namespace"):
            layers.setdefault(name, "unavailable: no libc access")
        return layers
    try:
        if os.geteuid() == 0:
            syscalls.unshare(flags)
        else:
            uid, gid = os.geteuid(), os.getegid()
            syscalls.unshare(flags | syscalls.CLONE_NEWUSER)
            _write_map("/proc/self/setgroups", "deny")
            _write_map("/proc/self/uid_map", f"0 {uid} 1")
            _write_map("/proc/self/gid_map", f"0 {gid} 1")
    except OSError as exc:
        why = f"unavailable: unshare failed ({exc.strerror or exc})"
        for name, bit in (("network_namespace", syscalls.CLONE_NEWNET), ("mount_namespace", syscalls.CLONE_NEWNS)):
            if flags & bit:
                layers[name] = why
        return layers
    if want_net:
        layers["network_namespace"] = "active"
    if want_mount:
        try:
            syscalls.mount(None, "/", None, syscalls.MS_REC | syscalls.MS_PRIVATE)
            for target in PRIVATE_TMPFS:
                if os.path.isdir(target):
                    syscalls.mount(
                        "tmpfs",
                        target,
                        "tmpfs",
                        syscalls.MS_NOSUID | syscalls.MS_NODEV | syscalls.MS_NOEXEC,
                        f"size={tmpfs_mb}m,mode=1777",
                    )
            layers["mount_namespace"] = "active"
        except OSError as exc:
            layers["mount_namespace"] = f"unavailable: {exc.strerror or exc}"
    return layers
