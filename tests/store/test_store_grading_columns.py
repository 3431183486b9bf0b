"""The grading columns on SQLite and PostgreSQL: a problem's preamble and own timeout, a trial's protocol and digest."""

from __future__ import annotations

import pytest

from execugraph.domain.problem import Problem

pytestmark = pytest.mark.integration


def test_a_problems_preamble_and_timeout_round_trip(store) -> None:
    problem = Problem(id="p", benchmark="published:x@1", statement="s", entry_point="f",
                      tests=[{"kind": "call", "expr": "f()", "expected": float("inf")}],
                      preamble="from typing import List\n\ndef f() -> float:\n    \"\"\"stub\"\"\"\n", timeout_s=2.5)
    store.upsert_problem(problem)
    assert store.get_problem("published:x@1", "p") == problem


def test_a_trials_protocol_is_checked_and_kept_with_its_digest(store) -> None:
    run_id = store.create_run("single", "r", {})
    trial_id = store.create_trial(run_id, "p", "single-oneshot", 0, 0)
    store.finish_trial(trial_id, passed=True, grading_protocol="with-prompt", suite_digest="ab" * 32)
    trial = store.get_trial(trial_id)
    assert (trial.grading_protocol, trial.suite_digest) == ("with-prompt", "ab" * 32)
    with pytest.raises(ValueError, match="Trial.grading_protocol must be one of standalone, with-prompt"):
        store.update_trial(trial_id, grading_protocol="prompt")
