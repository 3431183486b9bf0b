"""Trials per minute at concurrency 1, 2, 4, 8 against a loopback LLM stand-in with fixed latency.

Real graph, real sandbox, real SQLite store; only the model is a stand-in, so the
ratio to concurrency 1 shows whether orchestration ever becomes the bottleneck
(target: >= 0.8 x N up to N = 8).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from execugraph.batch.control import enqueue_batch  # noqa: E402
from execugraph.batch.runner import Worker  # noqa: E402
from execugraph.batch.spec import BatchSpec  # noqa: E402
from execugraph.grading.rules import build_suite  # noqa: E402
from execugraph.store import Store  # noqa: E402
from execugraph.workflow.trial import TrialDeps  # noqa: E402
from standins.ollama_server import OllamaStandIn  # noqa: E402
from standins.role_responder import role_responder  # noqa: E402
from standins.workload import GOOD, REPLIES, problems  # noqa: E402


def measure(concurrency: int, trials: int, latency_s: float, condition: str, pool) -> float:
    with tempfile.TemporaryDirectory() as tmp, OllamaStandIn(
        responder=role_responder(REPLIES), models=["m"], latency_s=latency_s
    ) as server:
        store = Store.open(f"sqlite:///{tmp}/bench.db")
        spec = BatchSpec(benchmark="bench", conditions=[condition], seeds=[0], default_model="ollama:m",
                         concurrency=concurrency, overrides={"cache": False})
        run_id = enqueue_batch(store, spec, problems(trials))
        worker = Worker(store, deps_factory=lambda: TrialDeps(pool=pool, ollama_host=server.url))
        started = time.perf_counter()
        worker.run_forever(exit_when_idle=True)
        elapsed = time.perf_counter() - started
        done = sum(1 for t in store.trials_for_run(run_id) if t.status == "done")
        store.close()
    if done != trials:
        raise SystemExit(f"only {done}/{trials} trials completed at concurrency {concurrency}")
    return trials / elapsed * 60


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--condition", default="multi-full")
    parser.add_argument("--per-level", type=int, default=4, help="trials per unit of concurrency")
    args = parser.parse_args()
    from sandbox import SandboxPool

    with SandboxPool() as pool:
        warm = problems(1)[0]
        pool.run_suite(GOOD.strip("`").removeprefix("python\n"), build_suite(warm, warm.tests, "standalone"))  # warm up
        print(f"condition {args.condition}, LLM latency {args.latency_ms:.0f} ms per call, real sandbox + SQLite")
        print(f"{'concurrency':>11} {'trials':>6} {'trials/min':>10} {'ratio':>6} {'ratio/N':>7}")
        base = None
        for n in (1, 2, 4, 8):
            trials = max(4, args.per_level * n)
            rate = measure(n, trials, args.latency_ms / 1000, args.condition, pool)
            base = base or rate
            print(f"{n:>11} {trials:>6} {rate:>10.1f} {rate / base:>6.2f} {rate / base / n:>7.2f}")


if __name__ == "__main__":
    main()
