"""The benchmark file a published results tree may carry, so its runs are rescored with their own tests.

Any `.jsonl` in the tree other than `trials.jsonl` whose first record has the published
problem layout (`id`, `primary_function`, `tests`; see `benchmarks.published`) is such a
file. Its problems are stored under a benchmark name of their own,
`published:<file stem>@<first 12 hex of its SHA-256>`, so they never replace our
internal-30 or another import's copy, and re-importing the same file reuses them. Every
run of the tree records the file in its config (`reference.benchmark_file`), which is
what `rescore` reads to prefer these tests.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, TypedDict

from execugraph.benchmarks.errors import BenchmarkFormatError
from execugraph.benchmarks.published import looks_published, parse_published_jsonl, published_warnings
from execugraph.domain.problem import Problem
from execugraph.inputs.readers import read_json_lines
from execugraph.publication.formats import IssueCollector, Row
from execugraph.publication.source import FileSet

TRIALS_FILE = "trials.jsonl"


class BenchmarkFileConfig(TypedDict):
    """A benchmark file as a run's config names it (`reference.benchmark_file`, a reproduction's `dataset`)."""

    benchmark: str  # the benchmark name its problems are stored under
    file: str  # its path within the input (or its name)
    problems: int  # how many problems it holds


@dataclass
class BenchmarkFile:
    """A published benchmark file found in a tree, parsed."""

    path: str
    benchmark: str
    problems: list[Problem]
    warnings: list[str] = field(default_factory=list)

    @property
    def ids(self) -> frozenset[str]:
        return frozenset(p.id for p in self.problems)

    def config(self) -> BenchmarkFileConfig:
        """What each run of the tree records about the file."""
        return {"benchmark": self.benchmark, "file": self.path, "problems": len(self.problems)}


def _first_record(fileset: FileSet, path: str) -> Any:
    """The first JSON record of a file, read line by line (a trials log is never read whole here)."""
    for number, raw in fileset.lines(path):
        if raw.strip():  # bytes that are not UTF-8 are replaced: the loader names them, line by line, if it is one
            line = raw.decode("utf-8", errors="replace").encode("utf-8")
            found = next(read_json_lines([(number, line)], path, IssueCollector(), objects=False), None)
            return None if found is None else found[1]
        if number >= 50:
            break
    return None


def benchmark_name(path: str, data: bytes) -> str:
    """`published:<stem>@<digest>`: content-addressed, so the same file always lands in the same place."""
    stem = path.rpartition("/")[2].rsplit(".", 1)[0] or "benchmark"
    return f"published:{stem}@{hashlib.sha256(data).hexdigest()[:12]}"


def find_benchmark_files(fileset: FileSet, issues: IssueCollector) -> list[BenchmarkFile]:
    """Every published benchmark file in the tree, parsed; a malformed one is reported with line and field."""
    found = []
    for path in sorted(fileset.files):
        name = path.rpartition("/")[2]
        if not name.endswith(".jsonl") or name == TRIALS_FILE:
            continue
        if not looks_published(_first_record(fileset, path)):
            continue
        data = fileset.read_bytes(path)
        benchmark = benchmark_name(path, data)
        try:
            problems = parse_published_jsonl(data, source=path, benchmark=benchmark)
        except BenchmarkFormatError as exc:
            for issue in exc.issues:
                issues.add(path, issue.line, issue.field, issue.message)
            continue
        found.append(BenchmarkFile(path, benchmark, problems, published_warnings(data, path)))
    return found


def problem_rows(files: list[BenchmarkFile]) -> list[Row]:
    """ProblemRecord rows for every problem of the files (insert only those not stored yet)."""
    from execugraph.store.models import ProblemRecord

    return [ProblemRecord.from_problem(p).model_dump() for f in files for p in f.problems]
