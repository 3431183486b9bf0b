"""Calibration finds a problem's reference program through its benchmark's registered entry, never by its name."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from execugraph.benchmarks import load_humaneval
from execugraph.benchmarks.humaneval import canonical_solution
from execugraph.domain.problem import Problem
from execugraph.grading.calibration import reference_program
from execugraph.plugins import build_registry, hookimpl, registry, use_registry

TOY_REFERENCE = "def double(x):\n    return 2 * x\n"


class _ToyBenchmark:
    """An outside benchmark that keeps its reference programs apart from its problems, as HumanEval does."""

    @hookimpl
    def register_benchmarks(self, register: Any) -> None:
        def reference(problem_id: str) -> str:
            if problem_id != "toy/0":
                raise KeyError(problem_id)
            return TOY_REFERENCE

        register("toy-refs", lambda **_: [], reference=reference)


@pytest.fixture
def toy_registry() -> Iterator[None]:
    old = use_registry(build_registry(_ToyBenchmark()))
    try:
        yield
    finally:
        use_registry(old)


def _problem(benchmark: str, problem_id: str, reference: str = "") -> Problem:
    return Problem(id=problem_id, benchmark=benchmark, statement="double x", reference=reference)


def test_humaneval_without_its_own_reference_gets_the_canonical_solution() -> None:
    first = load_humaneval()[0].model_copy(update={"reference": ""})
    assert registry().benchmarks["humaneval"].reference is canonical_solution
    assert reference_program(first) == canonical_solution(first.id)
    assert reference_program(first).strip()


def test_a_problems_own_reference_comes_first() -> None:
    mine = "def f():\n    return 1\n"
    assert reference_program(_problem("humaneval", "HumanEval/0", mine)) == mine


def test_a_benchmark_without_a_reference_hook_gives_none() -> None:
    assert registry().benchmarks["internal30"].reference is None
    assert reference_program(_problem("internal30", "p01")) is None
    assert reference_program(_problem("adhoc", "x")) is None
    assert reference_program(_problem("no-such-benchmark", "x")) is None


def test_an_outside_benchmark_registers_its_references(toy_registry: None) -> None:
    assert reference_program(_problem("toy-refs", "toy/0")) == TOY_REFERENCE
    assert reference_program(_problem("toy-refs", "toy/9")) is None  # a lookup that fails means no reference


def test_an_unknown_humaneval_id_gives_none() -> None:
    assert reference_program(_problem("humaneval", "HumanEval/999")) is None
