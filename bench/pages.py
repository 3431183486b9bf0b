"""Dashboard speed on a large store: every page's render time with 50,000 trials (with steps) in the database.

Usage: python bench/pages.py [--trials 50000] [--keep DB_PATH]

Seeds a fresh SQLite store in bulk (one big batch of five conditions plus hundreds of
single runs, four steps per trial, retrieval hits for the multi-rag arm, full traces for
a few trials), then renders every page with streamlit's AppTest, pointed at the big
batch wherever a page shows one run: first with empty caches (after one warm-up run of
the app, so Python imports are not counted; `st.cache_data` is cleared before each page), then again
with warm caches. Target from
issue 8: every page under 2 s. Side by side, it times the two aggregations that matter
most done in SQL (what the pages call) and done by loading every trial row into pandas,
and prints the ratio.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TARGET_S = 2.0
CONDITIONS = ("single-oneshot", "single-retry", "multi-full", "multi-no-planner", "multi-rag")
PASS_CHANCE = {
    "single-oneshot": 0.35,
    "single-retry": 0.5,
    "multi-full": 0.62,
    "multi-no-planner": 0.58,
    "multi-rag": 0.66,
}
ERRORS = ("wrong_answer", "runtime_error", "timeout", "syntax_error")
TECHNIQUES = [f"tech-{i:02d}" for i in range(40)]
SINGLES = 500
MUST_DRAW = {
    "synthesize": "text_area",
    "batch": "progress",
    "runs": "dataframe",
    "trace": "plotly_chart",
    "retrieval": "plotly_chart",
    "ablations": "plotly_chart",
    "statistics": "plotly_chart",
    "export": "download_button",
}


def seed(db: Path, trials: int) -> dict[str, int]:
    """Bulk-insert the store: returns the ids the timed pages are pointed at."""
    from sqlalchemy import insert

    from execugraph.batch_spec import BatchSpec
    from execugraph.store import LLMCall, RetrievalHit, Run, Step, Store, Trial, utcnow
    from execugraph.store.models import Execution, ProblemRecord

    rng = random.Random(8)
    store = Store.open(str(db))
    batch_trials = trials - SINGLES
    problems = 100
    seeds = max(1, batch_trials // (problems * len(CONDITIONS)))
    spec = BatchSpec(conditions=list(CONDITIONS), seeds=list(range(seeds)), title="bench: 5 conditions")
    config = {"batch": spec.model_dump(), "conditions": {c: spec.run_config(c).model_dump() for c in CONDITIONS}}
    now = utcnow()
    batch_id = store.create_run(
        "batch",
        spec.title,
        config,
        benchmark="internal30",
        status="done",
        models={"generator": "llamacpp:default"},
        tags=["bench"],
    )
    store.update_run(batch_id, started_at=now - timedelta(hours=6), finished_at=now)
    categories = ("dp", "graph", "ds")
    with store.engine.begin() as conn:
        conn.execute(
            insert(ProblemRecord.__table__),
            [
                {
                    "benchmark": "internal30",
                    "problem_id": f"p{p:03d}",
                    "category": categories[p % 3],
                    "statement": f"problem {p}",
                    "entry_point": "solve",
                    "aliases": [],
                    "signature": "",
                    "tests": [],
                    "source": "",
                    "difficulty": "",
                    "rationale": "",
                }
                for p in range(problems)
            ],
        )
        single_ids = [
            conn.execute(
                insert(Run.__table__).values(
                    kind="single",
                    title=f"p{i % problems:03d} (multi-full)",
                    status="done",
                    config={},
                    benchmark="internal30",
                    host="bench",
                    versions={},
                    models={"generator": "llamacpp:default"},
                    tags=[],
                    created_at=now,
                    progress_total=1,
                    progress_done=1,
                    progress_passed=1,
                    cancel_requested=False,
                )
            ).inserted_primary_key[0]
            for i in range(SINGLES)
        ]
    rows, keys = [], []
    for condition in CONDITIONS:
        for s in range(seeds):
            for p in range(problems):
                rows.append((batch_id, f"p{p:03d}", categories[p % 3], condition, s))
    for i, run_id in enumerate(single_ids):
        rows.append((run_id, f"p{i % problems:03d}", categories[i % problems % 3], "multi-full", 0))
    start = now - timedelta(hours=5)
    for run_id, pid, category, condition, s in rows:
        ok = rng.random() < PASS_CHANCE[condition]
        retries = 0 if condition == "single-oneshot" else rng.choice((0, 0, 1, 2, 3))
        keys.append(
            {
                "run_id": run_id,
                "problem_id": pid,
                "benchmark": "internal30",
                "category": category,
                "condition": condition,
                "seed": s,
                "trial_index": 0,
                "status": "done",
                "passed": ok,
                "tests_passed": 5 if ok else rng.randint(0, 4),
                "tests_total": 5,
                "retries_used": retries,
                "error_class": None if ok else rng.choice(ERRORS),
                "test_source": "problem",
                "feedback_source": "grading",
                "final_code": "def solve():\n    return 1\n",
                "explanation": None,
                "message": None,
                "wallclock_s": rng.uniform(2, 40),
                "tokens_in": rng.randint(200, 4000),
                "tokens_out": rng.randint(100, 1500),
                "llm_calls": 1 + retries,
                "started_at": start,
                "finished_at": start + timedelta(seconds=30),
            }
        )
    with store.engine.begin() as conn:
        for i in range(0, len(keys), 5000):
            conn.execute(insert(Trial.__table__), keys[i : i + 5000])
    trial_ids = [t.id for t in store.trials_for_run(batch_id)]
    traced = trial_ids[:: max(1, len(trial_ids) // 20)]
    nodes = ("generator", "evaluator", "grade", "explainer")
    with store.engine.begin() as conn:
        steps = []
        for trial_id in range(1, len(keys) + 1):
            for seq, node in enumerate(nodes, start=1):
                begin = start + timedelta(seconds=2 * seq)
                steps.append(
                    {
                        "trial_id": trial_id,
                        "seq": seq,
                        "node": node,
                        "attempt": 0,
                        "started_at": begin,
                        "ended_at": begin + timedelta(seconds=1.5),
                        "output": {"code": "def solve():\n    return 1\n"}
                        if node == "generator"
                        else {"verdict": "passed", "passed": True, "tests_passed": 5, "tests_total": 5},
                    }
                )
            if len(steps) >= 20000:
                conn.execute(insert(Step.__table__), steps)
                steps = []
        if steps:
            conn.execute(insert(Step.__table__), steps)
        rag = [k for k, row in zip(range(1, len(keys) + 1), keys, strict=True) if row["condition"] == "multi-rag"]
        hits = [
            {
                "trial_id": t,
                "technique_id": tech,
                "technique_name": tech,
                "score": rng.uniform(0.2, 0.8),
                "rank": rank,
                "query": "q",
            }
            for t in rag
            for rank, tech in enumerate(rng.sample(TECHNIQUES, 3), 1)
        ]
        for i in range(0, len(hits), 20000):
            conn.execute(insert(RetrievalHit.__table__), hits[i : i + 20000])
    for trial_id in traced:  # full traces for a few trials: LLM calls and executions on each step
        for step in store.steps_for_trial(trial_id):
            with store.engine.begin() as conn:
                conn.execute(
                    insert(LLMCall.__table__).values(
                        trial_id=trial_id,
                        step_id=step.id,
                        role=step.node,
                        provider="llamacpp",
                        model="default",
                        messages=[{"role": "user", "content": "x" * 2000}],
                        response="y" * 800,
                        tokens_in=500,
                        tokens_out=200,
                        latency_s=1.2,
                        cache_hit=False,
                        prompt_hash="h",
                        created_at=now,
                    )
                )
                conn.execute(
                    insert(Execution.__table__).values(
                        trial_id=trial_id,
                        step_id=step.id,
                        purpose="grading",
                        code="def solve(): pass",
                        verdict="passed",
                        tests_passed=5,
                        tests_total=5,
                        stdout="",
                        stderr="",
                        policy_version="bench",
                        isolation={},
                        duration_s=0.1,
                        created_at=now,
                        results=[{"name": f"t{i}", "passed": True, "expected": i, "got": i} for i in range(5)],
                    )
                )
    store.close()
    return {
        "batch": batch_id,
        "trial": traced[1],
        "trials": len(keys),
        "steps": len(keys) * len(nodes),
        "hits": len(hits),
    }


def render_times(ids: dict[str, int]) -> list[tuple[str, float, float]]:
    """(page, cold seconds, warm seconds) for every page, AppTest-rendered in this process."""
    from streamlit.testing.v1 import AppTest

    import ui.resources
    from ui.keys import Abl, Export, Runs, Stats, Trace

    ui.resources.start_worker = lambda url: False  # no background worker for a benchmark
    batch = ids["batch"]
    state = {
        "runs": {Runs.DETAIL: batch},
        "trace": {Trace.RUN: batch, Trace.TRIAL: ids["trial"]},
        "ablations": {Abl.RUNS: [batch]},
        "statistics": {Stats.RUNS: [batch]},
        "export": {Export.RUNS: [batch]},
    }
    AppTest.from_file(str(ROOT / "app.py"), default_timeout=600).run()  # the sidebar's health checks, cached 30 s
    import streamlit as st

    import execugraph.publication  # noqa: F401 - import what the pages import, so imports are not timed
    import execugraph.runner  # noqa: F401
    import execugraph.stats  # noqa: F401
    import ui.batch_parts  # noqa: F401
    import ui.export_parts  # noqa: F401
    import ui.retrieval_parts  # noqa: F401
    import ui.trace_parts  # noqa: F401

    results = []
    for page in ("synthesize", "batch", "runs", "trace", "retrieval", "ablations", "statistics", "export"):
        st.cache_data.clear()  # cold: no page reuses a report or a listing another page computed
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
        for key, value in state.get(page, {}).items():
            at.session_state[key] = value
        at.run()
        times = []
        for _ in range(2):
            started = time.perf_counter()
            at.switch_page(f"pages/{page}.py").run()
            times.append(time.perf_counter() - started)
            if at.exception:
                raise SystemExit(f"{page} raised: {at.exception[0].value}")
            if len(at.get(MUST_DRAW[page])) == 0:  # a timing of an empty state would prove nothing
                raise SystemExit(f"{page} drew no {MUST_DRAW[page]} on the big store")
        results.append((page, times[0], times[1]))
    return results


def side_by_side(db: Path, batch: int) -> list[tuple[str, float, float]]:
    """(what, SQL seconds, load-everything-into-pandas seconds) for the run summary and the statistics report."""
    import pandas as pd

    from execugraph.stats import build_report, build_report_from_records
    from execugraph.store import Store

    store = Store.open(str(db))
    out = []
    started = time.perf_counter()
    store.run_summary(batch)
    sql = time.perf_counter() - started
    started = time.perf_counter()
    frame = pd.read_sql(f"SELECT * FROM trial WHERE run_id = {batch}", store.engine)
    finished = frame[frame.status.isin(["done", "error"])]
    finished.groupby(["condition", "category"]).agg(passed=("passed", "sum"), trials=("id", "count"))
    out.append(("run summary (pass rate by condition x category)", sql, time.perf_counter() - started))
    started = time.perf_counter()
    build_report(store, [str(batch)])
    sql = time.perf_counter() - started
    started = time.perf_counter()
    records = pd.read_sql(f"SELECT * FROM trial WHERE run_id = {batch}", store.engine)
    records["run_id"] = records["run_id"].astype(str)
    build_report_from_records(records.to_dict("records"), [str(batch)])
    out.append(("statistics report (pairs, CIs, pass@k)", sql, time.perf_counter() - started))
    store.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=50_000)
    parser.add_argument("--keep", type=Path, help="write the seeded database here instead of a temporary folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.keep or Path(tmp) / "bench.db"
        import os

        os.environ["EXECUGRAPH_DB"] = str(db)  # the app reads its database from the environment
        os.environ["OLLAMA_HOST"] = "http://127.0.0.1:9"
        started = time.perf_counter()
        ids = seed(db, args.trials)
        print(
            f"seeded {ids['trials']:,} trials, {ids['steps']:,} steps, {ids['hits']:,} retrieval hits "
            f"in {time.perf_counter() - started:.1f} s"
        )
        rows = render_times(ids)
        print(f"\n{'page':<12} {'cold s':>7} {'warm s':>7} {'cold / target':>14}")
        for page, cold, warm in rows:
            print(f"{page:<12} {cold:>7.2f} {warm:>7.2f} {cold / TARGET_S:>13.2f}x")
        print(f"target: every page under {TARGET_S:.0f} s (cold / target < 1)")
        print(f"\n{'aggregation':<50} {'SQL s':>7} {'pandas s':>9} {'pandas / SQL':>13}")
        for what, sql, naive in side_by_side(db, ids["batch"]):
            print(f"{what:<50} {sql:>7.3f} {naive:>9.3f} {naive / sql:>12.1f}x")
        slow = [page for page, cold, _ in rows if cold >= TARGET_S]
        if slow:
            print(f"\nover target: {', '.join(slow)}")
            return 1
        print("\nall pages under target")
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
