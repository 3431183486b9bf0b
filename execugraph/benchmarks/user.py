"""User suites: JSONL in our documented schema (docs/benchmark-format.md), one problem per line.

Uploads from the dashboard arrive as bytes and CLI suites as paths; both go through
`parse_user_jsonl`, which validates every line before building anything and raises one
`BenchmarkFormatError` naming each bad line and field, so a suite is imported whole or not
at all.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from execugraph.benchmarks.errors import BenchmarkFormatError, FormatIssue, read_suite_file
from execugraph.benchmarks.suite_format import parse_json_value, problem_from_record
from execugraph.domain.problem import Problem
from execugraph.inputs.readers import split_lines

MAX_ISSUES = 200  # stop collecting after this many; the file is refused either way

RecordConverter = Callable[[Any, int], tuple[Problem | None, list[FormatIssue]]]


def iter_jsonl_lines(data: bytes | str) -> list[tuple[int, str | None, FormatIssue | None]]:
    """(1-based line number, text, decoding fault) for each non-blank line.

    Lines are decoded one by one so an encoding fault is reported on its own line rather
    than failing the whole file with a byte offset.
    """
    raw_lines = data.encode("utf-8") if isinstance(data, str) else data
    out: list[tuple[int, str | None, FormatIssue | None]] = []
    for number, raw in split_lines(raw_lines):  # a UTF-8 byte-order mark some editors write is dropped
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            out.append((number, None, FormatIssue(number, "(encoding)", f"not UTF-8 text (byte {exc.start + 1})")))
            continue
        if text.strip():
            out.append((number, text, None))
    return out


def parse_jsonl_records(data: bytes | str, source: str, convert: RecordConverter) -> list[Problem]:
    """Shared JSONL driver: parse each line, convert it, refuse the whole file on any fault."""
    problems: list[Problem] = []
    issues: list[FormatIssue] = []
    first_line_of: dict[str, int] = {}
    for number, text, fault in iter_jsonl_lines(data):
        if len(issues) >= MAX_ISSUES:
            break
        if fault is not None:
            issues.append(fault)
            continue
        assert text is not None
        value, parse_issues = parse_json_value(text, number)
        if parse_issues:
            issues.extend(parse_issues)
            continue
        problem, record_issues = convert(value, number)
        if record_issues or problem is None:
            issues.extend(record_issues)
            continue
        if problem.id in first_line_of:
            issues.append(
                FormatIssue(
                    number, "id", f"duplicate id {problem.id!r} (first used on line {first_line_of[problem.id]})"
                )
            )
            continue
        first_line_of[problem.id] = number
        problems.append(problem)
    if not issues and not problems:
        issues.append(FormatIssue(None, "(file)", "no problems found (the file is empty or blank)"))
    if issues:
        raise BenchmarkFormatError(source, issues)
    return problems


def parse_user_jsonl(data: bytes | str, source: str = "<upload>", benchmark: str = "user") -> list[Problem]:
    """Problems from JSONL text or bytes in our schema; every record gets `benchmark` unless it names its own."""

    def convert(value: Any, line: int) -> tuple[Problem | None, list[FormatIssue]]:
        return problem_from_record(value, line, default_benchmark=benchmark)

    return parse_jsonl_records(data, source, convert)


def load_user_suite(path: str | Path, benchmark: str = "user") -> list[Problem]:
    """Problems from a JSONL file in our schema (see docs/benchmark-format.md)."""
    path = Path(path)
    data = read_suite_file(path)
    return parse_user_jsonl(data, source=str(path), benchmark=benchmark)
