"""The store's write/read round trips, on SQLite and PostgreSQL (the `store` fixture runs both)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from execugraph.domain.problem import Problem
from execugraph.store import Execution, LLMCall, RetrievalHit, Step, Store, Trial, utcnow
from tests.support.trace_rows import add_retrieval_hits, add_step, finish_step

pytestmark = pytest.mark.integration


def _trial_key(problem: str, condition: str = "multi-full", seed: int = 0, index: int = 0) -> dict:
    return {"problem_id": problem, "condition": condition, "seed": seed, "trial_index": index}


def test_create_and_read_back_a_run(store: Store) -> None:
    run_id = store.create_run(
        "batch",
        "internal30 sweep",
        {"conditions": ["single-oneshot", "multi-full"], "seeds": [0, 1]},
        benchmark="internal30",
        models={"planner": "ollama:qwen2.5-coder:7b", "digests": {"qwen2.5-coder:7b": "sha256:ab"}},
        tags=["nightly", "nightly", " paper "],
    )
    run = store.get_run(run_id)
    assert run is not None
    assert (run.kind, run.title, run.status, run.benchmark) == ("batch", "internal30 sweep", "queued", "internal30")
    assert run.config == {"conditions": ["single-oneshot", "multi-full"], "seeds": [0, 1]}
    assert run.models["digests"] == {"qwen2.5-coder:7b": "sha256:ab"}
    assert run.tags == ["nightly", "paper"]
    assert run.versions["python"].count(".") == 2 and "sqlmodel" in run.versions
    assert run.host
    assert run.created_at.tzinfo is not None and abs(run.created_at - utcnow()) < timedelta(minutes=1)
    assert run.cancel_requested is False and run.worker_id is None
    assert store.get_run(run_id + 1000) is None

    started = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
    store.update_run(run_id, status="running", started_at=started, worker_id="w1", progress_total=4)
    store.rename_run(run_id, "renamed")
    store.set_tags(run_id, ["b", "a"])
    run = store.get_run(run_id)
    assert (run.status, run.started_at, run.worker_id, run.progress_total) == ("running", started, "w1", 4)
    assert (run.title, run.tags) == ("renamed", ["b", "a"])


def test_list_runs_filters(store: Store) -> None:
    a = store.create_run("batch", "Alpha sweep", {}, benchmark="internal30", models={"generator": "ollama:Qwen2.5"})
    b = store.create_run(
        "single", "beta 100%_done", {}, benchmark="humaneval", models={"generator": "llamacpp:default"}
    )
    c = store.create_run("rescore", "gamma", {}, benchmark="internal30", parent_run_id=a, status="done", tags=["paper"])
    store.set_tags(a, ["paper", "nightly"])
    store.set_tags(b, ["paperwork"])

    def ids(**filters) -> list[int]:
        return [r.id for r in store.list_runs(**filters)]

    assert ids() == [c, b, a], "newest first"
    assert ids(kind="single") == [b]
    assert ids(status="done") == [c]
    assert ids(benchmark="internal30") == [c, a]
    assert ids(model="qwen") == [a], "model matches a substring, any case"
    assert ids(text="ALPHA") == [a]
    assert ids(text="100%_") == [b], "LIKE wildcards are literal"
    assert ids(text="%") == [b]
    assert ids(text="humaneval") == [b], "text also searches the benchmark"
    assert ids(tag="paper") == [c, a], "tags match exactly, not as substrings"
    assert ids(tag="nightly") == [a]
    assert ids(tag="missing") == []
    assert ids(limit=2) == [c, b] and ids(limit=2, offset=2) == [a]
    assert ids(since=utcnow() - timedelta(minutes=5)) == [c, b, a]
    assert ids(until=utcnow() - timedelta(minutes=5)) == []
    naive_future = datetime.now(UTC).replace(tzinfo=None) + timedelta(minutes=5)
    assert ids(until=naive_future) == [c, b, a], "naive bounds are taken as UTC"


def test_trial_with_steps_llm_calls_executions_and_hits_round_trips(store: Store) -> None:
    run_id = store.create_run("single", "one trial", {"condition": "multi-full"})
    trial_id = store.create_trial(
        run_id, "two_sum", "multi-full", 7, 0, category="arrays", benchmark="internal30", feedback_source="visible"
    )
    assert store.get_trial(trial_id).status == "running" and store.get_trial(trial_id).started_at is not None

    plan = add_step(store, trial_id, "planner", output={"plan": "use a dict"})
    gen = add_step(store, trial_id, "generator", attempt=0)
    evaluate = add_step(store, trial_id, "evaluator", attempt=0)
    finish_step(store, gen, output={"code": "def two_sum(a, t): ..."})
    messages = [{"role": "system", "content": "You plan."}, {"role": "user", "content": "two_sum"}]
    call_id = store.add_llm_call(
        trial_id,
        plan,
        role="planner",
        provider="llamacpp",
        model="smollm2-135m",
        messages=messages,
        response="1. hash map",
        tokens_in=31,
        tokens_out=5,
        latency_s=0.25,
        seed=7,
        temperature=0.0,
        prompt_hash="abc123",
    )
    store.add_llm_call(trial_id, gen, role="generator", messages=messages, response="def two_sum...", cache_hit=True)
    results = [
        {
            "name": "t1",
            "kind": "call",
            "passed": True,
            "error_class": None,
            "expected": [0, 1],
            "got": [0, 1],
            "stderr": "",
            "duration_s": 0.01,
        },
        {
            "name": "t2",
            "kind": "call",
            "passed": False,
            "error_class": "WrongAnswer",
            "expected": [1, 2],
            "got": None,
            "stderr": "",
            "duration_s": 0.02,
        },
    ]
    exec_id = store.add_execution(
        trial_id,
        evaluate,
        purpose="grading",
        code="def two_sum(a, t): ...",
        verdict="failed",
        tests_passed=1,
        tests_total=2,
        results=results,
        stdout="out",
        stderr="err",
        policy_version="sandbox-1",
        isolation={"seccomp": True, "netns": False},
        duration_s=0.5,
    )
    assert (
        add_retrieval_hits(store,
            trial_id,
            [
                {
                    "technique_id": "hash-map",
                    "technique_name": "Hash map lookup",
                    "score": 0.91,
                    "rank": 1,
                    "query": "pairs",
                },
                {
                    "technique_id": "two-pointer",
                    "technique_name": "Two pointers",
                    "score": 0.55,
                    "rank": 2,
                    "query": "pairs",
                },
            ],
        )
        == 2
    )
    store.update_trial(trial_id, retries_used=1, tokens_in=31, tokens_out=5, llm_calls=2, test_source="problem")
    store.finish_trial(
        trial_id,
        passed=False,
        tests_passed=1,
        tests_total=2,
        error_class="WrongAnswer",
        final_code="def f(): ...",
        explanation="off by one",
        wallclock_s=1.5,
    )

    steps = store.steps_for_trial(trial_id)
    assert [(s.seq, s.node) for s in steps] == [(1, "planner"), (2, "generator"), (3, "evaluator")]
    assert steps[0].output == {"plan": "use a dict"} and steps[0].ended_at is None
    assert steps[1].output == {"code": "def two_sum(a, t): ..."} and steps[1].ended_at >= steps[1].started_at

    calls = store.llm_calls_for_trial(trial_id)
    assert [c.role for c in calls] == ["planner", "generator"]
    first = calls[0]
    assert first.id == call_id and first.step_id == plan and first.messages == messages
    assert (first.provider, first.model, first.tokens_in, first.tokens_out, first.seed) == (
        "llamacpp",
        "smollm2-135m",
        31,
        5,
        7,
    )
    assert (first.latency_s, first.temperature, first.cache_hit, first.prompt_hash) == (0.25, 0.0, False, "abc123")
    assert calls[1].cache_hit is True
    assert [c.id for c in store.llm_calls_for_step(gen)] == [calls[1].id]

    (execution,) = store.executions_for_trial(trial_id)
    assert execution.id == exec_id and execution.step_id == evaluate
    assert execution.results == results and execution.isolation == {"seccomp": True, "netns": False}
    assert (execution.verdict, execution.tests_passed, execution.tests_total) == ("failed", 1, 2)
    assert [e.id for e in store.executions_for_step(evaluate)] == [exec_id]

    hits = store.hits_for_trial(trial_id)
    assert [(h.rank, h.technique_id, h.score) for h in hits] == [(1, "hash-map", 0.91), (2, "two-pointer", 0.55)]

    trial = store.get_trial(trial_id)
    assert (trial.status, trial.passed, trial.tests_passed, trial.tests_total) == ("done", False, 1, 2)
    assert (trial.retries_used, trial.llm_calls, trial.error_class, trial.feedback_source) == (
        1,
        2,
        "WrongAnswer",
        "visible",
    )
    assert trial.finished_at is not None and trial.final_code == "def f(): ..." and trial.explanation == "off by one"
    assert store.find_trial(run_id, "two_sum", "multi-full", 7, 0).id == trial_id
    assert store.find_trial(run_id, "two_sum", "multi-full", 8, 0) is None


def test_hostile_program_output_is_stored(store: Store) -> None:
    """NUL bytes, lone surrogates and NaN come out of real programs; storing them must not fail."""
    run_id = store.create_run("single", "hostile", {})
    trial_id = store.create_trial(run_id, "p", "c", 0, 0)
    exec_id = store.add_execution(
        trial_id,
        stdout="a\x00b",
        stderr="bad \udcff byte",
        results=[{"name": "t", "got": float("nan"), "expected": {1}, "stderr": "nul \x00 here"}],
    )
    assert exec_id > 0
    (execution,) = store.executions_for_trial(trial_id)
    assert execution.stdout == "a\ufffdb"
    assert execution.stderr == "bad \ufffd byte"
    assert execution.results == [{"name": "t", "got": "nan", "expected": [1], "stderr": "nul \x00 here"}]


def test_ensure_trials_is_idempotent(store: Store) -> None:
    run_id = store.create_run("batch", "resume", {})
    keys = [
        {**_trial_key(f"p{i}", condition, seed), "category": "strings", "benchmark": "internal30"}
        for i in range(5)
        for condition in ("single-oneshot", "multi-full")
        for seed in (0, 1)
    ]
    assert store.ensure_trials(run_id, keys) == 20
    assert store.ensure_trials(run_id, keys) == 0, "a resumed batch inserts nothing"
    assert store.ensure_trials(run_id, [*keys[:3], _trial_key("p9"), _trial_key("p9")]) == 1
    assert store.ensure_trials(run_id, [{**_trial_key("zürich ✓ 'q'"), "feedback_source": "visible"}]) == 1
    odd = store.find_trial(run_id, "zürich ✓ 'q'", "multi-full", 0, 0)
    assert (odd.status, odd.feedback_source, odd.tests_passed, odd.passed) == ("queued", "visible", 0, None)
    trials = store.trials_for_run(run_id)
    assert len(trials) == 22
    assert {t.status for t in trials} == {"queued"}
    assert trials[0].category == "strings" and trials[0].started_at is None
    assert len(store.trials_for_run(run_id, status="queued")) == 22
    assert store.trials_for_run(run_id, status="done") == []
    other_run = store.create_run("batch", "other", {})
    assert store.ensure_trials(other_run, keys[:2]) == 2, "the key is per run"


def _count(store: Store, model, **where) -> int:
    table = model.__table__
    stmt = select(func.count()).select_from(table)
    for name, values in where.items():
        stmt = stmt.where(table.c[name].in_(values))
    with store.engine.connect() as conn:
        return int(conn.execute(stmt).scalar_one())


def _populate(store: Store, run_id: int, trials: int) -> list[int]:
    ids = []
    for index in range(trials):
        trial = store.create_trial(run_id, f"p{index}", "multi-full", 0, 0)
        step = add_step(store, trial, "generator")
        store.add_llm_call(trial, step, role="generator", messages=[{"role": "user", "content": "x"}])
        store.add_llm_call(trial, None, role="explainer")
        store.add_execution(trial, step, code="pass")
        store.add_execution(trial, None, code="pass", purpose="smoke")
        add_retrieval_hits(store, trial, [{"technique_id": "t", "rank": 1}])
        ids.append(trial)
    return ids


def test_delete_run_removes_everything_under_it_and_nothing_else(store: Store) -> None:
    doomed = store.create_run("batch", "doomed", {})
    kept = store.create_run("batch", "kept", {})
    rescore = store.create_run("rescore", "rescore of doomed", {}, parent_run_id=doomed)
    doomed_trials = _populate(store, doomed, 3)
    kept_trials = _populate(store, kept, 2)

    assert store.delete_run(doomed) is True
    assert store.get_run(doomed) is None
    for model in (Step, LLMCall, Execution, RetrievalHit):
        assert _count(store, model, trial_id=doomed_trials) == 0, model.__name__
    assert _count(store, Trial, run_id=[doomed]) == 0
    assert _count(store, Trial, run_id=[kept]) == 2
    assert _count(store, Step, trial_id=kept_trials) == 2
    assert _count(store, LLMCall, trial_id=kept_trials) == 4
    assert _count(store, Execution, trial_id=kept_trials) == 4
    assert _count(store, RetrievalHit, trial_id=kept_trials) == 2
    assert store.get_run(rescore).parent_run_id is None, "a rescore survives its parent"
    assert store.delete_run(doomed) is False


def test_problem_round_trip_and_upsert(store: Store) -> None:
    problem = Problem(
        id="two_sum",
        benchmark="internal30",
        category="arrays",
        statement="Return indices of two numbers adding up to target.",
        entry_point="two_sum",
        aliases=["twoSum"],
        signature="def two_sum(nums: list[int], target: int) -> list[int]:",
        tests=[{"kind": "call", "args": [[2, 7], 9], "expected": [0, 1], "visible": True}],
        difficulty="easy",
        rationale="classic",
        source="ours",
    )
    store.upsert_problem(problem)
    assert store.get_problem("internal30", "two_sum") == problem
    changed = problem.model_copy(update={"statement": "Changed.", "tests": []})
    store.upsert_problem(changed)
    assert store.get_problem("internal30", "two_sum") == changed
    assert store.get_problem("humaneval", "two_sum") is None


def test_llm_cache_put_get_replace(store: Store) -> None:
    assert store.cache_get("k1") is None
    store.cache_put("k1", "ollama", "qwen", "first", 10, 2)
    entry = store.cache_get("k1")
    assert (entry.provider, entry.model, entry.response, entry.tokens_in, entry.tokens_out) == (
        "ollama",
        "qwen",
        "first",
        10,
        2,
    )
    store.cache_put("k1", "ollama", "qwen", "second", 11, 3)
    assert store.cache_get("k1").response == "second"


def test_problem_tests_keep_non_finite_expected_values(store):
    from execugraph.domain.problem import Problem

    tests = [{"kind": "call", "expr": "f()", "expected": [0, float("inf"), float("-inf")]},
             {"kind": "call", "expr": "g()", "expected": {"__note": "a dict stays a dict"}}]
    store.upsert_problem(Problem(id="p", benchmark="b", statement="s", entry_point="f", tests=tests))
    back = store.get_problem("b", "p").tests
    assert back[0]["expected"] == [0, float("inf"), float("-inf")]
    assert isinstance(back[0]["expected"][1], float) and back[1]["expected"] == {"__note": "a dict stays a dict"}
