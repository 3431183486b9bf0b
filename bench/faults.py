"""A batch through repeated LLM endpoint outages: nothing may be lost, run twice or turned into an error.

A real `worker` subprocess runs a batch against a loopback Ollama-compatible stand-in (real HTTP,
real sandbox, real SQLite store). Between short stretches of service the endpoint fails the way
real servers do, each for up to `--outage-s` seconds: killed (listener gone, open connections
reset), HTTP 503, connections reset, connections refused, and answers slower than the read
timeout. During every outage the script asks `python -m execugraph status` (another process)
whether it shows `waiting: <endpoint> unreachable since HH:MM:SS, retrying`.

Last comes a database lock: another process holds SQLite's write lock for `--db-lock-s` seconds
(60 by default, twice the busy timeout and the workers' lease), as a backup job would; the batch
must stall and carry on, with no trial run twice and none recorded as an error.

Then the database's other users (`--churn-s`, 30 by default): a second process opens and closes
the store every 2 s (Store.open with the health check, plain sqlite3, `status`) while the worker
process itself runs the dashboard's database health check every 2 s (it runs under
`standins.db_churn checked`, all along), the sequence that once dropped the writer's locks and
let another process delete the write-ahead log it was writing into.

Printed at the end: trials lost, run twice and errored (all must be 0), status lines shown (one
per endpoint outage), and whether the run ended `done` with every trial graded. Exit status 1 otherwise.

Adding a fault: append a `Phase(name, begin, end)` to the list `phases()` returns (or pass one to
`run_bench(extra_phases=...)`); `begin()` starts the fault, `end()` ends it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from execugraph.batch.control import enqueue_batch  # noqa: E402
from execugraph.batch.progress import progress  # noqa: E402
from execugraph.batch.spec import BatchSpec  # noqa: E402
from execugraph.providers.outages import waiting_lines  # noqa: E402
from execugraph.store import Store  # noqa: E402
from standins.db_lock import DatabaseLock  # noqa: E402
from standins.ollama_server import OllamaStandIn  # noqa: E402
from standins.role_responder import role_responder  # noqa: E402
from standins.workload import REPLIES, problems  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Phase:
    """One fault: `begin()` starts it, `end()` ends it (after the outage length, or when told).

    Faults beyond the endpoint (the database lock, `db_lock_phase`) set `endpoint_fault=False`:
    while they last the batch must stall, not fail, but no `waiting:` line is expected.
    """

    name: str
    begin: Callable[[], None]
    end: Callable[[], None]
    endpoint_fault: bool = True  # the run should show a `waiting:` line while it lasts
    seconds: float | None = None  # how long it lasts (default: --outage-s, or --db-lock-s for the lock)
    extra_trials: int = 0  # trials queued for it beyond one stretch (a fault the batch must keep writing through)


def phases(server: OllamaStandIn, slow_s: float) -> list[Phase]:
    """The endpoint faults, in the order they are applied."""

    def kill() -> None:
        server.stop()  # the process is gone: new connections refused, open ones reset

    def revive() -> None:
        server.start()  # the same port again, as a restarted `ollama serve`

    return [
        Phase("killed", kill, revive),
        Phase("http 503", lambda: server.set_down(True, mode="503"), lambda: server.set_down(False)),
        Phase("reset", lambda: server.set_down(True, mode="reset"), lambda: server.set_down(False)),
        Phase("refused", lambda: server.set_down(True, mode="refuse"), lambda: server.set_down(False, mode="refuse")),
        Phase("slow answers", lambda: server.set_slow(slow_s), lambda: server.set_slow(0.0)),
    ]


def db_lock_phase(db_url: str, seconds: float) -> Phase:
    """Another process holds the store's write lock for `seconds` (it lets go by itself; `end` waits for that)."""
    holder = DatabaseLock(db_url, seconds)
    return Phase("db lock", begin=holder.start, end=lambda: holder.wait_released(), endpoint_fault=False)


def churn_phase(db_url: str, seconds: float, server: OllamaStandIn, concurrency: int) -> Phase:
    """A second process opening and closing the store every 2 s for `seconds` (`end` waits for it to finish).

    Calls take 1 s meanwhile and enough trials are queued that the batch writes all through it.
    """
    started: list[subprocess.Popen] = []
    latency = server.latency_s

    def begin() -> None:
        server.latency_s = 1.0
        started.append(subprocess.Popen([sys.executable, "-m", "standins.db_churn", "churn", db_url, str(seconds)],
                                        cwd=ROOT, stdout=subprocess.PIPE, text=True))

    def end() -> None:
        out, _ = started[0].communicate(timeout=seconds + 600)
        server.latency_s = latency
        print(f"{'':<14} {out.strip()} (second process; exit {started[0].returncode})")

    return Phase("db churn", begin, end, endpoint_fault=False, seconds=seconds,
                 extra_trials=int(seconds * concurrency))


def status_text(db_url: str, run_id: int) -> str:
    """What `python -m execugraph status RUN` prints (another process, as a user would run it)."""
    result = subprocess.run([sys.executable, "-m", "execugraph", "--db", db_url, "status", str(run_id)],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    return result.stdout


def wait_for(check: Callable[[], bool], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False


def run_bench(args: argparse.Namespace, extra_phases: Sequence[Phase] = ()) -> int:
    with tempfile.TemporaryDirectory() as tmp, OllamaStandIn(
        responder=role_responder(REPLIES), models=["m"], latency_s=args.latency_ms / 1000
    ) as server:
        db_url = f"sqlite:///{tmp}/faults.db"
        schedule = [*phases(server, slow_s=args.timeout_s * 2 + 1), *extra_phases]
        if args.db_lock_s > 0:
            schedule.append(db_lock_phase(db_url, args.db_lock_s))
        if args.churn_s > 0:
            schedule.append(churn_phase(db_url, args.churn_s, server, args.concurrency))
        total = args.per_stretch * (len(schedule) + 1) + args.concurrency + sum(p.extra_trials for p in schedule)
        spec = BatchSpec(benchmark="bench", conditions=["single-oneshot"], seeds=[0], default_model="ollama:m",
                         concurrency=args.concurrency, overrides={"cache": False},
                         outage_budget_s=max(600.0, args.outage_s * 5), llm_timeout_s=args.timeout_s)
        with Store.open(db_url) as store:
            run_id = enqueue_batch(store, spec, problems(total))

        def done() -> int:  # a connection of its own each time: a held one would hide the churn phase's hazard
            with Store.open(db_url) as store:
                return progress(store, run_id).done

        env = os.environ | {"OLLAMA_HOST": server.url, "PYTHONUNBUFFERED": "1"}
        log = open(Path(tmp) / "worker.log", "w+")  # noqa: SIM115 - read back below
        worker = subprocess.Popen(
            [sys.executable, "-m", "standins.db_churn", "checked", db_url, "--",
             "--db", db_url, "worker", "--once", "--poll-s", "0.2"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log,
        )
        print(f"{total} single-oneshot trials, concurrency {args.concurrency}, LLM latency {args.latency_ms:.0f} ms, "
              f"read timeout {args.timeout_s:.0f} s, outages of {args.outage_s:.0f} s")
        print(f"{'phase':<14} {'trials done before':>18} {'status line shown':>18} {'after':>7}")
        shown = 0
        try:
            for phase in schedule:
                target = done() + args.per_stretch
                if not wait_for(lambda target=target: done() >= target, 300):
                    raise SystemExit(f"the batch stopped progressing before phase {phase.name!r}")
                before = done()
                phase.begin()
                began = time.monotonic()
                seen_after = None
                length = phase.seconds or (args.outage_s if phase.endpoint_fault else args.db_lock_s)
                while time.monotonic() - began < length:
                    if seen_after is None and phase.endpoint_fault and "waiting: " in status_text(db_url, run_id):
                        seen_after = time.monotonic() - began
                    time.sleep(0.5)
                phase.end()
                shown += seen_after is not None
                after = "-" if seen_after is None else f"{seen_after:.0f} s"
                shown_text = ("yes" if seen_after is not None else "no") if phase.endpoint_fault else "(not expected)"
                print(f"{phase.name:<14} {before:>18} {shown_text:>18} {after:>7}")
            worker.wait(timeout=600)
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
        with Store.open(db_url) as store:
            return report(store, run_id, total, shown, len([p for p in schedule if p.endpoint_fault]), log)


def report(store: Store, run_id: int, total: int, shown: int, outages: int, log) -> int:
    trials = store.trials_for_run(run_id)
    statuses = Counter(t.status for t in trials)
    lost = total - statuses["done"] - statuses["error"]
    twice = errored = ungraded = 0
    for trial in trials:
        nodes = [s.node for s in store.steps_for_trial(trial.id)]
        calls = len(store.llm_calls_for_trial(trial.id))
        twice += nodes.count("grade") > 1 or nodes.count("generator") > 1 or calls != trial.llm_calls
        errored += trial.status == "error"
        ungraded += trial.status == "done" and "grade" not in nodes
    run = store.get_run(run_id)
    waits = waiting_lines(store, [run_id])
    print(f"\ntrials lost {lost}, run twice {twice}, errored {errored}; status lines shown {shown} of {outages} "
          f"outages; run {run.status}, {statuses['done'] - ungraded}/{total} trials graded; waits left {len(waits)}")
    ok = lost == twice == errored == ungraded == 0 and run.status == "done" and shown == outages and not waits
    if not ok:
        log.seek(0)
        print("worker log (tail):\n" + "".join(log.readlines()[-20:]))
    return 0 if ok else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outage-s", type=float, default=60.0, help="length of each outage")
    parser.add_argument("--per-stretch", type=int, default=3, help="trials that finish between two outages")
    parser.add_argument("--concurrency", type=int, default=3)
    parser.add_argument("--latency-ms", type=float, default=300.0)
    parser.add_argument("--timeout-s", type=float, default=5.0, help="per-call read timeout of the batch")
    parser.add_argument("--db-lock-s", type=float, default=60.0,
                        help="how long another process holds the database's write lock at the end (0: skip)")
    parser.add_argument("--churn-s", type=float, default=30.0,
                        help="how long a second process opens and closes the database at the end (0: skip)")
    sys.exit(run_bench(parser.parse_args()))


if __name__ == "__main__":
    main()
