"""The worker's /proc reading, shared by its CPU meter (`sandbox.cputime`) and blocked-time sampler (`sandbox.blocked`).

Both walk every process below the worker many times a second, so the /proc files they read
are kept open and re-read with pread: a descriptor stays bound to the process or task it was
opened for, so a pid or tid the kernel reuses cannot be misread. The descriptors are moved
above `HIGH_FD`, out of the range a job process is given.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable

HIGH_FD = 100  # the worker's long-lived descriptors stay out of the range job processes use
READ_SIZE = 4096  # every file read here (stat, schedstat, children) is one short line


class ProcFiles:
    """/proc files read through descriptors kept open between walks; `max_open` caps how many are kept."""

    def __init__(self, max_open: int | None = None) -> None:
        self.max_open = max_open
        self._fds: dict[str, int] = {}

    def read(self, path: str) -> bytes | None:
        """The file's current contents, or None once it is gone (its descriptor is then closed)."""
        fd = self._fds.get(path)
        try:
            if fd is None:
                opened = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
                if self.max_open is not None and len(self._fds) >= self.max_open:
                    try:
                        return os.pread(opened, READ_SIZE, 0)
                    finally:
                        os.close(opened)
                fd = self._fds[path] = fcntl.fcntl(opened, fcntl.F_DUPFD_CLOEXEC, HIGH_FD)
                os.close(opened)
            return os.pread(fd, READ_SIZE, 0)
        except OSError:
            if fd is not None:
                os.close(self._fds.pop(path))
            return None

    def paths(self) -> list[str]:
        """The paths whose descriptors are open now."""
        return list(self._fds)

    def close_unless(self, keep: Callable[[str], bool]) -> None:
        """Close the descriptors of the paths `keep` rejects (those of processes gone since the last walk)."""
        for path in [p for p in self._fds if not keep(p)]:
            os.close(self._fds.pop(path))

    def close(self) -> None:
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()


def after_command(data: bytes) -> bytes:
    """A /proc stat line past its `(command name)`, which may itself hold spaces and parentheses."""
    return data.rsplit(b")", 1)[-1]


def listdir(path: str) -> list[str]:
    """The names in a /proc folder, or none once its process is gone."""
    try:
        return os.listdir(path)
    except OSError:
        return []
