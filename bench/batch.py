"""Trials per minute at concurrency 1, 2, 4, 8 against a loopback LLM stand-in with fixed latency.

Real graph, real sandbox, real SQLite store; only the model is a stand-in, so the
ratio to concurrency 1 shows whether orchestration ever becomes the bottleneck
(target: >= 0.8 x N up to N = 8).

Phase `capacity`: a batch ({single-oneshot, multi-full} x 2 seeds) against an OpenAI-compatible
stand-in with a fixed latency and 16 slots (continuous batching, as vLLM does; in its own process,
as a real server is), at concurrency 1, 4 and 16, each level in a fresh process as a worker starts: the share of the server's capacity
the batch used (requests served x latency / (min(N, slots) x wall time); and busy slot-seconds over
the same) and the ramp (batch start to the first model request). Modes side by side: `cold` (no
warming at all), `batch` (the batch's clients built before its trial threads start:
`execugraph.providers.clients.warm_models`), `warm` (the worker as it is: that, after the worker's
synchronous warm-up before its first claim, `execugraph.batch.warmup`) and `ray` (the Ray executor,
one worker actor warmed the same way in `ready()`, timed from when its workers are ready; only
where Ray is installed), `warm-id` and `ray-id` (`warm` and `ray` with trials claimed in id order throughout, as
before the tail rule of `execugraph.batch.order`), `warm-old` (`warm-id` whose worker is not configured for the
stand-in, so the batch's first clients load their SSL contexts after the batch starts, as every worker's did before
its warm-up built them for `EXECUGRAPH_OPENAI_BASE_URL`), `warm-1tx` (`warm` with one write transaction per step) and `warm-orm` (`warm` with
its steps written as ORM objects, as before `execugraph.store.step_rows`'s Core INSERTs) and `warm-prev` (`warm` with
requests through the OpenAI SDK's `create`, whose `maybe_transform` `execugraph.providers.openai_direct` skips, and one
fence SELECT per step instead of one per group commit, as before both). The others write steps
through the store's group commit (`execugraph.store.step_groups`); `steps/tx` says how many steps shared a
transaction. `--repeat K` runs each level and mode K times, interleaved, to show the spread; with `warm` and
`warm-orm` (or `warm-prev`, `warm-id`; or `ray` and `ray-id`) both given, each level ends with their median shares'
ratio. `ideal` takes the trials in the order they were claimed; `occ`, `hand-off` and `tail` (`trial_timeline`) split
what the share loses outside the trials from what it loses inside them (occ - share). `cpu/trial`: this
process's CPU (trial threads, worker, store; not the server's nor the sandbox's) per trial; `--yappi` (yappi
installed) adds the trial threads' own CPU per trial and their largest functions.
Target at 16: share >= 0.85, ramp < 0.5 s.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from execugraph.batch.control import enqueue_batch  # noqa: E402
from execugraph.batch.local import LocalExecutor  # noqa: E402
from execugraph.batch.runner import Worker  # noqa: E402
from execugraph.batch.spec import BatchSpec, condition_configs  # noqa: E402
from execugraph.grading.rules import build_suite  # noqa: E402
from execugraph.store import Store, leases  # noqa: E402
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


CAPACITY_CONDITIONS = ["single-oneshot", "multi-full"]
CAPACITY_LEVELS = (1, 4, 16)


class WarmingExecutor(LocalExecutor):
    """The local executor with what `warm` adds: the batch's model clients built before its threads start."""

    def execute(self, run, spec: BatchSpec) -> str:
        from execugraph.providers.clients import warm_models

        warm_models(condition_configs(run.store.get_run(run.run_id), spec).values(), self.deps_factory())
        return super().execute(run, spec)


def ideal_share(calls_in_queue_order: list[int], concurrency: int, latency_s: float) -> float:
    """The share a zero-overhead worker would reach on this queue: trials taken in order by the first free
    of `concurrency` threads, each lasting its calls x latency (the tail of the last wave is all it loses)."""
    free = [0.0] * concurrency
    for calls in calls_in_queue_order:
        slot = free.index(min(free))
        free[slot] += calls * latency_s
    return sum(calls_in_queue_order) * latency_s / (concurrency * max(free))


@contextmanager
def openai_server(latency_s: float, slots: int) -> Iterator[tuple[str, Callable[[], dict]]]:
    """The OpenAI-compatible stand-in in its own process, as a real server is: (base URL, read its counters)."""
    command = [sys.executable, "-m", "standins.openai_server", "--latency-ms", str(latency_s * 1000),
               "--slots", str(slots), "--responder", "workload"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parent.parent)
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        if not line.startswith("OPENAI_STANDIN_URL="):
            raise SystemExit(f"the OpenAI stand-in did not start: {line!r}")
        base_url = line.partition("=")[2]

        def stats() -> dict:
            with urllib.request.urlopen(base_url.removesuffix("/v1") + "/standin/stats", timeout=10) as answer:
                return json.load(answer)

        yield base_url, stats
    finally:
        process.terminate()
        process.wait(10)


def ray_batch(store: Store, run_id: int) -> float:
    """Drive a claimed Ray batch run to its end; the monotonic time its worker actors were ready (the batch
    starts there: a cluster's workers start once, as a worker process does, before the batches it serves)."""
    import threading

    from execugraph.scaleout.driver import RayBatchDriver, ScaleOptions
    from execugraph.scaleout.executor import worker_db_url

    worker_id = f"bench-{os.getpid()}"
    if leases.claim_run(store, worker_id, only=run_id) != run_id:
        raise SystemExit(f"could not claim bench run {run_id}")
    driver = RayBatchDriver.claimed(store, run_id, worker_id, worker_db_url(store),
                                    options=ScaleOptions(worker_cpus=0.25, poll_s=0.02))
    outcome: list[str] = []
    thread = threading.Thread(target=lambda: outcome.append(driver.run()))
    thread.start()
    driver.workers_ready.wait()
    ready = time.monotonic()
    thread.join()
    if outcome != ["done"]:
        raise SystemExit(f"Ray run ended {outcome}")
    return ready


def start_yappi():
    """yappi on the CPU clock, every thread (the trial threads are picked out afterwards); the module."""
    try:
        import yappi
    except ImportError:
        raise SystemExit("--yappi needs yappi: pip install yappi") from None
    import threading

    yappi.set_clock_type("cpu")
    yappi.set_context_name_callback(lambda: threading.current_thread().name)  # so the trial threads can be told
    yappi.start(builtins=True)
    return yappi


def trial_thread_profile(yappi, run_id: int, trials: int, top: int = 8) -> dict:
    """The trial threads' (the executor's `run<id>_*` threads) CPU per trial and their largest functions by own
    CPU, as shares of the trial threads' CPU."""
    yappi.stop()
    ids = [t.id for t in yappi.get_thread_stats() if t.name.startswith(f"run{run_id}")]
    total = sum(t.ttot for t in yappi.get_thread_stats() if t.id in ids)
    funcs: dict[str, float] = {}
    for ctx in ids:
        for f in yappi.get_func_stats(filter={"ctx_id": ctx}):
            name = f"{Path(f.module).name}:{f.name}"
            funcs[name] = funcs.get(name, 0.0) + f.ttot
    largest = sorted(funcs.items(), key=lambda kv: -kv[1])
    named = [(n, t) for n, t in largest if any(k in n for k in ("maybe_transform", "update_trial", "check",
                                                                       "record_step", "_generate", "submit"))]
    return {"trial_cpu_s": total / trials, "largest": [(n, t / total) for n, t in named[:top]]}


def trial_timeline(trials: list, usable: int, wall_s: float) -> dict:
    """From the stored claim and finish times: `occupancy`, the share of the `usable` threads' time a trial held
    (claim to finish; the rest is ramp, hand-offs and the last wave's tail), `handoff_ms`, the median time from a
    trial's finish to the claim it made room for (after the first wave), and `tail_s`, last claim to last finish."""
    spans = [(t.started_at.timestamp(), t.finished_at.timestamp()) for t in trials if t.started_at and t.finished_at]
    if not spans:
        return {"occupancy": float("nan"), "handoff_ms": float("nan"), "tail_s": float("nan")}
    finishes = sorted(end for _, end in spans)
    claims = sorted(start for start, _ in spans)
    gaps = [claim - finishes[i] for i, claim in enumerate(claims[usable:]) if i < len(finishes)]
    return {"occupancy": sum(end - start for start, end in spans) / (usable * wall_s),
            "handoff_ms": statistics.median(gaps) * 1000 if gaps else float("nan"),
            "tail_s": finishes[-1] - claims[-1]}


def capacity_child(concurrency: int, problem_count: int, latency_s: float, slots: int, mode: str,
                   yappi: bool = False) -> dict:
    """One batch in this (fresh) process against the OpenAI-compatible stand-in; what it used of the server.

    Modes: cold, batch, warm (the local executor; see the module docstring) and ray (the Ray executor on a
    local cluster started first, one worker actor with `concurrency` slots, timed from its workers' start).
    """
    if mode.startswith("ray"):
        from execugraph.scaleout.executor import connect

        connect()  # a local cluster, up before the batch, as a real one is
    from sandbox import SandboxPool

    with SandboxPool() as pool, tempfile.TemporaryDirectory() as tmp, openai_server(latency_s, slots) as (url, stats):
        first = problems(1)[0]
        pool.run_suite(GOOD.strip("`").removeprefix("python\n"), build_suite(first, first.tests, "standalone"))
        store = Store.open(f"sqlite:///{tmp}/bench.db")
        ray = {"executor": "ray", "ray_workers": 1, "endpoints": [url]} if mode.startswith("ray") else {}
        spec = BatchSpec(benchmark="bench", conditions=CAPACITY_CONDITIONS, seeds=[0, 1], default_model="openai:m",
                         concurrency=concurrency, overrides={"cache": False}, **ray)
        run_id = enqueue_batch(store, spec, problems(problem_count))

        def deps() -> TrialDeps:
            return TrialDeps(pool=pool, openai_base_url=url)

        if mode != "warm-old":  # the worker's configured server (`warm*`: its HTTP clients built in the warm-up)
            os.environ["EXECUGRAPH_OPENAI_BASE_URL"] = url

        executors = {"local": WarmingExecutor(deps)} if mode in ("batch", "warm", "warm-1tx", "warm-orm", "warm-prev",
                                                                  "warm-id", "warm-old") else None
        if mode in ("warm-id", "ray-id", "warm-old"):  # claims in id order throughout, as before the tail rule (batch/order.py)
            from execugraph.batch import order

            order.TAIL_WAVES = 0
        if mode == "warm-1tx":  # as `warm`, but one write transaction per step (as before step_groups)
            store._step_groups = None
        if mode == "warm-orm":  # as `warm`, but steps written as ORM objects (as before store/step_rows)
            store._step_writes = "orm"
        groups = store._step_groups
        if mode == "warm-prev":  # as `warm`, but the SDK's request path and one fence SELECT per step (as before)
            from execugraph.providers import openai_direct

            openai_direct.DIRECT_REQUESTS = False
            if groups is not None:
                groups.batched_fences = False
        profile = start_yappi() if yappi else None
        cpu_before = float("nan")  # the Ray actors' CPU is in their own processes
        if mode.startswith("ray"):
            started = ray_batch(store, run_id)
        else:
            worker = Worker(store, deps_factory=deps, executors=executors, preload=mode.startswith("warm"))
            worker.prepare()  # `warm`: what the worker does when it starts, before any batch is queued
            started, cpu_before = time.monotonic(), time.process_time()  # the batch, not the warm-up's imports
            worker.run_forever(exit_when_idle=True)
        wall = time.monotonic() - started
        cpu = time.process_time() - cpu_before
        with store.engine.connect() as conn:
            steps = conn.exec_driver_sql("SELECT count(*) FROM step").scalar()
        trials = sorted(store.trials_for_run(run_id), key=lambda t: (t.started_at, t.id))  # as claimed
        done = sum(1 for t in trials if t.status == "done")
        ideal = ideal_share([t.llm_calls for t in trials], min(concurrency, slots), latency_s)
        store.close()
        served = stats()
        ramp = (served["first_request_at"] or float("nan")) - started  # one monotonic clock for both processes
        usable = min(concurrency, slots)
        profiled = trial_thread_profile(profile, run_id, len(trials)) if profile else {}
        return {**profiled, **trial_timeline(trials, usable, wall), "cpu_per_trial_s": cpu / max(1, len(trials)), "concurrency": concurrency, "mode": mode, "trials": len(trials), "done": done, "wall_s": wall,
                "served": served["served"], "ramp_s": ramp, "peak": served["peak_in_flight"],
                "share": served["served"] * latency_s / (usable * wall),
                "busy_share": served["busy_slot_s"] / (usable * wall), "ideal": ideal,
                # steps per write transaction in this process (the Ray actor's own store is not seen here)
                "steps_per_tx": groups.steps / groups.transactions if not mode.startswith("ray") and groups
                and groups.transactions
                else float("nan"), "steps": steps}


def capacity_run(level: int, count: int, mode: str, args: argparse.Namespace) -> dict:
    """One level and mode in a fresh process (`capacity_child`); its result, all trials done."""
    command = [sys.executable, __file__, "--capacity-child", str(level), "--mode", mode,
               "--problems", str(count), "--latency-ms", str(args.latency_ms), "--slots", str(args.slots)]
    command += ["--yappi"] if args.yappi else []
    out = subprocess.run(command, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"level {level} {mode} failed:\n{out.stderr[-3000:]}")
    r = json.loads(out.stdout.strip().splitlines()[-1])
    if r["done"] != r["trials"]:
        raise SystemExit(f"only {r['done']}/{r['trials']} trials completed at concurrency {level} ({mode})")
    return r


def capacity(args: argparse.Namespace) -> None:
    """Run each level and mode in a fresh process, side by side, and print the shares of the server used."""
    counts = [int(x) for x in args.problems.split(",")]
    print(f"capacity: OpenAI-compatible stand-in, {args.latency_ms:.0f} ms per call, {args.slots} slots; "
          f"{'/'.join(CAPACITY_CONDITIONS)} x 2 seeds; load average {os.getloadavg()[0]:.1f}")
    print("share: requests x latency / (min(N, slots) x wall); busy: busy slot-seconds over the same; "
          "ideal: the share with zero overhead on this queue (only the last wave's tail lost)")
    print("steps/tx: step rows per write transaction (concurrent trials' steps share one, see store/step_groups)")
    print("occ: share of the threads' time a trial held (claim to finish); hand-off: median finish -> next claim; "
          "tail: last claim -> last finish")
    print(f"{'concurrency':>11} {'mode':>8} {'trials':>6} {'calls':>5} {'wall s':>7} {'share':>6} {'busy':>6} "
          f"{'ideal':>6} {'/ideal':>6} {'ramp s':>6} {'peak':>4} {'steps/tx':>8} {'cpu/trial':>9} {'occ':>5} "
          f"{'hand-off':>8} {'tail s':>6} {'load':>5}")
    modes = args.modes.split(",")
    if any(m.startswith("ray") for m in modes) and importlib.util.find_spec("ray") is None:
        print("ray: not installed in this environment; its rows are left out")
        modes = [m for m in modes if not m.startswith("ray")]
    levels = {int(x) for x in args.levels.split(",")}
    for level, count in zip(CAPACITY_LEVELS, counts, strict=True):
        if level not in levels:
            continue
        shares: dict[str, list[float]] = {mode: [] for mode in modes}
        for _ in range(args.repeat):
            for mode in modes:
                r = capacity_run(level, count, mode, args)
                shares[mode].append(r["share"])
                print(f"{level:>11} {mode:>8} {r['trials']:>6} {r['served']:>5} {r['wall_s']:>7.2f} "
                      f"{r['share']:>6.2f} {r['busy_share']:>6.2f} {r['ideal']:>6.2f} {r['share'] / r['ideal']:>6.2f} "
                      f"{r['ramp_s']:>6.2f} {r['peak']:>4} {r['steps_per_tx']:>8.2f} "
                      f"{r['cpu_per_trial_s'] * 1000:>7.0f}ms {r['occupancy']:>5.2f} {r['handoff_ms']:>6.0f}ms "
                      f"{r['tail_s']:>6.2f} {os.getloadavg()[0]:>5.1f}", flush=True)
                if "trial_cpu_s" in r:
                    print(f"{'':>11} {mode:>8} trial threads {r['trial_cpu_s'] * 1000:.0f} ms CPU per trial; "
                          + ", ".join(f"{n} {share:.1%}" for n, share in r["largest"]), flush=True)
        for mine, other in (("warm", "warm-orm"), ("warm", "warm-prev"), ("warm", "warm-id"), ("warm", "warm-old"),
                            ("ray", "ray-id")):
            if shares.get(mine) and shares.get(other):
                now, before = statistics.median(shares[mine]), statistics.median(shares[other])
                print(f"{level:>11} median share {mine} {now:.2f} / {other} {before:.2f} = {now / before:.2f}x  "
                      f"(runs: {', '.join(f'{x:.2f}' for x in shares[mine])} / "
                      f"{', '.join(f'{x:.2f}' for x in shares[other])})", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=None, help="per call (default 200; capacity: 500)")
    parser.add_argument("--condition", default="multi-full")
    parser.add_argument("--per-level", type=int, default=4, help="trials per unit of concurrency")
    parser.add_argument("--phase", choices=("trials", "capacity", "all"), default="all")
    parser.add_argument("--problems", default="4,8,20", help="capacity: problems at concurrency 1, 4 and 16")
    parser.add_argument("--slots", type=int, default=16, help="capacity: requests the stand-in serves at once")
    parser.add_argument("--modes", default="cold,batch,warm,ray", help="capacity: any of cold, batch, warm, warm-1tx, "
                        "warm-orm, warm-prev, warm-id, warm-old, ray, ray-id (ray*: only where Ray is installed)")
    parser.add_argument("--yappi", action="store_true", help="capacity: profile the trial threads (needs yappi)")
    parser.add_argument("--repeat", type=int, default=1, help="capacity: runs of each level and mode, interleaved")
    parser.add_argument("--levels", default="1,4,16", help="capacity: which of the concurrency levels 1, 4, 16 to run")
    parser.add_argument("--capacity-child", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="cold", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.capacity_child is not None:
        latency = (args.latency_ms if args.latency_ms is not None else 500.0) / 1000
        result = capacity_child(args.capacity_child, int(args.problems), latency, args.slots, args.mode, args.yappi)
        print(json.dumps(result))
        return
    given = args.latency_ms
    if args.phase in ("trials", "all"):
        args.latency_ms = 200.0 if given is None else given
        trials_phase(args)
    if args.phase in ("capacity", "all"):
        args.latency_ms = 500.0 if given is None else given
        capacity(args)


def trials_phase(args: argparse.Namespace) -> None:
    """Trials per minute at concurrency 1, 2, 4, 8 against the Ollama stand-in."""
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
