"""The paired order's pure parts (`execugraph.batch.order`): the seeded problem order and the pairing check."""

from __future__ import annotations

from types import SimpleNamespace

from execugraph.batch.order import pairing, shuffled


def test_the_order_is_a_seeded_permutation() -> None:
    problems = [f"p{i}" for i in range(30)]
    order = shuffled(problems, 5)
    assert order == shuffled(problems, 5) != problems  # the seed decides everything
    assert sorted(order) == sorted(problems)
    assert shuffled(problems, 6) != order


def test_pairing_counts_complete_and_partial_problems() -> None:
    def trial(problem: str, status: str) -> SimpleNamespace:
        return SimpleNamespace(problem_id=problem, status=status)

    trials = [trial("a", "done"), trial("a", "error"), trial("b", "done"), trial("b", "cancelled"),
              trial("c", "queued"), trial("c", "cancelled")]
    assert pairing(trials, arms=2) == (1, 1)
