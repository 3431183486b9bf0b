"""Trials per minute on Ray with 1, 2 and 4 worker actors against LLM endpoints with a fixed latency.

Real graph, real sandbox (one pool per worker process), real store; only the
models are loopback Ollama stand-ins that answer after a fixed delay. Every
worker runs `--slots` trials at once, so N workers have N x slots in flight,
spread over the endpoints. The ratio to 1 worker shows whether the driver,
Ray and the store keep up (target: >= 0.8 x N). Timing starts once the workers
are warm (actor start-up is printed separately). On a small machine keep the
LLM latency large (default 1 s per call) so that CPU is not the limit: the
measurement is about orchestration, not about how fast two cores run sandboxes.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import ray  # noqa: E402

from execugraph.batch.control import enqueue_batch  # noqa: E402
from execugraph.batch.spec import BatchSpec  # noqa: E402
from execugraph.scaleout.driver import RayBatchDriver, ScaleOptions  # noqa: E402
from execugraph.scaleout.executor import worker_db_url  # noqa: E402
from execugraph.store import Store, leases  # noqa: E402
from standins.ollama_server import OllamaStandIn  # noqa: E402
from standins.role_responder import role_responder  # noqa: E402
from standins.workload import REPLIES, problems  # noqa: E402


def cpu_jiffies() -> tuple[int, int]:
    """(busy, total) CPU jiffies of the whole machine so far, from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


def measure(store: Store, workers: int, slots: int, trials: int, hosts: list[str], condition: str) -> dict:
    """Run one batch with `workers` actors: trials/min over the warm part, start-up time, machine CPU use."""
    spec = BatchSpec(
        benchmark="bench",
        conditions=[condition],
        seeds=[0],
        default_model="ollama:m",
        overrides={"cache": False},
        executor="ray",
        ray_workers=workers,
        concurrency=workers * slots,
        ollama_hosts=hosts,
        title=f"scale bench: {workers} workers",
    )
    run_id = enqueue_batch(store, spec, problems(trials))
    worker_id = f"bench-{os.getpid()}-{run_id}"
    if leases.claim_run(store, worker_id, only=run_id) != run_id:
        raise SystemExit(f"could not claim bench run {run_id}")
    # each worker reserves 1/4 logical CPU: four workers fit on any cluster this script starts
    options = ScaleOptions(worker_cpus=0.25, poll_s=0.05)
    driver = RayBatchDriver.claimed(store, run_id, worker_id, worker_db_url(store), options=options)
    outcome: list[str] = []
    thread = threading.Thread(target=lambda: outcome.append(driver.run()))
    thread.start()
    driver.workers_ready.wait()
    busy0, total0 = cpu_jiffies()
    thread.join()
    busy1, total1 = cpu_jiffies()
    status = outcome[0] if outcome else "crashed"
    done = sum(1 for t in store.trials_for_run(run_id) if t.status == "done" and t.passed)
    if status != "done" or done != trials:
        raise SystemExit(f"{workers} workers: run {status}, {done}/{trials} trials passed")
    return {
        "rate": trials / driver.timings["trials_s"] * 60,
        "start_s": driver.timings["workers_start_s"],
        "cpu": (busy1 - busy0) / max(1, total1 - total0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=1000.0, help="fixed delay of every LLM call")
    parser.add_argument("--condition", default="multi-full")
    parser.add_argument("--slots", type=int, default=2, help="trials each worker runs at once")
    parser.add_argument("--per-slot", type=int, default=3, help="trials per slot at every level")
    parser.add_argument("--endpoints", type=int, default=2, help="loopback Ollama stand-ins to balance over")
    parser.add_argument("--db", help="store URL (default: a temporary SQLite file)")
    parser.add_argument("--ray-address", help="join this cluster instead of starting a local one")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(args.db or f"sqlite:///{tmp}/scale.db")
        servers = [
            OllamaStandIn(responder=role_responder(REPLIES), models=["m"], latency_s=args.latency_ms / 1000).start()
            for _ in range(args.endpoints)
        ]
        if args.ray_address:
            ray.init(address=args.ray_address, include_dashboard=False, log_to_driver=False)
        else:  # logical CPUs: the workers mostly wait on the LLM, the real cores are what they share
            ray.init(num_cpus=4, include_dashboard=False, log_to_driver=False)
        try:
            print(
                f"condition {args.condition}, LLM latency {args.latency_ms:.0f} ms per call, {args.endpoints} "
                f"endpoints, {args.slots} trials in flight per worker, real sandbox, store {store.url}, "
                f"{os.cpu_count()} cores"
            )
            print(
                f"{'workers':>7} {'trials':>6} {'start s':>7} {'trials/min':>10} {'ratio':>6} {'ratio/N':>7} "
                f"{'machine CPU busy':>16}"
            )
            base = None
            for n in (1, 2, 4):
                trials = args.per_slot * args.slots * n
                result = measure(store, n, args.slots, trials, [s.url for s in servers], args.condition)
                base = base or result["rate"]
                ratio = result["rate"] / base
                print(
                    f"{n:>7} {trials:>6} {result['start_s']:>7.1f} {result['rate']:>10.1f} {ratio:>6.2f} "
                    f"{ratio / n:>7.2f} {result['cpu']:>16.0%}",
                    flush=True,
                )
            print(
                "machine CPU busy: all processes, not only this benchmark; near 100% means CPU, not orchestration, "
                "limits the higher levels (raise --latency-ms)"
            )
        finally:
            ray.shutdown()
            for server in servers:
                server.stop()
            store.close()


if __name__ == "__main__":
    main()
