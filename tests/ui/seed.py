"""A small, complete run history written through the Store API, for dashboard tests and screenshots.

- a finished batch on four internal-30 problems x four conditions x two seeds,
  every trial with steps, LLM calls, sandbox executions (per-test results) and,
  under multi-rag, retrieval hits;
- a single (Synthesize) run;
- a batch still running (leased by a worker id no real worker has, with a
  heartbeat in the future, so a live worker never steals it) with queued trials;
- a cancelled batch.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import update

from execugraph.batch.control import enqueue_batch
from execugraph.batch.spec import BatchSpec
from execugraph.benchmarks import load_benchmark
from execugraph.store import Step, Store, utcnow
from tests.support.trace_rows import add_retrieval_hits, add_step, finish_step

PROBLEMS = ("fib", "climb_stairs", "bfs", "dfs")
CONDITIONS = ("single-oneshot", "single-retry", "multi-full", "multi-rag")
PASS_CHANCE = {"single-oneshot": 0.35, "single-retry": 0.55, "multi-full": 0.7, "multi-rag": 0.75}
FAILURES = ("wrong_answer", "runtime_error", "timeout")
NODE_SECONDS = {
    "planner": 2.1,
    "generator": 3.4,
    "reviewer": 1.6,
    "evaluator": 0.4,
    "optimizer": 2.8,
    "grade": 0.3,
    "explainer": 1.9,
}


@dataclass
class Seeded:
    """Ids of what was seeded, for tests to look up."""

    batch: int
    single: int
    running: int
    cancelled: int
    passed_trial: int
    failed_trial: int


def _code(problem: Any, attempt: int, ok: bool) -> str:
    name = problem.entry_point or "solve"
    body = (
        "    return n if n < 2 else 0"
        if not ok
        else "    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a"
    )
    return f"def {name}(n):\n    # attempt {attempt}\n{body}\n"


def _results(problem: Any, ok: bool, error: str) -> list[dict[str, Any]]:
    out = []
    for i, test in enumerate(problem.tests[:4]):
        passed = ok or i == 0
        out.append(
            {
                "name": test.get("name") or f"test {i}",
                "passed": passed,
                "call": test.get("expr", "?"),
                "expected": test.get("expected"),
                "got": test.get("expected") if passed else None,
                "error_class": None if passed else error,
                "duration_s": 0.002 * (i + 1),
            }
        )
    return out


def _step(
    store: Store, trial_id: int, node: str, attempt: int, output: dict[str, Any], problem: Any, ok: bool, error: str
) -> None:
    step_id = add_step(store, trial_id, node, attempt=attempt)
    if node in ("planner", "generator", "reviewer", "optimizer", "explainer"):
        store.add_llm_call(
            trial_id,
            step_id,
            role=node,
            provider="llamacpp",
            model="default",
            messages=[
                {"role": "system", "content": f"You are the {node}."},
                {"role": "user", "content": problem.statement},
            ],
            response=str(output.get("code") or output.get("plan") or output.get("explanation") or output),
            tokens_in=180 + 20 * attempt,
            tokens_out=90,
            latency_s=NODE_SECONDS[node],
            cache_hit=attempt > 0,
            seed=0,
            temperature=0.0,
        )
    if node in ("evaluator", "grade"):
        results = _results(problem, ok, error)
        store.add_execution(
            trial_id,
            step_id,
            purpose="feedback" if node == "evaluator" else "grading",
            code=output.get("code", ""),
            verdict="passed" if ok else error,
            tests_passed=sum(r["passed"] for r in results),
            tests_total=len(results),
            results=results,
            stderr="" if ok else "Traceback (most recent call last):\n  ...\nAssertionError",
            policy_version="seed",
            duration_s=0.05,
        )
    finish_step(store, step_id, output={k: v for k, v in output.items() if k != "code" or node != "evaluator"})


def _trial(store: Store, trial: Any, problem: Any, rng: random.Random, *, force: bool | None = None) -> bool:
    """Fill one queued trial with a plausible trace and finish it; returns whether it passed."""
    condition = trial.condition
    ok = rng.random() < PASS_CHANCE[condition] if force is None else force
    error = rng.choice(FAILURES)
    store.update_trial(trial.id, status="running", started_at=utcnow())
    multi = condition.startswith("multi")
    retries = 0 if condition in ("single-oneshot",) else (1 if (ok and rng.random() < 0.5) or not ok else 0)
    if multi:
        plan = "1. Handle the base cases.\n2. Iterate bottom-up.\n3. Return the last value."
        hits = []
        if condition == "multi-rag":
            hits = [
                {
                    "technique_id": tid,
                    "technique_name": name,
                    "score": round(score - 0.05 * rank, 3),
                    "rank": rank,
                    "query": problem.statement,
                }
                for rank, (tid, name, score) in enumerate(
                    (
                        ("dp-1d", "1-D dynamic programming", 0.71),
                        ("bfs", "Breadth-first search", 0.52),
                        ("memo", "Memoisation", 0.49),
                    ),
                    start=1,
                )
            ]
            add_retrieval_hits(store, trial.id, hits)
        _step(store, trial.id, "planner", 0, {"plan": plan, "hits": hits}, problem, ok, error)
    for attempt in range(retries + 1):
        final = attempt == retries
        passing = ok and final
        code = _code(problem, attempt, passing)
        _step(
            store,
            trial.id,
            "generator",
            attempt,
            {"code": code, "parsed_ok": True, "reason": "initial" if attempt == 0 else "retry"},
            problem,
            passing,
            error,
        )
        if multi:
            _step(
                store,
                trial.id,
                "reviewer",
                attempt,
                {"review": {"severity": "low", "invariants": ["n >= 0"], "potential_failures": []}},
                problem,
                passing,
                error,
            )
        decision = "retry" if not final else ("optimize" if passing and multi else "grade")
        _step(
            store,
            trial.id,
            "evaluator",
            attempt,
            {
                "verdict": "passed" if passing else error,
                "passed": passing,
                "decision": decision,
                "tests_passed": 4 if passing else 1,
                "tests_total": 4,
                "test_source": "problem",
                "feedback": "" if passing else f"Verdict: {error}",
            },
            problem,
            passing,
            error,
        )
    if multi and ok:
        _step(
            store,
            trial.id,
            "optimizer",
            retries,
            {
                "accepted": False,
                "reason": "regression rejected",
                "candidate": code.replace("a, b = b, a + b", "a, b = b, a * b"),
            },
            problem,
            ok,
            error,
        )
    _step(
        store,
        trial.id,
        "grade",
        retries,
        {
            "passed": ok,
            "verdict": "passed" if ok else error,
            "tests_passed": 4 if ok else 1,
            "tests_total": 4,
            "test_source": "problem",
        },
        problem,
        ok,
        error,
    )
    if multi:
        _step(
            store,
            trial.id,
            "explainer",
            retries,
            {"explanation": "Iterates bottom-up keeping the last two values."},
            problem,
            ok,
            error,
        )
    calls = (2 + 3 * (retries + 1) + int(ok)) if multi else retries + 1
    store.finish_trial(
        trial.id,
        passed=ok,
        tests_passed=4 if ok else 1,
        tests_total=4,
        retries_used=retries,
        error_class=None if ok else error,
        test_source="problem",
        final_code=code,
        explanation="Iterates bottom-up." if multi else None,
        wallclock_s=4.0 + 6.0 * retries + rng.random(),
        tokens_in=200 * calls,
        tokens_out=90 * calls,
        llm_calls=calls,
    )
    return ok


def _spread_step_times(store: Store) -> None:
    """Give steps realistic start/end times (the Store stamps them 'now'), so timelines look like real ones."""
    with store.engine.begin() as conn:
        rows = conn.execute(Step.__table__.select().order_by(Step.__table__.c.trial_id, Step.__table__.c.seq)).all()
        clock: dict[int, Any] = {}
        for row in rows:
            start = clock.get(row.trial_id, row.started_at)
            end = start + timedelta(seconds=NODE_SECONDS.get(row.node, 1.0))
            clock[row.trial_id] = end + timedelta(milliseconds=40)
            conn.execute(
                update(Step.__table__).where(Step.__table__.c.id == row.id).values(started_at=start, ended_at=end)
            )


def seed_store(store: Store, *, seed: int = 7) -> Seeded:
    """Write the history described in the module docstring and return its ids."""
    rng = random.Random(seed)
    problems = {p.id: p for p in load_benchmark("internal30") if p.id in PROBLEMS}
    chosen = [problems[pid] for pid in PROBLEMS]
    spec = BatchSpec(
        benchmark="internal30",
        problem_ids=list(PROBLEMS),
        conditions=list(CONDITIONS),
        seeds=[0, 1],
        title="internal30 ablation (seeded)",
        order="condition-major",  # the order this history was first written in: its outcomes stay the same
    )
    batch = enqueue_batch(store, spec, chosen)
    store.update_run(batch, status="running", started_at=utcnow())
    passed_trial = failed_trial = None
    for trial in store.trials_for_run(batch):
        force = True if passed_trial is None and trial.condition == "multi-full" else None
        if failed_trial is None and trial.condition == "single-oneshot":
            force = False
        ok = _trial(store, trial, problems[trial.problem_id], rng, force=force)
        if ok and passed_trial is None and trial.condition == "multi-full":
            passed_trial = trial.id
        if not ok and failed_trial is None and trial.condition == "single-oneshot":
            failed_trial = trial.id
    done = store.run_progress(batch)
    store.update_run(
        batch,
        status="done",
        finished_at=utcnow(),
        progress_done=done["finished"],
        progress_passed=done["passed"],
        tags=["paper", "seeded"],
    )

    single = store.create_run(
        "single",
        "fib (multi-full)",
        {"conditions": {"multi-full": spec.run_config("multi-full").model_dump()}},
        benchmark="internal30",
        models={"generator": "llamacpp:default"},
        status="running",
    )
    trial_id = store.create_trial(single, "fib", "multi-full", 0, 0, category="dp", benchmark="internal30")
    _trial(store, store.get_trial(trial_id), problems["fib"], rng, force=True)
    store.update_run(single, status="done", progress_total=1, progress_done=1, progress_passed=1, finished_at=utcnow())

    live_spec = BatchSpec(
        benchmark="internal30",
        problem_ids=list(PROBLEMS),
        conditions=["single-oneshot", "multi-full"],
        seeds=[0],
        title="internal30 live batch (seeded)",
        order="condition-major",
    )
    running = enqueue_batch(store, live_spec, chosen)
    store.update_run(
        running,
        status="running",
        worker_id="seed-worker",
        started_at=utcnow() - timedelta(minutes=5),
        heartbeat_at=utcnow() + timedelta(days=365),
    )
    for trial in store.trials_for_run(running)[:3]:
        _trial(store, trial, problems[trial.problem_id], rng)

    cancelled = enqueue_batch(
        store,
        BatchSpec(
            benchmark="internal30",
            problem_ids=["bfs"],
            conditions=["single-retry"],
            seeds=[0],
            title="cancelled batch (seeded)",
            order="condition-major",
        ),
        [problems["bfs"]],
    )
    from execugraph.batch.control import request_cancel

    request_cancel(store, cancelled)
    _spread_step_times(store)
    assert passed_trial is not None and failed_trial is not None
    return Seeded(batch, single, running, cancelled, passed_trial, failed_trial)
