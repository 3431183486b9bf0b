"""Reading what a person handed over, within caps: a whole file, a stream, JSON Lines, a JSON document.

One reader per shape, so every importer refuses the same faults the same way:
- a file is opened only when it is a regular file (a FIFO would wait forever, /dev/zero
  never ends) and read only up to its cap, even when it grew after it was measured;
- a JSON Lines file is read line by line (split on newlines only, a byte-order mark on
  line 1 dropped, blank lines skipped), and a line that is not UTF-8, not JSON, nested
  too deeply or (where objects are wanted) not an object becomes one `Issue` naming the
  file and line, while the other lines are still read;
- NaN and +-Infinity, which files written by pandas carry, are read as null (no value).
"""

from __future__ import annotations

import json
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any, Literal

from execugraph.domain.json_types import JsonObject
from execugraph.inputs.diagnostics import IssueCollector

TOO_DEEP = "JSON nested too deeply to read (lists or objects inside each other thousands of levels down)"
NOT_A_FILE = "not a regular file (a folder, a pipe, a device or a socket), so it is not read"
_BOM = b"\xef\xbb\xbf"

RefusalKind = Literal["missing", "not-a-file", "too-large", "unreadable"]


class FileRefused(Exception):
    """Why a capped read did not return a file's bytes; each caller words it for what the file is used as."""

    def __init__(self, name: str, kind: RefusalKind, *, size: int | None = None, limit: int = 0,
                 reason: str = "") -> None:
        self.name = name  # the file as the user named it
        self.kind = kind  # which fault: missing, not-a-file, too-large, unreadable
        self.size = size  # bytes the file holds (too-large; None when only "more than limit" is known)
        self.limit = limit  # the cap it was read under (too-large)
        self.reason = reason  # the operating system's words (missing, unreadable)
        super().__init__(f"{name}: {self.describe('a file')}")

    def describe(self, what: str) -> str:
        """The fault in words, `what` naming the file's use (`a benchmark file`)."""
        if self.kind == "not-a-file":
            return NOT_A_FILE
        if self.kind == "too-large":
            held = f"{self.size:,} bytes" if self.size is not None else "more bytes"
            return f"{held}, more than the {self.limit:,} {what} may hold"
        return f"cannot read: {self.reason}"


def read_capped_stream(stream: IO[bytes], limit: int, name: str) -> bytes:
    """All of `stream`, refused (FileRefused, too-large) as soon as it holds more than `limit` bytes."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise FileRefused(name, "too-large", limit=limit)
    return data


def read_capped_file(path: str | Path, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; FileRefused says why not, before anything is read."""
    source = Path(path)
    try:
        info = source.stat()
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(str(source), "not-a-file")
        if info.st_size > limit:
            raise FileRefused(str(source), "too-large", size=info.st_size, limit=limit)
        with source.open("rb") as handle:
            return read_capped_stream(handle, limit, str(source))  # a file that grew since stat() is cut off here
    except FileNotFoundError as exc:
        raise FileRefused(str(source), "missing", reason=exc.strerror or str(exc)) from exc
    except OSError as exc:
        raise FileRefused(str(source), "unreadable", reason=exc.strerror or str(exc)) from exc


def split_lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, line without its newline) of a JSON Lines file held in memory; a BOM on line 1 is
    dropped. Lines end at newlines only (a U+2028 inside a JSON string does not end one)."""
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    for number, raw in enumerate(data.split(b"\n"), start=1):
        yield number, raw.rstrip(b"\r")


def _no_number(constant: str) -> None:
    """NaN and Infinity are not JSON; the tools that write them (pandas, numpy) mean "no value"."""
    return None


def parse_json(text: str | bytes) -> Any:
    """One JSON value, NaN and +-Infinity read as null; raises json.JSONDecodeError, UnicodeDecodeError or
    RecursionError (see `json_issue` for their words)."""
    return json.loads(text, parse_constant=_no_number)


def json_issue(exc: Exception) -> tuple[int | None, str]:
    """(line, message) for what `parse_json` raised (the line is where a multi-line document broke)."""
    if isinstance(exc, json.JSONDecodeError):
        return exc.lineno, f"not valid JSON ({exc.msg} at column {exc.colno})"
    if isinstance(exc, UnicodeDecodeError):
        return None, f"not UTF-8 text ({exc})"
    return None, TOO_DEEP


def read_json_lines(lines: bytes | Iterable[tuple[int, bytes]], file: str, issues: IssueCollector, *,
                    read_as: str | None = None, objects: bool = True) -> Iterator[tuple[int, Any]]:
    """(line number, value) for every non-blank line that is valid JSON (an object, unless `objects` is False).

    `lines` is a whole file or (number, line) pairs (`FileSet.lines`). Every other line becomes one issue on
    `file`, its message prefixed `read as <read_as>: ` when a format was tried.
    """
    tag = f"read as {read_as}: " if read_as else ""
    for number, raw in split_lines(lines) if isinstance(lines, bytes) else lines:
        if not raw.strip():
            continue
        try:
            value = parse_json(raw.decode("utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
            issues.add(file, number, None, tag + json_issue(exc)[1])
            continue
        if objects and not isinstance(value, dict):
            issues.add(file, number, None, f"{tag}expected a JSON object, got {type(value).__name__}")
            continue
        yield number, value


def first_json_line(data: bytes, file: str, issues: IssueCollector) -> tuple[int, Any] | None:
    """(line number, value) of the first non-blank line (any JSON value), None when there is none or it is not
    JSON (then with an issue); how a file's format is told from its content."""
    for number, raw in split_lines(data):
        if raw.strip():
            return next(read_json_lines([(number, raw)], file, issues, objects=False), None)
    return None


def read_json_document(data: bytes, file: str, issues: IssueCollector, *, read_as: str | None = None,
                       objects: bool = False) -> Any:
    """A whole JSON document (a BOM allowed), or None with an issue naming file and line (and what it was
    `read_as`); with `objects`, anything but an object is an issue too."""
    tag = f"read as {read_as}: " if read_as else ""
    try:
        value = parse_json(data.decode("utf-8-sig"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        line, message = json_issue(exc)
        issues.add(file, line, None, tag + message)
        return None
    if objects and not isinstance(value, dict):
        issues.add(file, None, None, f"{tag}expected a JSON object, got {type(value).__name__}")
        return None
    return value


def read_json_object(data: bytes, file: str, issues: IssueCollector) -> JsonObject | None:
    """A whole-file JSON object, or None with an issue recorded."""
    value = read_json_document(data, file, issues, objects=True)
    return value if isinstance(value, dict) else None
