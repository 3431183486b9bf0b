"""Bad input to the Store gets an error naming what was wrong, and changes nothing stored."""

from __future__ import annotations

from datetime import datetime

import pytest

from execugraph.store import DuplicateTrialError, Store
from tests.support.trace_rows import add_retrieval_hits, add_step, finish_step


@pytest.fixture
def run_id(sqlite_store: Store) -> int:
    return sqlite_store.create_run("batch", "validation", {"k": 1})


def test_unknown_field_is_named(sqlite_store: Store, run_id: int) -> None:
    with pytest.raises(ValueError, match="Run has no settable field 'colour'"):
        sqlite_store.update_run(run_id, colour="red")
    trial = sqlite_store.create_trial(run_id, "p", "c", 0, 0)
    with pytest.raises(ValueError, match="Trial has no settable field 'id'"):
        sqlite_store.update_trial(trial, id=7)
    with pytest.raises(ValueError, match="LLMCall has no settable field 'prompt'"):
        sqlite_store.add_llm_call(trial, prompt="hi")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda s, r: s.create_run("weekly", "t", {}),
            "Run.kind must be one of single, batch, import, rescore; got 'weekly'",
        ),
        (lambda s, r: s.update_run(r, status="paused"), "Run.status must be one of .*got 'paused'"),
        (lambda s, r: s.update_run(r, status=None), "Run.status must be one of .*got None"),
        (lambda s, r: s.create_trial(r, "p", "c", 0, 0, status="won"), "Trial.status must be one of"),
        (lambda s, r: s.create_trial(r, "p", "c", 0, 0, feedback_source="oracle"), "Trial.feedback_source must be"),
        (lambda s, r: s.create_run("single", "t", ["not", "a", "dict"]), "Run.config must be a dict; got list"),
        (lambda s, r: s.set_tags(r, "solo"), "tags must be a list of strings"),
        (lambda s, r: s.update_run(r, started_at=datetime(2024, 1, 1)), "Run.started_at must be a timezone-aware"),
    ],
)
def test_bad_values_are_rejected_with_the_field_named(sqlite_store: Store, run_id: int, call, message: str) -> None:
    before = sqlite_store.get_run(run_id)
    with pytest.raises(ValueError, match=message):
        call(sqlite_store, run_id)
    assert sqlite_store.get_run(run_id) == before
    assert len(sqlite_store.list_runs()) == 1


def test_missing_ids_raise_lookup_error(sqlite_store: Store, run_id: int) -> None:
    with pytest.raises(LookupError, match="Run 999 does not exist"):
        sqlite_store.update_run(999, title="x")
    with pytest.raises(LookupError, match="run 999 does not exist"):
        sqlite_store.create_trial(999, "p", "c", 0, 0)
    with pytest.raises(LookupError, match="run 999 does not exist"):
        sqlite_store.ensure_trials(999, [{"problem_id": "p", "condition": "c", "seed": 0, "trial_index": 0}])
    with pytest.raises(LookupError, match="parent run 999 does not exist"):
        sqlite_store.create_run("rescore", "r", {}, parent_run_id=999)
    with pytest.raises(LookupError, match="trial 999 does not exist"):
        add_step(sqlite_store, 999, "planner")
    with pytest.raises(LookupError, match="trial 999 does not exist"):
        sqlite_store.add_llm_call(999, role="planner")
    with pytest.raises(LookupError, match="trial 999 does not exist"):
        add_retrieval_hits(sqlite_store, 999, [{"technique_id": "t"}])
    trial = sqlite_store.create_trial(run_id, "p", "c", 0, 0)
    with pytest.raises(LookupError, match="step 999 does not exist"):
        sqlite_store.add_execution(trial, 999, code="x")
    with pytest.raises(LookupError, match="Step 999 does not exist"):
        finish_step(sqlite_store, 999)
    assert sqlite_store.llm_calls_for_trial(trial) == []
    assert sqlite_store.executions_for_trial(trial) == []
    assert sqlite_store.delete_run(999) is False


def test_duplicate_trial_names_the_existing_one(sqlite_store: Store, run_id: int) -> None:
    first = sqlite_store.create_trial(run_id, "p1", "multi-full", 3, 0)
    with pytest.raises(DuplicateTrialError, match=f"trial {first} already exists .*'p1'.*'multi-full'.*seed 3"):
        sqlite_store.create_trial(run_id, "p1", "multi-full", 3, 0)
    assert len(sqlite_store.trials_for_run(run_id)) == 1


def test_ensure_trials_names_the_bad_key(sqlite_store: Store, run_id: int) -> None:
    good = {"problem_id": "p", "condition": "c", "seed": 0, "trial_index": 0}
    with pytest.raises(ValueError, match=r"trial key #1 .*missing seed"):
        sqlite_store.ensure_trials(run_id, [good, {"problem_id": "q", "condition": "c", "trial_index": 0}])
    with pytest.raises(ValueError, match=r"trial key #0 .*unexpected colour"):
        sqlite_store.ensure_trials(run_id, [{**good, "colour": "red"}])
    with pytest.raises(ValueError, match=r"trial key #0: seed must be int; got '0'"):
        sqlite_store.ensure_trials(run_id, [{**good, "seed": "0"}])
    with pytest.raises(ValueError, match=r"trial key #0: problem_id must be str; got 17"):
        sqlite_store.ensure_trials(run_id, [{**good, "problem_id": 17}])
    with pytest.raises(ValueError, match=r"trial key #0: test_source must be one of problem, generated, smoke"):
        sqlite_store.ensure_trials(run_id, [{**good, "test_source": "oracle"}])
    assert sqlite_store.trials_for_run(run_id) == [], "a rejected batch inserts nothing"


def test_llm_messages_must_be_role_content_dicts(sqlite_store: Store, run_id: int) -> None:
    trial = sqlite_store.create_trial(run_id, "p", "c", 0, 0)
    with pytest.raises(ValueError, match="LLMCall.messages must be a list of"):
        sqlite_store.add_llm_call(trial, messages=["hello"])
    with pytest.raises(ValueError, match="Execution.results must be a list"):
        sqlite_store.add_execution(trial, results={"a": 1})
    with pytest.raises(ValueError, match="retrieval hit #1 has no technique_id"):
        add_retrieval_hits(sqlite_store, trial, [{"technique_id": "a"}, {"score": 1.0}])
    assert sqlite_store.hits_for_trial(trial) == []
