"""Benchmark suites as lists of Problems: internal-30, HumanEval-164, APPS-format, user JSONL and the published layout.

`load_benchmark(name, **opts)` is the one entry point the runner, CLI and dashboard use;
each suite also has its own `load_<name>()`. `select_problems` applies the subset and
category filters a batch config names, the same way for every suite.

One module per suite (`internal30`, `humaneval`, `apps`, `user`, `published`), with
`suite_format` (the record schema), `docstring_examples` and `errors` shared between them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

from execugraph.benchmarks.apps import load_apps, parse_apps_jsonl
from execugraph.benchmarks.errors import (
    BenchmarkError,
    BenchmarkFormatError,
    BenchmarkUnavailableError,
    FormatIssue,
    UnknownBenchmarkError,
)
from execugraph.benchmarks.humaneval import canonical_solution, load_humaneval, to_problem_id, to_task_id
from execugraph.benchmarks.internal30 import INTERNAL30, load_internal30
from execugraph.benchmarks.published import load_published, parse_published_jsonl
from execugraph.benchmarks.user import load_user_suite, parse_user_jsonl
from execugraph.workflow.problem import Problem

# name -> loader; the file-based suites (FILE_BENCHMARKS) need `path=`.
_LOADERS: dict[str, Callable[..., list[Problem]]] = {
    "internal30": load_internal30,
    "humaneval": load_humaneval,
    "apps": load_apps,
    "user": load_user_suite,
    "published": load_published,
}
_SPELLINGS = {"internal-30": "internal30", "humaneval-164": "humaneval", "humaneval164": "humaneval"}
BENCHMARKS: tuple[str, ...] = tuple(_LOADERS)
FILE_BENCHMARKS: tuple[str, ...] = ("apps", "user", "published")


def canonical_name(name: str) -> str:
    """Our name for a benchmark, accepting the published spellings (`internal-30`, `HumanEval-164`)."""
    key = name.strip().lower()
    key = _SPELLINGS.get(key, key)
    if key not in _LOADERS:
        raise UnknownBenchmarkError(f"unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}")
    return key


def load_benchmark(name: str, **opts: Any) -> list[Problem]:
    """Problems of a named suite; options go to its loader (e.g. `n`/`seed` for humaneval, `path` for apps/user)."""
    key = canonical_name(name)
    if key in FILE_BENCHMARKS and "path" not in opts:
        raise TypeError(f"benchmark {key!r} reads a file: pass path=...")
    return _LOADERS[key](**opts)


def select_problems(
    problems: Iterable[Problem],
    *,
    ids: Iterable[str] | None = None,
    categories: Iterable[str] | None = None,
    n: int | None = None,
    seed: int = 0,
) -> list[Problem]:
    """Filter by ids and categories, then (optionally) draw n reproducibly by seed, keeping suite order.

    Unknown ids are an error rather than silently ignored, so a typo in a batch config
    cannot shrink an experiment without anyone noticing.
    """
    chosen = list(problems)
    if ids is not None:
        wanted = list(dict.fromkeys(ids))
        known = {p.id for p in chosen}
        unknown = [i for i in wanted if i not in known]
        if unknown:
            raise KeyError(f"unknown problem ids: {', '.join(unknown)}")
        chosen = [p for p in chosen if p.id in set(wanted)]
    if categories is not None:
        cats = set(categories)
        chosen = [p for p in chosen if p.category in cats]
    if n is not None:
        if n < 0:
            raise ValueError("n must be >= 0")
        if n < len(chosen):
            keep = set(random.Random(seed).sample(range(len(chosen)), n))
            chosen = [p for i, p in enumerate(chosen) if i in keep]
    return chosen


__all__ = [
    "BENCHMARKS",
    "FILE_BENCHMARKS",
    "INTERNAL30",
    "BenchmarkError",
    "BenchmarkFormatError",
    "BenchmarkUnavailableError",
    "FormatIssue",
    "UnknownBenchmarkError",
    "canonical_name",
    "canonical_solution",
    "load_apps",
    "load_benchmark",
    "load_humaneval",
    "load_internal30",
    "load_published",
    "load_user_suite",
    "parse_apps_jsonl",
    "parse_published_jsonl",
    "parse_user_jsonl",
    "select_problems",
    "to_problem_id",
    "to_task_id",
]
