"""Emptying a job directory that a candidate may have made hostile: deep, wide, unreadable, full of symlinks.

`shutil.rmtree` recurses once per level (a 3,000-deep tree raises RecursionError, not
OSError) and builds full paths (longer than PATH_MAX there). Here nothing recurses and
no path is longer than two names: every directory is opened relative to the job
directory, its files are unlinked through that descriptor, and its subdirectories are
renamed up to the job directory's top level before they are emptied in turn, so depth
never grows. Symlinks are unlinked, never followed; directories the candidate made
unreadable (mode 000) are opened through an O_PATH descriptor and made 0700 first.
A tree too big to go within the time limit raises `JobDirStuck`: the worker then
retires instead of handing the next job a dirty directory.
"""

from __future__ import annotations

import os
import time

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
HOIST_PREFIX = ".execugraph-rm-"
HOIST_TRIES = 64


class JobDirStuck(RuntimeError):
    """The job directory could not be emptied (in time): the worker must not run another job in it."""


def empty_dir(path: str, time_limit_s: float) -> int:
    """Remove everything inside `path` (not `path` itself, whose inode Landlock names); returns entries removed."""
    deadline = time.monotonic() + time_limit_s
    top = os.open(path, DIR_FLAGS)
    try:
        return _Emptier(top, deadline).run()
    finally:
        os.close(top)


class _Emptier:
    def __init__(self, top: int, deadline: float) -> None:
        self.top = top
        self.deadline = deadline
        self.removed = 0
        self.counter = 0

    def _check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise JobDirStuck(f"the job directory was not empty after removing {self.removed} entries "
                              "(a tree too big to remove in time)")

    def run(self) -> int:
        while entries := _entries(self.top):
            for name, is_dir in entries:
                self._check_time()
                if is_dir:
                    self._drain(name)
                else:
                    self._unlink(self.top, name)
        return self.removed

    def _unlink(self, parent: int, name: str) -> None:
        try:
            os.unlink(name, dir_fd=parent)
        except FileNotFoundError:
            return
        self.removed += 1

    def _drain(self, name: str) -> None:
        """Empty top-level directory `name` (files unlinked, subdirectories hoisted to the top), then remove it."""
        fd = _open_dir(self.top, name)
        if fd is None:
            return
        try:
            _make_writable(fd)
            while entries := _entries(fd):
                for child, is_dir in entries:
                    self._check_time()
                    if is_dir:
                        self._hoist(fd, child)
                    else:
                        self._unlink(fd, child)
        finally:
            os.close(fd)
        try:
            os.rmdir(name, dir_fd=self.top)
        except FileNotFoundError:
            return
        self.removed += 1

    def _hoist(self, parent: int, child: str) -> None:
        """Rename directory `child` of `parent` to a fresh name in the top directory (depth stays at most two)."""
        for _ in range(HOIST_TRIES):
            self.counter += 1
            target = f"{HOIST_PREFIX}{self.counter}"
            try:
                os.rename(child, target, src_dir_fd=parent, dst_dir_fd=self.top)
                return
            except FileNotFoundError:
                return
            except PermissionError:  # moving a directory rewrites its "..": it must be writable (without root)
                _chmod_nofollow(parent, child)
            except OSError:
                continue  # the name is taken (a candidate may have used it): try the next one
        raise JobDirStuck(f"could not move directory {child!r} out of a nested one")


def _entries(fd: int) -> list[tuple[str, bool]]:
    """(name, is a real directory) for each entry; d_type from getdents, so symlinks are never followed."""
    with os.scandir(fd) as it:
        return [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in it]


def _open_dir(parent: int, name: str) -> int | None:
    try:
        return os.open(name, DIR_FLAGS, dir_fd=parent)
    except FileNotFoundError:
        return None
    except PermissionError:  # mode 000 without root: make it 0700 through the inode itself, then open it
        _chmod_nofollow(parent, name)
        return os.open(name, DIR_FLAGS, dir_fd=parent)


def _chmod_nofollow(parent: int, name: str) -> None:
    """chmod 0700 of the directory `name` itself: an O_PATH descriptor pins the inode, so a symlink is never followed."""
    pinned = os.open(name, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    try:
        os.chmod(f"/proc/self/fd/{pinned}", 0o700)
    finally:
        os.close(pinned)


def _make_writable(fd: int) -> None:
    try:
        os.fchmod(fd, 0o700)
    except OSError:
        pass
