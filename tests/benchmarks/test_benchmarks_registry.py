"""The benchmark registry and the shared subset/category filter."""

from __future__ import annotations

import pytest

from execugraph.benchmarks import (
    BENCHMARKS,
    UnknownBenchmarkError,
    canonical_name,
    load_benchmark,
    load_internal30,
    select_problems,
)
from execugraph.grading.rules import build_suite


def test_names_and_spellings():
    assert BENCHMARKS[:5] == ("internal30", "humaneval", "apps", "user", "published")
    assert {"humaneval-plus", "mbpp-plus"} <= set(BENCHMARKS)  # EvalPlus's, built in (and others' after them)
    assert canonical_name("Internal-30") == "internal30"
    assert canonical_name("HumanEval-164") == "humaneval"
    with pytest.raises(UnknownBenchmarkError) as caught:
        load_benchmark("mbpp")
    assert "unknown benchmark 'mbpp'" in str(caught.value) and "internal30" in str(caught.value)
    assert isinstance(caught.value, KeyError)


def test_file_benchmarks_need_a_path():
    for name in ("apps", "user", "published"):
        with pytest.raises(TypeError, match="path="):
            load_benchmark(name)


def test_select_by_ids_categories_and_seeded_sample():
    problems = load_internal30()
    picked = select_problems(problems, ids=["lis", "fib", "avl"])
    assert [p.id for p in picked] == ["fib", "lis", "avl"]  # suite order, not request order
    assert {p.category for p in select_problems(problems, categories=["ds"])} == {"ds"}
    sample = select_problems(problems, categories=["dp", "graph"], n=5, seed=3)
    assert len(sample) == 5 and {p.category for p in sample} <= {"dp", "graph"}
    assert [p.id for p in sample] == [p.id for p in select_problems(problems, categories=["dp", "graph"], n=5, seed=3)]
    assert [p.id for p in sample] != [p.id for p in select_problems(problems, categories=["dp", "graph"], n=5, seed=4)]
    assert len(select_problems(problems, n=100)) == 30
    with pytest.raises(KeyError, match="unknown problem ids: lsi"):
        select_problems(problems, ids=["lis", "lsi"])
    with pytest.raises(ValueError):
        select_problems(problems, n=-1)


def test_every_loaded_suite_is_accepted_by_the_sandbox_parser():
    """Format drift between our schema and the sandbox's would otherwise only show at run time."""
    from execugraph.benchmarks import load_apps, load_humaneval
    from execugraph.configuration.settings import DATA_DIR
    from sandbox import parse_suite

    problems = load_internal30() + load_humaneval() + load_apps(DATA_DIR / "fixtures" / "apps_sample.jsonl")
    for problem in problems:
        parsed = parse_suite(build_suite(problem, problem.tests, "standalone"))
        assert len(parsed.tests) == len(problem.tests), problem.id
        assert parsed.entry_point == problem.entry_point
