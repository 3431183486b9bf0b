"""Per-file times of a `make test` run from its JUnit XML, and which files bound the wall time with N processes.

Why: FILE_SECONDS (tests/support/schedule.py) orders the files; this reads what a run measured instead of guessing.
Run `make test PYTEST_ARGS=--junitxml=/tmp/junit.xml`, then `.venv/bin/python -m tests.support.junit_times
/tmp/junit.xml --workers 3`: a table (seconds, tests, seconds per test), the files each simulated process runs
(`--dist loadfile`, slowest first as the schedule orders them, each file to the first process that is free), the
process that ends last (the critical path), and a FILE_SECONDS block for the files over `--min-seconds`.
A testcase's time in pytest's JUnit XML is its setup, call and teardown together (junit_duration_report=total), so a
module fixture's cost lands on the file's first test and the file's sum is what a process spends on it.
"""

from __future__ import annotations

import argparse
import heapq
import sys
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.support.schedule import FILE_SECONDS, slowest_first

ROOT = Path(__file__).resolve().parents[2]


class JunitError(ValueError):
    """A JUnit file that cannot be read: the message names the file, the testcase and the field."""


@dataclass(frozen=True)
class FileTime:
    """What one test file cost in a run."""

    path: str
    seconds: float
    tests: int

    @property
    def per_test(self) -> float:
        return self.seconds / self.tests if self.tests else 0.0


def file_of_classname(classname: str, root: Path = ROOT) -> str:
    """`tests.ui.test_x` (or `tests.ui.test_x.TestClass`) -> `tests/ui/test_x.py`, the longest prefix that is a file."""
    parts = classname.split(".")
    for end in range(len(parts), 0, -1):
        candidate = "/".join(parts[:end]) + ".py"
        if (root / candidate).is_file():
            return candidate
    return "/".join(parts) + ".py"


def read_junit(path: Path, root: Path = ROOT) -> list[FileTime]:
    """Each file's summed testcase seconds and its number of testcases, slowest first."""
    try:
        tree = ET.parse(path)
    except (OSError, ET.ParseError) as error:
        raise JunitError(f"{path}: not a readable JUnit XML file ({error})") from None
    seconds: dict[str, float] = {}
    tests: dict[str, int] = {}
    for number, case in enumerate(tree.iter("testcase"), start=1):
        classname, raw = case.get("classname"), case.get("time")
        name = case.get("name", "?")
        if not classname:
            raise JunitError(f"{path}: testcase {number} ({name}): field 'classname' is missing")
        try:
            spent = float(raw if raw is not None else "")
        except ValueError:
            raise JunitError(f"{path}: testcase {number} ({classname}::{name}): field 'time' is {raw!r}, "
                             "not a number") from None
        file = file_of_classname(classname, root)
        seconds[file] = seconds.get(file, 0.0) + spent
        tests[file] = tests.get(file, 0) + 1
    return sorted((FileTime(f, seconds[f], tests[f]) for f in seconds), key=lambda t: (-t.seconds, t.path))


def simulate(times: Sequence[FileTime], workers: int, order: Mapping[str, float] = FILE_SECONDS) -> list[list[str]]:
    """The files each of `workers` processes runs: in the schedule's order, each to the process free first."""
    ids = [f"{t.path}::x" for t in sorted(times, key=lambda t: t.path)]
    ordered = [ids[i].split("::", 1)[0] for i in slowest_first(ids, order)]
    cost = {t.path: t.seconds for t in times}
    lanes: list[list[str]] = [[] for _ in range(max(1, workers))]
    free = [(0.0, lane) for lane in range(len(lanes))]
    for path in ordered:
        at, lane = heapq.heappop(free)
        lanes[lane].append(path)
        heapq.heappush(free, (at + cost[path], lane))
    return lanes


def report(times: Sequence[FileTime], workers: int, min_seconds: float, top: int) -> str:
    """The table, the simulated processes and a FILE_SECONDS block, as text."""
    total = sum(t.seconds for t in times)
    lines = [f"{len(times)} files, {sum(t.tests for t in times)} tests, {total:.0f} s summed",
             f"{'seconds':>9} {'tests':>6} {'s/test':>8}  file"]
    lines += [f"{t.seconds:9.1f} {t.tests:6d} {t.per_test:8.2f}  {t.path}" for t in times[:top]]
    cost = {t.path: t.seconds for t in times}
    refreshed = max(sum(cost[p] for p in lane) for lane in simulate(times, workers, cost))
    lanes = simulate(times, workers)
    ends = [sum(cost[p] for p in lane) for lane in lanes]
    last = max(range(len(lanes)), key=lambda i: ends[i])
    lines.append(f"\n{workers} processes, loadfile: wall >= {max(ends):.0f} s in FILE_SECONDS' order, "
                 f"{refreshed:.0f} s in this run's order (lower bound {total / max(1, workers):.0f} s)")
    for i, lane in enumerate(lanes):
        heavy = ", ".join(f"{Path(p).name} {cost[p]:.0f}" for p in sorted(lane, key=lambda p: -cost[p])[:4])
        mark = "  <- ends last" if i == last else ""
        lines.append(f"  process {i}: {ends[i]:.0f} s, {len(lane)} files; heaviest: {heavy}{mark}")
    lines.append("\nFILE_SECONDS = {")
    lines += [f'    "{t.path}": {round(t.seconds)},' for t in times if t.seconds >= min_seconds]
    lines.append("}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("junit", type=Path)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--min-seconds", type=float, default=15.0, help="files at least this slow go in the block")
    parser.add_argument("--top", type=int, default=40, help="rows of the table")
    args = parser.parse_args(argv)
    try:
        times = read_junit(args.junit)
    except JunitError as error:
        print(error, file=sys.stderr)
        return 2
    print(report(times, args.workers, args.min_seconds, args.top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
