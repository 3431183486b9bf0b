"""record_step's Core INSERTs (store/step_rows) store exactly the rows its ORM path stored, on SQLite and PostgreSQL."""

from __future__ import annotations

import copy
import json
from datetime import timedelta

import pytest
from sqlalchemy import text

from execugraph.configuration.conditions import resolve_condition
from execugraph.domain.problem import Problem
from execugraph.store import Store, SupersededError, leases, utcnow
from execugraph.workflow.single import run_single
from execugraph.workflow.trial import TrialDeps
from standins.scripted import fenced, scripted

CLOCKS = {"started_at", "ended_at", "created_at", "latency_s", "duration_s", "cpu_s"}  # differ between two real trials
IDS = {"id", "trial_id", "step_id"}
START = utcnow().replace(microsecond=123456)
QUIRKY_CALLS = [
    {"role": "generator", "provider": "openai", "model": "openai:m", "messages": [{"role": "user", "content": "hi"}],
     "response": "nul \x00 and a lone \ud800 surrogate", "tokens_in": 3, "tokens_out": 4, "latency_s": 0.25,
     "seed": None, "temperature": 0.0, "cache_hit": True, "prompt_hash": "abc", "created_at": START},
    {"role": "reviewer", "messages": [], "created_at": START + timedelta(seconds=1)},  # the rest from defaults
]
QUIRKY_RUNS = [
    {"purpose": "feedback", "code": "print(1)", "verdict": "pass", "tests_passed": 1, "tests_total": 2,
     "results": [{"call": "f()", "passed": True, "expected": {"__float__": "inf"}}], "stdout": "1\n",
     "stderr": "", "policy_version": "v1", "isolation": {"net": False, "nested": [1, None]}, "duration_s": 0.1,
     "created_at": START},
    {"created_at": START},  # every other column from the model's defaults
]
QUIRKY_HITS = [{"technique_id": "two-pointers", "technique_name": "Two pointers", "score": 0.5, "rank": 1,
                "query": "find a pair"}, {"technique_id": "dp"}]


def claimed(store: Store, count: int) -> list:
    run_id = store.create_run("batch", "step-rows", {})
    for index in range(count):
        store.create_trial(run_id, f"p{index}", "multi-full", 0, 0, status="queued")
    return [leases.claim_trial(store, run_id) for _ in range(count)]


def as_orm(store: Store) -> Store:
    """This store (or view) writing steps as record_step did before Core INSERTs."""
    view = copy.copy(store)
    view._step_writes = "orm"
    return view


def without(value: object, skip: set[str]) -> object:
    """`value` with the keys in `skip` dropped at every depth (JSON text parsed first)."""
    if skip and isinstance(value, str) and value[:1] in "[{":
        try:
            value = json.loads(value)
        except ValueError:
            return value
    if isinstance(value, dict):
        return {k: without(v, skip) for k, v in value.items() if k not in skip}
    if isinstance(value, list):
        return [without(v, skip) for v in value]
    return value


def stored(store: Store, trial_id: int, skip: set[str] = frozenset()) -> dict[str, list[dict]]:
    """The trial's step rows and child rows as the database driver returns them (no ORM), minus ids and `skip`
    (also inside JSON columns: the sandbox's per-test clocks)."""
    out: dict[str, list[dict]] = {}
    with store.engine.connect() as conn:
        for table in ("step", "llm_call", "execution", "retrieval_hit"):
            rows = conn.execute(text(f"SELECT * FROM {table} WHERE trial_id = :t ORDER BY id"), {"t": trial_id})
            out[table] = [{k: without(v, skip) for k, v in row._mapping.items() if k not in IDS | skip}
                          for row in rows]
        # each child hangs on the step of its own trial, in the order the steps were written
        links = conn.execute(text("SELECT s.seq FROM llm_call c JOIN step s ON s.id = c.step_id "
                                  "WHERE c.trial_id = :t AND s.trial_id = :t ORDER BY c.id"), {"t": trial_id})
        out["llm_call_seq"] = [{"seq": row[0]} for row in links]
    return out


def write_quirky(store: Store, trial_id: int) -> list[int]:
    ids = [store.record_step(trial_id, "generator", 0, started_at=START, ended_at=START + timedelta(seconds=2),
                             output={"code": "x", "nested": {"inf": {"__float__": "inf"}}}, llm_calls=QUIRKY_CALLS,
                             executions=QUIRKY_RUNS, hits=QUIRKY_HITS)]
    ids.append(store.record_step(trial_id, "evaluator", 1, started_at=START, output=None))  # no children, no end
    return ids


def test_core_inserts_store_the_rows_the_orm_path_stored(db_url) -> None:
    with Store.open(db_url) as store:
        core, orm = claimed(store, 2)
        core_ids = write_quirky(store.fenced(core.id, core.started_at), core.id)
        orm_ids = write_quirky(as_orm(store.fenced(orm.id, orm.started_at)), orm.id)
        unfenced = claimed(store, 2)  # the plain store locks the trial row itself
        write_quirky(store, unfenced[0].id)
        write_quirky(as_orm(store), unfenced[1].id)
        new, old = stored(store, core.id), stored(store, orm.id)
        assert new["step"] and len(new["llm_call"]) == 2 and len(new["execution"]) == 2
        assert len(new["retrieval_hit"]) == 2 and new["llm_call_seq"] == [{"seq": 1}, {"seq": 1}]
        assert new == old
        assert stored(store, unfenced[0].id) == stored(store, unfenced[1].id) == new
        assert len(set(core_ids)) == 2 and len(set(orm_ids)) == 2
        call = store.llm_calls_for_step(core_ids[0])[0]
        assert "\x00" not in call.response and call.created_at == START  # cleaned, and its own clock kept
        assert store.executions_for_step(core_ids[0])[1].results == []  # a default from the model's factory
        assert [s.output for s in store.steps_for_trial(core.id)] == [
            {"code": "x", "nested": {"inf": {"__float__": "inf"}}}, None]


def test_a_row_missing_a_required_column_is_refused_by_name_before_anything_is_written(db_url) -> None:
    with Store.open(db_url) as store:
        (trial,) = claimed(store, 1)
        view = store.fenced(trial.id, trial.started_at)
        with pytest.raises(ValueError, match=r"RetrievalHit #1 of step 'planner': technique_id is required"):
            view.record_step(trial.id, "planner", started_at=utcnow(), hits=[{"technique_id": "a"}, {"rank": 2}])
        assert store.steps_for_trial(trial.id) == [] and store.hits_for_trial(trial.id) == []
        with pytest.raises(LookupError, match="trial 999 does not exist"):
            store.record_step(999, "planner", started_at=utcnow())


GOOD = "def add(a, b):\n    return a + b\n"
WRONG = "def add(a, b):\n    return a - b\n"
REVIEW = '{"invariants": ["returns a sum"], "potential_failures": [], "severity": "low"}'


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=1) as shared:
        yield shared


def test_a_scripted_trial_stores_the_same_rows_through_either_path(sqlite_store, pool) -> None:
    problem = Problem(id="add", benchmark="adhoc", category="math", statement="Return the sum of a and b.",
                      entry_point="add", tests=[{"kind": "call", "name": "add(1, 2)", "expr": "add(1, 2)",
                                                 "expected": 3, "visible": True}])
    trials = []
    for store in (sqlite_store, as_orm(sqlite_store)):
        models = scripted(planner=["add them"], generator=[fenced(WRONG), fenced(GOOD)], reviewer=[REVIEW],
                          optimizer=[fenced(GOOD)], explainer=["adds"])
        _, result = run_single(store, problem, resolve_condition("multi-full"), TrialDeps(pool=pool, chat_models=models))
        assert result.status == "done", result.message
        trials.append(result.trial_id)
    new, old = (stored(sqlite_store, t, skip=CLOCKS) for t in trials)
    assert len(new["step"]) >= 5 and len(new["llm_call"]) >= 5 and len(new["execution"]) >= 2
    assert new == old


def test_an_attempts_trial_updates_ride_the_step_commit_and_stay_fenced(tmp_path) -> None:
    with Store.open(str(tmp_path / "runs.db")) as store:
        (trial,) = claimed(store, 1)
        view, groups = store.fenced(trial.id, trial.started_at), store._step_groups
        assert groups is not None
        view.update_trial(trial.id, tokens_in=7)
        view.finish_trial(trial.id, passed=True)
        assert (groups.transactions, groups.steps) == (2, 0)  # committed through the group, not counted as steps
        done = store.get_trial(trial.id)
        assert (done.status, done.passed, done.tokens_in) == ("done", True, 7) and done.finished_at is not None
        with pytest.raises(SupersededError):  # the attempt no longer owns its finished trial
            view.update_trial(trial.id, passed=False)
        assert store.get_trial(trial.id).passed is True
        store.update_trial(trial.id, passed=False)  # the plain store still writes in a transaction of its own
        assert store.get_trial(trial.id).passed is False and groups.transactions == 2
