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
and prints the ratio. Then, with Debian chromium (Playwright), it serves the app as
`make run` does and times every page in a real browser from navigation until its content
is drawn and the script run is over, first visit and again (target: under 1.5 s each).
With --trace-load: only Trace's first load of a 15-step trial, quiet and beside --busy CPU loops (bench/trace_load.py).
With --first-page: the first page after a start, its seconds and imported modules (bench/first_page.py). Both take
--before DIR: another checkout (e.g. `git archive HEAD | tar -x -C DIR`) measured the same way in the same run.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

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

    from execugraph.batch.spec import BatchSpec
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
    from ui.keys import Ablations, Export, Runs, Statistics, Trace

    ui.resources.start_worker = lambda url: False  # no background worker for a benchmark
    batch = ids["batch"]
    state = {
        "runs": {Runs.DETAIL: batch},
        "trace": {Trace.RUN: batch, Trace.TRIAL: ids["trial"]},
        "ablations": {Ablations.RUNS: [batch]},
        "statistics": {Statistics.RUNS: [batch]},
        "export": {Export.RUNS: [batch]},
    }
    AppTest.from_file(str(ROOT / "app.py"), default_timeout=600).run()  # the sidebar's health checks, cached 30 s
    import streamlit as st

    import execugraph.batch.runner  # noqa: F401
    import execugraph.publication  # noqa: F401 - import what the pages import, so imports are not timed
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


BROWSER_TARGET_S = 1.5
CHROMIUM = Path("/usr/bin/chromium")
# url path (with the big batch / a traced trial filled in) -> what must be on screen when the page is drawn
BROWSER_PAGES = {
    "synthesize": ("", "textarea"),
    "batch": ("batch", '[data-testid="stProgress"]'),
    "runs": ("runs", '[data-testid="stDataFrame"]'),
    "trace": ("trace?trial={trial}", ".js-plotly-plot"),
    "retrieval": ("retrieval", '[data-testid="stDataFrame"]'),
    "ablations": ("ablations?runs={batch}", ".js-plotly-plot"),
    "statistics": ("statistics?runs={batch}", ".js-plotly-plot"),
    "export": ("export?runs={batch}", '[data-testid="stDownloadButton"]'),
}
# In-app navigation (sidebar link, same session): page title and what must be drawn. Pickers fall back to the
# newest batch (the big one) and Trace to the newest finished run; Export waits for its run picker.
NAV_PAGES = {
    "synthesize": ("Synthesize", "textarea"),
    "batch": ("Batch", '[data-testid="stProgress"]'),
    "runs": ("Runs", '[data-testid="stDataFrame"]'),
    "trace": ("Trace", ".js-plotly-plot"),
    "retrieval": ("Retrieval", '[data-testid="stDataFrame"]'),
    "ablations": ("Ablations", ".js-plotly-plot"),
    "statistics": ("Statistics", ".js-plotly-plot"),
    "export": ("Export / Import", '[data-testid="stMultiSelect"]'),
}
# Drawn: the page's content is on screen and the script run is over (no skeleton, no "Running" status,
# nothing left over from the previous page).
DRAWN_JS = """selector => !!document.querySelector(selector)
    && !document.querySelector('[data-testid="stSkeleton"]')
    && !document.querySelector('[data-stale="true"]')
    && ![...document.querySelectorAll('[data-testid="stStatusWidget"]')].some(e => e.innerText.includes('Running'))"""
TITLED_JS = """([title, selector]) => {
    const h1 = document.querySelector('h1');
    return !!h1 && h1.innerText.trim() === title && (""" + DRAWN_JS + """)(selector);
}"""


def _serve(db: Path, cache: Path, root: Path = ROOT) -> tuple[subprocess.Popen, str]:
    """`streamlit run app.py` as `make run` starts it (from `root`: another checkout, for a before/after), on a free
    loopback port; returns (process, url)."""
    import socket
    import urllib.request

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ, EXECUGRAPH_DB=str(db), EXECUGRAPH_CACHE_DIR=str(cache), OLLAMA_HOST="http://127.0.0.1:9",
               PYTHONPATH=str(root))
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port",
               str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
               "--server.fileWatcherType", "none"]
    process = subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.read() == b"ok":
                    return process, url
        except OSError:
            time.sleep(0.3)
    process.kill()
    raise SystemExit("streamlit did not start within 180 s")


def _stop(process: subprocess.Popen, cache: Path) -> None:
    """Stop the server we started and the background worker it started for the benchmark's database."""
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(30)
    for lock in (cache / "workers").glob("*.lock"):
        text = lock.read_text().strip()
        if text.isdigit():
            try:
                if b"execugraph" in Path(f"/proc/{text}/cmdline").read_bytes():
                    os.kill(int(text), signal.SIGTERM)
            except OSError:
                pass


def _sidebar_round(page: Any) -> dict[str, float]:
    """One visit to every page through its sidebar link: page -> seconds until drawn."""
    times = {}
    for name, (title, selector) in NAV_PAGES.items():
        started = time.perf_counter()
        page.get_by_role("link", name=title, exact=True).click()
        page.wait_for_function(TITLED_JS, arg=[title, selector], timeout=300_000, polling=50)
        times[name] = time.perf_counter() - started
        _no_exception(page, name)
    return times


def browser_times(db: Path, ids: dict[str, int]) -> list[tuple[str, float, float, float, float]]:
    """(page, after start, new tab, again, URL opened): seconds from navigation until the page is drawn, in chromium.

    After start: the first sidebar visit of each page on a freshly started server (its imports and caches cold).
    New tab: a second tab on the now warm server visits each page through the sidebar (what moving around
    the app costs); again: the same tab once more. URL opened: the page's URL loaded in a tab (a new session
    and the whole frontend, as when following a link).
    """
    from playwright.sync_api import sync_playwright

    cache = db.parent / "browser-cache"
    process, url = _serve(db, cache)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox", "--disable-gpu"]
            )
            first = browser.new_page(viewport={"width": 1400, "height": 1000})
            first.goto(url, timeout=300_000)
            first.wait_for_function(DRAWN_JS, arg="textarea", timeout=300_000, polling=50)
            after_start = _sidebar_round(first)
            tab = browser.new_page(viewport={"width": 1400, "height": 1000})
            tab.goto(url, timeout=300_000)
            tab.wait_for_function(DRAWN_JS, arg="textarea", timeout=300_000, polling=50)
            new_tab, again = _sidebar_round(tab), _sidebar_round(tab)
            opened = {}
            for name, (path, selector) in BROWSER_PAGES.items():
                started = time.perf_counter()
                tab.goto(f"{url}/{path.format(**ids)}", timeout=300_000)
                tab.wait_for_function(DRAWN_JS, arg=selector, timeout=300_000, polling=50)
                opened[name] = time.perf_counter() - started
                _no_exception(tab, name)
            browser.close()
    finally:
        _stop(process, cache)
    return [(n, after_start[n], new_tab[n], again[n], opened[n]) for n in NAV_PAGES]


def _no_exception(page: Any, name: str) -> None:
    if page.locator('[data-testid="stException"]').count():
        raise SystemExit(f"{name} raised in the browser: {page.locator('[data-testid=stException]').first.inner_text()}")


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
    parser.add_argument("--trace-load", action="store_true", help="only Trace's first load, quiet and beside busy "
                        "loops (bench/trace_load.py)")
    parser.add_argument("--busy", type=int, default=4, help="with --trace-load: CPU-bound loops beside the dashboard")
    parser.add_argument("--apptest", action="store_true", help="with --trace-load: the page script alone (AppTest)")
    parser.add_argument("--first-page", action="store_true", help="only the first page after a start: seconds and "
                        "modules imported (bench/first_page.py)")
    parser.add_argument("--before", type=Path, help="with --trace-load or --first-page: another checkout measured "
                        "the same way in the same run (e.g. git archive HEAD | tar -x -C DIR)")
    args = parser.parse_args()
    if args.trace_load:
        from bench.trace_load import run as trace_load
        from bench.trace_load import run_apptest

        return run_apptest(args.before) if args.apptest else trace_load(args.busy, args.before)
    if args.first_page:
        from bench.first_page import run as first_page

        return first_page(args.before, 3)
    with tempfile.TemporaryDirectory() as tmp:
        db = args.keep or Path(tmp) / "bench.db"
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
        if CHROMIUM.exists():
            shown = browser_times(db, ids)
            load = os.getloadavg()[0]
            print(f"\n{'chromium':<12} {'after start':>11} {'new tab':>8} {'again':>6} {'URL opened':>10} {'new tab / target':>17}")
            for page, cold, new, again, opened in shown:
                print(f"{page:<12} {cold:>11.2f} {new:>8.2f} {again:>6.2f} {opened:>10.2f} {new / BROWSER_TARGET_S:>16.2f}x")
            print("(a tab loads the chart frontend with its first page: app.py draws a blank chart once per session)")
            print(
                f"target: sidebar navigation to drawn content under {BROWSER_TARGET_S} s per page on a running server "
                f"(new tab / target < 1); load average {load:.1f} on {os.cpu_count()} cores"
            )
            slow += [f"{page} (browser)" for page, _, new, _, _ in shown if new >= BROWSER_TARGET_S]
        else:
            print(f"\n{CHROMIUM} not found: browser times skipped (apt-get install chromium)")
        if slow:
            print(f"\nover target: {', '.join(slow)}")
            return 1
        print("\nall pages under target")
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
