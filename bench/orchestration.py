"""Per-trial overhead of the graph plus persistence, with a zero-latency scripted model.

For `single-oneshot` and `multi-full` it times whole trials (real graph, real SQLite
store, real sandbox, trivial suite) beside the bare sandbox work the same trial does,
and prints the difference: what orchestration and persistence cost (target < 50 ms).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from execugraph.configuration.conditions import resolve_condition  # noqa: E402
from execugraph.domain.problem import Problem  # noqa: E402
from execugraph.grading.rules import build_suite  # noqa: E402
from execugraph.store import Store  # noqa: E402
from execugraph.workflow.trial import TrialDeps, run_trial  # noqa: E402
from standins.scripted import fenced, scripted  # noqa: E402

CODE = "def add(a, b):\n    return a + b\n"
OPTIMISED = "def add(a, b):\n    result = a + b\n    return result\n"
REVIEW = json.dumps({"invariants": [], "potential_failures": [], "severity": "low"})
PROBLEM = Problem(id="add", statement="Add two numbers.", entry_point="add",
                  tests=[{"kind": "call", "expr": "add(1, 2)", "expected": 3}])
REPEATS = 30


def models():
    return scripted(planner=["plan"], generator=[fenced(CODE)], reviewer=[REVIEW], optimizer=[fenced(OPTIMISED)],
                    explainer=["adds"])


def time_trials(store: Store, pool, condition: str) -> tuple[float, int]:
    """Median wall time of whole trials inside one run, as a batch worker runs them."""
    config = resolve_condition(condition)
    run_id = store.create_run("batch", f"bench {condition}", {})
    store.upsert_problem(PROBLEM)
    samples, executions = [], 0
    for index in range(REPEATS):
        started = time.perf_counter()
        result = run_trial(PROBLEM, config, store, run_id=run_id, trial_index=index,
                           deps=TrialDeps(pool=pool, chat_models=models()))
        samples.append(time.perf_counter() - started)
        assert result.passed, result
        executions = len(store.executions_for_trial(result.trial_id))
    return statistics.median(samples), executions


def time_sandbox(pool, runs: int) -> float:
    from sandbox import Limits

    samples = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        for _ in range(runs):
            pool.run_suite(CODE, build_suite(PROBLEM, PROBLEM.tests, "standalone"), Limits())
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> None:
    from sandbox import SandboxPool

    with tempfile.TemporaryDirectory() as tmp, SandboxPool(workers=1) as pool:
        store = Store.open(f"sqlite:///{tmp}/bench.db")
        time_trials(store, pool, "single-oneshot")  # warm-up: imports, prompt templates, pool
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (numbers scale with it)")
        print(f"{'condition':<16} {'trial ms':>9} {'sandbox ms':>10} {'overhead ms':>11} {'runs':>5}")
        for condition in ("single-oneshot", "multi-full"):
            total, runs = time_trials(store, pool, condition)
            bare = time_sandbox(pool, runs)
            print(f"{condition:<16} {total * 1000:>9.1f} {bare * 1000:>10.1f} {(total - bare) * 1000:>11.1f} {runs:>5}")
        print("overhead = median whole trial - median of the same number of bare sandbox runs; target < 50 ms")


if __name__ == "__main__":
    main()
