"""A benchmark's `prepare` runs on the chosen problems only, whichever door chose them, and leaves others as
they are (HumanEval+/MBPP+ compute expected outputs there)."""

from __future__ import annotations

from execugraph.benchmarks import load_benchmark, ready_to_grade
from execugraph.benchmarks.evalplus import is_pending, load_humaneval_plus
from execugraph.plugins import build_registry, hookimpl, use_registry


class _Marked:
    """A plugin benchmark whose prepare marks each problem it was given."""

    seen: list[list[str]] = []

    @staticmethod
    def prepare(problems):  # noqa: ANN001, ANN205
        _Marked.seen.append([p.id for p in problems])
        return [p.model_copy(update={"statement": p.statement + " [prepared]"}) for p in problems]

    @hookimpl
    def register_benchmarks(self, register):  # noqa: ANN001, ANN201 - pluggy's hook signature
        def loader(**_: object):  # noqa: ANN202
            return [p.model_copy(update={"benchmark": "marked"}) for p in load_benchmark("internal30")[:3]]

        register("marked", loader, prepare=_Marked.prepare)


def test_prepare_sees_only_its_benchmarks_problems_and_order_is_kept() -> None:
    _Marked.seen.clear()
    old = use_registry(build_registry(_Marked()))
    try:
        marked = load_benchmark("marked")
        other = load_benchmark("internal30")[5:7]
        mixed = [other[0], marked[0], other[1], marked[2]]
        ready = ready_to_grade(mixed)
    finally:
        use_registry(old)
    assert _Marked.seen == [[marked[0].id, marked[2].id]]
    assert [p.id for p in ready] == [p.id for p in mixed]
    assert ready[1].statement.endswith("[prepared]") and ready[3].statement.endswith("[prepared]")
    assert ready[0] == other[0] and ready[2] == other[1]


def test_humaneval_plus_problems_are_pending_until_prepared() -> None:
    chosen = load_humaneval_plus(ids=["humaneval_0"])
    assert is_pending(chosen[0])
    ready = ready_to_grade(chosen)
    assert not is_pending(ready[0])
    assert any(t.get("set") == "plus" for t in ready[0].tests)
