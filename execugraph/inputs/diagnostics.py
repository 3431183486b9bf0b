"""One way to say what is wrong with an input a person handed over: `Issue`, `IssueCollector`, `InputError`.

Benchmark files, bundles, harness results, uploads and the files a reproduction reads are
all refused the same way: every fault found is an `Issue` naming the file, the line and
the field, they are gathered while the whole input is checked (so the user sees many at
once), and one `InputError` carries them; nothing from a refused input is kept. The
packages keep their own error classes (`BundleFormatError`, `ReproduceError`,
`BenchmarkFormatError`) as thin subclasses, so callers can still tell them apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

MAX_REPORTED_ISSUES = 20  # a collector keeps this many; beyond them issues are counted out
MAX_SHOWN_IN_MESSAGE = 3  # issues after the first quoted in an error's one-line message


@dataclass(frozen=True)
class Issue:
    """One fault of an input: where it is (file, line, field) and what is wrong."""

    file: str
    """The file as the user knows it (a path, a member of a zip, an upload's name)."""
    line: int | None
    """1-based line (of a JSON Lines file, or where a JSON parser stopped); None for the whole file."""
    field: str | None
    """The field at fault as a path (`tests[2].expected`, `families[0].runs`); None for the whole line."""
    message: str
    """What is wrong, in words a person can act on."""

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        what = f"field {self.field!r}: " if self.field else ""
        return f"{where}: {what}{self.message}"

    def within_file(self) -> str:
        """The issue without its file (`line 3, field id: ...`), for a message that names the file once above."""
        parts = ([f"line {self.line}"] if self.line is not None else []) + ([f"field {self.field}"] if self.field else [])
        return f"{', '.join(parts)}: {self.message}" if parts else self.message


class InputError(ValueError):
    """An input is malformed and nothing from it was used; `issues` lists every fault found (up to a limit).

    `file`, `line` and `field` are those of the first issue, for callers that show only one.
    """

    def __init__(self, issues: list[Issue]) -> None:
        if not issues:
            raise ValueError(f"{type(self).__name__} needs at least one issue")
        self.issues = list(issues)
        super().__init__(self._render())

    @property
    def file(self) -> str:
        return self.issues[0].file

    @property
    def line(self) -> int | None:
        return self.issues[0].line

    @property
    def field(self) -> str | None:
        return self.issues[0].field

    def _render(self) -> str:
        """One line: the first issue, then a few of the others."""
        first, rest = self.issues[0], self.issues[1:]
        shown = "; ".join(map(str, rest[:MAX_SHOWN_IN_MESSAGE]))
        return f"{first} (and {len(rest)} more: {shown})" if rest else str(first)


class IssueCollector:
    """Gathers issues while a whole input is validated, so the user sees many problems at once.

    `raise_if_any` raises `error` (a subclass sets the package's own error class).
    """

    error: ClassVar[type[InputError]] = InputError

    def __init__(self) -> None:
        self.issues: list[Issue] = []

    def add(self, file: str, line: int | None, field: str | None, message: str) -> None:
        """Record one issue (beyond MAX_REPORTED_ISSUES they are counted out)."""
        self.add_issue(Issue(file, line, field, message))

    def add_issue(self, issue: Issue) -> None:
        """Record an issue already built (e.g. one another reader found)."""
        if len(self.issues) < MAX_REPORTED_ISSUES:
            self.issues.append(issue)

    def raise_if_any(self) -> None:
        """Raise this collector's error class when anything was recorded."""
        if self.issues:
            raise self.error(list(self.issues))

    def __bool__(self) -> bool:
        return bool(self.issues)
