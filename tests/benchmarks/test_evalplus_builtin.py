"""HumanEval+ and MBPP+ as built-in benchmarks: the vendored files (sha256-checked), both test sets, expected
outputs computed in the real sandbox and cached, and EvalPlus's comparison rules (float tolerance, set-equal
outputs, tuples kept apart from lists; find_zero's oracle judges the reference's roots)."""

from __future__ import annotations

import gzip
import json
import math
import shutil
from pathlib import Path

import pytest

from execugraph.benchmarks import BENCHMARKS, canonical_name, load_benchmark
from execugraph.benchmarks import evalplus_data as data
from execugraph.benchmarks.errors import BenchmarkError
from execugraph.benchmarks.evalplus import (
    PENDING_KIND,
    is_pending,
    load_humaneval_plus,
    load_mbpp_plus,
    set_tests,
    with_expected,
)
from execugraph.benchmarks.plus_expected import cache_dir, to_source
from execugraph.grading.rules import GradingSettings, build_suite, grading_tests


def test_both_benchmarks_are_registered_under_their_spellings() -> None:
    assert {"humaneval-plus", "mbpp-plus"} <= set(BENCHMARKS)
    assert canonical_name("MBPP+") == canonical_name("mbppplus") == "mbpp-plus"
    assert canonical_name("HumanEvalPlus") == "humaneval-plus"
    he, mbpp = load_benchmark("humaneval-plus"), load_benchmark("mbpp+")
    assert len(he) == 164 and len(mbpp) == 378
    assert he[0].id == "humaneval_0" and mbpp[0].id == "mbpp_2" and mbpp[-1].id == "mbpp_809"
    assert he[0].preamble == he[0].statement and "def has_close_elements" in he[0].preamble
    assert mbpp[0].preamble == "" and mbpp[0].entry_point == "similar_elements"


def test_loading_computes_nothing_and_the_placeholder_cannot_grade() -> None:
    (problem,) = load_mbpp_plus(ids=["mbpp_2"])
    assert is_pending(problem)
    (original,) = set_tests(problem, "original")
    assert original["kind"] == "assert" and "similar_elements = candidate" in original["source"]
    graded, _ = grading_tests(problem, GradingSettings())
    assert [t["kind"] for t in graded] == [PENDING_KIND]  # the original tests never grade here
    from sandbox import SuiteError, parse_suite

    with pytest.raises(SuiteError, match="kind"):  # the sandbox refuses it instead of grading against nothing
        parse_suite(build_suite(problem, graded, "standalone"))


def test_a_changed_copy_of_a_release_file_is_refused(tmp_path: Path) -> None:
    name = data.MBPP_PLUS
    shutil.copy(data.DATA_DIR / name, tmp_path / name)
    assert data.release_path(name, tmp_path) == tmp_path / name
    with gzip.open(data.DATA_DIR / name, "rt", encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    lines[0] = lines[0].replace("similar_elements", "similar_element", 1)
    with gzip.open(tmp_path / name, "wt", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    with pytest.raises(BenchmarkError, match=r"MbppPlus\.jsonl\.gz: sha256 .* is not the recorded"):
        data.release_path(name, tmp_path)


def test_mbpp_inputs_become_the_python_values_evalplus_passes() -> None:
    recs = {r["task_id"]: r for r in data.records(data.MBPP_PLUS)}
    base, _ = data.task_inputs(data.MBPP_PLUS, recs["Mbpp/2"])
    assert base[0] == [(3, 4, 5, 6), (5, 7, 4, 10)]
    base, _ = data.task_inputs(data.MBPP_PLUS, recs["Mbpp/124"])
    assert all(isinstance(inp, tuple) and isinstance(inp[1], complex) for inp in base)
    base, _ = data.task_inputs(data.MBPP_PLUS, recs["Mbpp/580"])
    assert isinstance(base[0], tuple) and isinstance(base[0][0], tuple)


@pytest.mark.parametrize("value", [
    float("inf"), float("-inf"), 2 ** 40000, -(2 ** 40000), (1,), (), set(), {1, 2}, frozenset({3}),
    complex(1.5, -2), {"a": (1, [2.5, None]), 3: b"x"}, [True, 0.1, "s'\"\n"],
], ids=lambda v: type(v).__name__)
def test_test_data_is_written_as_python_that_rebuilds_it_exactly(value) -> None:
    back = eval(to_source(value))  # noqa: S307 - our own literal text
    assert back == value and type(back) is type(value)
    assert math.isnan(eval(to_source(float("nan"))))  # noqa: S307


# -- through the sandbox ----------------------------------------------------------------

OFF_BY_ONE = """from typing import List
def has_close_elements(numbers: List[float], threshold: float) -> bool:
    for i in range(len(numbers)):
        for j in range(i + 1, len(numbers)):
            if abs(numbers[i] - numbers[j]) <= threshold:
                return True
    return False
"""
MEAN_AD_OTHER_ORDER = """from typing import List
def mean_absolute_deviation(numbers: List[float]) -> float:
    total = 0.0
    for x in reversed(numbers):
        total += abs(x - sum(numbers) / len(numbers))
    return total / len(numbers)
"""
SIMILAR_REVERSED = "def similar_elements(a, b):\n    return tuple(sorted(set(a) & set(b), reverse=True))\n"
SIMILAR_AS_LIST = "def similar_elements(a, b):\n    return sorted(set(a) & set(b))\n"
# a tuple where EvalPlus's canonical output is a list fails, as `==` says; our plain `call` compare would pass it
RETURNS_TUPLE = "def Split(lst):\n    return tuple(x for x in lst if x % 2 == 0)\n"


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=2) as shared:
        yield shared


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EXECUGRAPH_CACHE_DIR", str(folder))
        yield folder


@pytest.fixture(scope="module")
def ready(cache, pool):
    he = with_expected(load_humaneval_plus(ids=["humaneval_0", "humaneval_4", "humaneval_32"]), pool)
    mbpp = with_expected(load_mbpp_plus(ids=["mbpp_2", "mbpp_629"]), pool)
    return {p.id: p for p in [*he, *mbpp]}


def _verdict(pool, problem, code, tests, protocol="standalone"):
    from sandbox import Limits

    return pool.run_suite(code, build_suite(problem, tests, protocol), Limits(timeout_s=20))


@pytest.mark.integration
def test_expected_outputs_are_cached_by_digest_for_the_problems_asked_only(ready, cache: Path) -> None:
    files = sorted((cache / "evalplus").glob("*.json"))
    assert len(files) == 5 and cache_dir() == cache / "evalplus"
    stored = json.loads(files[0].read_text())
    assert set(stored) == {"base", "plus"}
    assert not any(is_pending(p) for p in ready.values())
    again = with_expected(load_mbpp_plus(ids=["mbpp_2"]))  # read back, no pool needed
    assert again[0].tests == ready["mbpp_2"].tests


@pytest.mark.integration
@pytest.mark.parametrize("pid", ["humaneval_0", "humaneval_4", "humaneval_32", "mbpp_2", "mbpp_629"])
def test_the_reference_passes_both_sets_under_both_protocols(ready, pool, pid: str) -> None:
    problem = ready[pid]
    for protocol in ("standalone", "with-prompt"):
        for name in ("original", "plus"):
            result = _verdict(pool, problem, problem.reference, set_tests(problem, name), protocol)
            assert result.verdict == "passed", (pid, protocol, name, [t.got for t in result.tests if not t.passed])
    plus, _ = grading_tests(problem, GradingSettings())
    assert plus == [t for t in problem.tests if t.get("set") == "plus"] and len(plus) >= 2


@pytest.mark.integration
def test_a_program_right_on_the_original_tests_fails_an_extra_input(ready, pool) -> None:
    problem = ready["humaneval_0"]
    assert _verdict(pool, problem, OFF_BY_ONE, set_tests(problem, "original")).verdict == "passed"
    result = _verdict(pool, problem, OFF_BY_ONE, set_tests(problem, "plus"))
    assert result.verdict == "wrong_answer"
    failed = next(t for t in result.tests if not t.passed)
    assert "extra input" in failed.got and "returned True, expected False" in failed.got


@pytest.mark.integration
def test_evalplus_comparison_rules(ready, pool) -> None:
    plus = {pid: set_tests(p, "plus") for pid, p in ready.items()}
    assert _verdict(pool, ready["humaneval_4"], MEAN_AD_OTHER_ORDER, plus["humaneval_4"]).passed  # atol 1e-6
    assert _verdict(pool, ready["mbpp_2"], SIMILAR_REVERSED, plus["mbpp_2"]).passed  # set-equal oracle
    assert _verdict(pool, ready["mbpp_2"], SIMILAR_AS_LIST, plus["mbpp_2"]).passed  # set(out) == set(exp)
    assert _verdict(pool, ready["mbpp_629"], RETURNS_TUPLE, plus["mbpp_629"]).verdict == "wrong_answer"


@pytest.mark.integration
def test_a_long_output_is_kept_as_its_digest_and_still_tells_programs_apart(pool) -> None:
    from execugraph.benchmarks import plus_expected
    from execugraph.benchmarks.evalplus import MBPP_PLUS, plus_tests
    from execugraph.domain.problem import Problem

    folds: dict = {}
    exec(plus_expected.FOLD_SOURCE, folds)  # noqa: S102 - the same folding the driver runs on the reference
    outputs = {"base": [folds["_eg_fold"]("ab" * 20_000)], "plus": [folds["_eg_fold"](list(range(9000)))]}
    assert outputs["base"][0][0] == plus_expected.DIGEST_TAG and outputs["plus"][0][1] == "list"
    tests = plus_tests(MBPP_PLUS, "f", 0.0, {"base": [[20_000]], "plus": [[9000]]}, outputs)
    problem = Problem(id="long", statement="s", entry_point="f", tests=tests)
    right = "def f(n):\n    return 'ab' * n if n == 20000 else list(range(n))\n"
    assert _verdict(pool, problem, right, tests).passed
    wrong = "def f(n):\n    return 'ab' * (n - 1) + 'ba' if n == 20000 else tuple(range(n))\n"
    result = _verdict(pool, problem, wrong, tests)
    assert [t.verdict for t in result.tests] == ["wrong_answer", "wrong_answer"]


@pytest.mark.integration
def test_synthesizes_picker_offers_both_with_their_plus_tests_ready(ready) -> None:
    from ui.views import problem_pick

    assert {"humaneval-plus", "mbpp-plus"} <= set(problem_pick.pickable())
    problem = problem_pick.picked_problem("mbpp-plus", "mbpp_2")  # read from the cache the fixture filled
    assert not is_pending(problem) and problem.tests == ready["mbpp_2"].tests
    assert problem_pick.form_fields(problem).assert_source.startswith("def check(candidate):\n    similar_elements")
