"""Sandbox speed and containment, measured side by side in one run.

Compares, on the same candidates and 5-test suites:
- the reference approach: a fresh `python -I -S` subprocess per test case
  that imports the allowed modules, installs an import allow/deny hook and
  RLIMIT_AS, runs the candidate and one test, and prints a JSON verdict;
- ours: a warm SandboxPool (one forked, hardened job process tree per
  candidate, all tests inside it).
Prints per-test-case latency (one at a time), candidates/s with every core
busy, their ratios, and how many hostile programs from
standins/hostile were contained (right verdict, host untouched).
Exits 1 if ours is not at least 10x faster per test case or any hostile
program was not contained.

    .venv/bin/python bench/sandbox.py [--candidates 20] [--no-hostile]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from sandbox import Limits, SandboxPool  # noqa: E402
from sandbox.preload import ALLOWED_MODULES  # noqa: E402

TARGET_RATIO = 10.0
LIMITS = Limits(timeout_s=10.0, memory_mb=512)

# The reference harness, run by a fresh interpreter for every single test case.
REFERENCE_RUNNER = r"""
import builtins, json, resource, sys
job = json.loads(sys.stdin.read())
for name in job["preload"]:
    __import__(name)
limit = job["memory_mb"] << 20
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
DENIED = {"subprocess", "socket", "shutil", "ctypes", "multiprocessing", "signal", "pty", "importlib"}
real_import = builtins.__import__
def guarded_import(name, *args, **kwargs):
    if name.partition(".")[0] in DENIED:
        raise ImportError(f"import of {name} is not allowed")
    return real_import(name, *args, **kwargs)
builtins.__import__ = guarded_import
namespace = {"__name__": "candidate"}
try:
    exec(job["code"], namespace)
    got = eval(job["expr"], namespace)
    print(json.dumps({"status": "ok", "passed": got == job["expected"], "got": repr(got)}))
except BaseException as exc:
    print(json.dumps({"status": "error", "passed": False, "error": type(exc).__name__}))
"""

PROGRAM = """
import heapq
from collections import defaultdict
from functools import lru_cache

def min_cost_{k}(n, edges, start, goal):
    graph = defaultdict(list)
    for a, b, w in edges:
        graph[a].append((b, w + {k} * 0))
        graph[b].append((a, w))
    best = {{start: 0}}
    queue = [(0, start)]
    while queue:
        cost, node = heapq.heappop(queue)
        if node == goal:
            return cost
        if cost > best.get(node, float('inf')):
            continue
        for nxt, w in graph[node]:
            if cost + w < best.get(nxt, float('inf')):
                best[nxt] = cost + w
                heapq.heappush(queue, (cost + w, nxt))
    return -1

@lru_cache(maxsize=None)
def _unused_{k}(x):
    return x
"""

TESTS = [
    ("{f}(3, [[0, 1, 4], [1, 2, 1], [0, 2, 7]], 0, 2)", 5),
    ("{f}(2, [[0, 1, 3]], 0, 1)", 3),
    ("{f}(3, [[0, 1, 1]], 0, 2)", -1),
    ("{f}(1, [], 0, 0)", 0),
    ("{f}(5, [[0, 1, 2], [1, 2, 2], [2, 3, 2], [3, 4, 2], [0, 4, 9]], 0, 4)", 8),
]


def candidates(count: int) -> list[tuple[str, dict]]:
    jobs = []
    for k in range(count):
        name = f"min_cost_{k}"
        tests = [{"kind": "call", "expr": expr.format(f=name), "expected": expected} for expr, expected in TESTS]
        jobs.append((PROGRAM.format(k=k), {"entry_point": name, "tests": tests}))
    return jobs


def reference_case(code: str, test: dict) -> bool:
    job = {
        "code": code,
        "expr": test["expr"],
        "expected": test["expected"],
        "preload": list(ALLOWED_MODULES),
        "memory_mb": LIMITS.memory_mb,
    }
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", REFERENCE_RUNNER],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        timeout=LIMITS.timeout_s,
    )
    return bool(json.loads(done.stdout or "{}").get("passed"))


def reference_candidate(job: tuple[str, dict]) -> bool:
    code, suite = job
    return all(reference_case(code, test) for test in suite["tests"])


def timed(fn, *args):  # noqa: ANN001, ANN201
    start = time.perf_counter()
    value = fn(*args)
    return time.perf_counter() - start, value


def bench_speed(count: int) -> tuple[float, float, float, float]:
    jobs = candidates(count)
    cases = sum(len(suite["tests"]) for _, suite in jobs)
    workers = os.cpu_count() or 1

    # one at a time (latency per test case)
    ref_s, ref_ok = timed(lambda: [reference_candidate(job) for job in jobs])
    with SandboxPool(workers=1) as pool:
        pool.run_suite(*jobs[0], LIMITS)  # first job touches cold paths once, as any warm pool would have
        ours_s, ours_results = timed(lambda: [pool.run_suite(code, suite, LIMITS) for code, suite in jobs])
    assert all(ref_ok), "the reference harness failed a correct candidate"
    assert all(r.passed for r in ours_results), [r.to_dict() for r in ours_results if not r.passed][:1]

    # every core busy (throughput)
    with ThreadPoolExecutor(max_workers=workers) as executor:
        ref_par_s, ref_par_ok = timed(lambda: list(executor.map(reference_candidate, jobs)))
    with SandboxPool(workers=workers) as pool:
        pool.run_many([(code, suite, LIMITS) for code, suite in jobs[:workers]])
        ours_par_s, ours_par = timed(pool.run_many, [(code, suite, LIMITS) for code, suite in jobs])
    assert all(ref_par_ok) and all(r.passed for r in ours_par)

    ref_case_ms, ours_case_ms = ref_s / cases * 1000, ours_s / cases * 1000
    print(f"candidates: {count}, tests per candidate: {len(TESTS)}, test cases: {cases}, cores: {workers}")
    print("per test case, one at a time:")
    print(f"  fresh `python -I -S` per test case : {ref_case_ms:8.2f} ms")
    print(f"  warm sandbox pool (ours)           : {ours_case_ms:8.2f} ms")
    print(f"  ratio                              : {ref_case_ms / ours_case_ms:8.1f}x  (target >= {TARGET_RATIO:g}x)")
    ref_rate, ours_rate = count / ref_par_s, count / ours_par_s
    print(f"candidates/s for a {len(TESTS)}-test suite, {workers} in parallel:")
    print(f"  fresh interpreter per test case    : {ref_rate:8.1f} /s")
    print(f"  warm sandbox pool (ours)           : {ours_rate:8.1f} /s")
    print(f"  ratio                              : {ours_rate / ref_rate:8.1f}x")
    per_job = statistics.median(r.duration_s for r in ours_results) * 1000
    print(f"  (ours: median {per_job:.2f} ms per candidate job, sequential)")
    return ref_case_ms, ours_case_ms, ref_rate, ours_rate


def bench_hostile() -> tuple[int, int]:
    from standins.hostile.catalog import CASES, suite_for
    from standins.hostile.host import HostContext, host_problems, leftover_processes

    host = HostContext.create()  # plants the env secret before the pool starts
    try:
        with SandboxPool() as pool:
            layers = pool.run_suite(
                "def f():\n    return 1\n", {"entry_point": "f", "tests": [{"kind": "call", "args": [], "expected": 1}]}
            ).isolation
            runnable = [c for c in CASES if not c.missing_layers(layers)]
            skipped = [c.name for c in CASES if c not in runnable]
            workers = pool.worker_pids()
            start = time.perf_counter()
            results = pool.run_many([(c.code(host), suite_for(c, host), c.limits) for c in runnable])
            elapsed = time.perf_counter() - start
            contained, failures = 0, []
            for case, result in zip(runnable, results, strict=True):
                problems = (
                    [] if result.verdict == case.verdict else [f"verdict {result.verdict}, wanted {case.verdict}"]
                )
                problems += host_problems(host, result, workers)
                if case.check is not None:
                    problems += case.check(host, result, pool)
                if problems:
                    failures.append(f"{case.name}: {problems}")
                else:
                    contained += 1
            leftovers = leftover_processes(workers)
            if leftovers:
                failures.append(f"sandbox processes outlived their jobs: {leftovers}")
                contained = min(contained, len(runnable) - 1)
    finally:
        host.close()
    print(f"hostile programs contained: {contained}/{len(runnable)} (right verdict, host untouched) in {elapsed:.1f} s")
    if skipped:
        print(f"  not run (their isolation layer is unavailable here): {', '.join(skipped)}")
    for failure in failures:
        print(f"  NOT CONTAINED: {failure}")
    inactive = {k: v for k, v in layers.items() if v != "active"}
    print("isolation layers: " + ("all active" if not inactive else json.dumps(inactive)))
    return contained, len(runnable)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", type=int, default=20)
    parser.add_argument("--no-hostile", action="store_true", help="skip the hostile-program containment run")
    args = parser.parse_args()
    ref_case, ours_case, _, _ = bench_speed(args.candidates)
    ok = ref_case / ours_case >= TARGET_RATIO
    if not args.no_hostile:
        contained, total = bench_hostile()
        ok = ok and contained == total
    print("RESULT: " + ("targets met" if ok else "TARGET MISSED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
