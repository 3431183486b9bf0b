"""Rescoring speed: our batched sandbox pool vs a fresh `python -I -S` interpreter per test case.

Seeds a throwaway store with one finished run of N stored programs (default
1,000) for eight internal-30 problems: a mix of correct programs and programs
that give wrong answers, raise, or do not parse. Then, in one process:

1. ours: `rescore_run` end to end (read the run, resolve problems, run every
   program through a warm `SandboxPool` via `run_many`, write the child run);
2. the reference approach, reimplemented small but faithfully: one
   `python -I -S` subprocess per test case (candidate + one test expression,
   RLIMIT_AS, a timeout), one worker and then one per core. It is measured on
   a sample of the trials and extrapolated to N; the output says so.

It prints trials/s for each and the ratios. For scale: the published
reference re-scores about 3.6 trials/s with one worker (7.7 with two); the
target is at least 10x that, 36 trials/s.

3. grading protocols, side by side on one warm pool: a run of stored HumanEval
   programs (canonical solutions, wrong returns, and programs that rely on the
   prompt's imports) rescored under `standalone` and under `with-prompt` (the
   prompt runs first in the program's module), trials/s for each.

4. repeated programs, side by side on one warm pool: a best-of-5 HumanEval run
   shaped as the paper's (820 trials holding 173 distinct programs) rescored with
   each distinct job run once, against the same run with every program made
   distinct by a comment (every trial runs, as rescoring did before); the
   verdicts must be the same.

Every stored program in 1-3 differs from the others by a comment, so each trial is
one sandbox job there and the trials/s are the sandbox's.

    .venv/bin/python bench/rescore.py [--trials 1000] [--sample 60] [--workers N] [--humaneval-trials 328]
        [--best-of-rounds 2]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from execugraph.benchmarks import load_internal30  # noqa: E402
from execugraph.configuration.conditions import resolve_condition  # noqa: E402
from execugraph.store import Store, Trial, utcnow  # noqa: E402
from execugraph.store.bulk_insert import bulk_writes  # noqa: E402
from execugraph.verdicts import rescore_run  # noqa: E402

PUBLISHED_ONE_WORKER = 3.6
TARGET = 10 * PUBLISHED_ONE_WORKER

CORRECT = {
    "fib": "def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n",
    "climb_stairs": "def climbStairs(n):\n    a, b = 1, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n",
    "coin_change": (
        "def coinChange(coins, amount):\n    best = [0] + [amount + 1] * amount\n"
        "    for t in range(1, amount + 1):\n        for c in coins:\n"
        "            if c <= t:\n                best[t] = min(best[t], best[t - c] + 1)\n"
        "    return -1 if best[amount] > amount else best[amount]\n"
    ),
    "house_robber": (
        "def rob(nums):\n    take, skip = 0, 0\n    for x in nums:\n"
        "        take, skip = skip + x, max(take, skip)\n    return max(take, skip)\n"
    ),
    "lis": (
        "import bisect\n\ndef lengthOfLIS(nums):\n    tails = []\n    for x in nums:\n"
        "        i = bisect.bisect_left(tails, x)\n        tails[i:i + 1] = [x]\n    return len(tails)\n"
    ),
    "lcs": (
        "def longestCommonSubsequence(a, b):\n    prev = [0] * (len(b) + 1)\n    for x in a:\n"
        "        cur = [0]\n        for j, y in enumerate(b):\n"
        "            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))\n"
        "        prev = cur\n    return prev[-1]\n"
    ),
    "min_cost_path": (
        "def minPathSum(grid):\n    if not grid or not grid[0]:\n        return 0\n"
        "    row = [0] + [float('inf')] * (len(grid[0]) - 1)\n    for r in grid:\n"
        "        for j, v in enumerate(r):\n            row[j] = v + min(row[j], row[j - 1] if j else row[j])\n"
        "    return row[-1]\n"
    ),
    "valid_parentheses": (
        "def isValid(s):\n    pairs = {')': '(', ']': '[', '}': '{'}\n    stack = []\n    for ch in s:\n"
        "        if ch in pairs:\n            if not stack or stack.pop() != pairs[ch]:\n                return False\n"
        "        else:\n            stack.append(ch)\n    return not stack\n"
    ),
}
WRONG = {
    "fib": "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2) if n < 20 else 0\n",
    "climb_stairs": "def climbStairs(n):\n    return n\n",
    "coin_change": "def coinChange(coins, amount):\n    return amount // max(coins) if coins else -1\n",
    "house_robber": "def rob(nums):\n    return max(sum(nums[0::2]), sum(nums[1::2]))\n",
    "lis": "def lengthOfLIS(nums):\n    return len(set(nums))\n",
    "lcs": "def longestCommonSubsequence(a, b):\n    return len(set(a) & set(b))\n",
    "min_cost_path": "def minPathSum(grid):\n    return sum(map(sum, grid))\n",
    "valid_parentheses": "def isValid(s):\n    return s.count('(') == s.count(')')\n",
}
CRASHING = "def {name}(*args):\n    return [][1]\n"
UNPARSABLE = "def {name}(*args)\n    return 0\n"


def program(problem: Any, index: int) -> tuple[str, bool]:
    """The index-th stored program for a problem: 60% correct, 25% wrong, 10% crashing, 5% not parsing."""
    slot = index % 20
    if slot < 12:
        return CORRECT[problem.id], True
    if slot < 17:
        return WRONG[problem.id], False
    if slot < 19:
        return CRASHING.format(name=problem.entry_point), False
    return UNPARSABLE.format(name=problem.entry_point), False


def seed(store: Store, n: int, title: str = "rescore bench") -> tuple[int, list[dict[str, Any]]]:
    """One finished run of n stored programs; returns its id and the trial rows."""
    problems = [p for p in load_internal30() if p.id in CORRECT]
    config = {"conditions": {"single-oneshot": resolve_condition("single-oneshot").model_dump()}}
    run_id = store.create_run("batch", f"{title}: {n} stored programs", config, benchmark="internal30", status="done")
    rows = []
    for i in range(n):
        problem = problems[i % len(problems)]
        code, ok = program(problem, i // len(problems))
        code += f"# stored program {i}\n"  # one job per trial: rescoring runs each distinct job once
        rows.append(
            {
                "run_id": run_id,
                "problem_id": problem.id,
                "benchmark": "internal30",
                "category": problem.category,
                "condition": "single-oneshot",
                "seed": i // len(problems),
                "trial_index": 0,
                "status": "done",
                "passed": ok,
                "tests_passed": len(problem.tests) if ok else 0,
                "tests_total": len(problem.tests),
                "error_class": None if ok else "wrong_answer",
                "test_source": "problem",
                "final_code": code,
                "finished_at": utcnow(),
            }
        )
    with bulk_writes(store) as bulk:
        bulk.insert(Trial, rows)
    return run_id, rows


def humaneval_program(task: dict[str, Any], index: int) -> str:
    """Half canonical, a quarter returning None, a quarter canonical without the prompt's imports."""
    import ast

    canonical = task["prompt"] + task["canonical_solution"]
    slot = index % 4
    if slot < 2:
        return canonical
    if slot == 2:
        return task["prompt"] + "    return None\n"
    tree = ast.parse(canonical)
    tree.body = [node for node in tree.body if not isinstance(node, ast.Import | ast.ImportFrom)]
    return ast.unparse(tree) + "\n"


def seed_humaneval(store: Store, n: int) -> int:
    """One finished single-oneshot run of n stored HumanEval programs (verdicts recorded as unknown-passed)."""
    from execugraph.benchmarks.humaneval import official_task

    config = {"conditions": {"single-oneshot": resolve_condition("single-oneshot").model_dump()}}
    run_id = store.create_run("batch", f"rescore bench: {n} HumanEval programs", config, benchmark="humaneval",
                              status="done")
    rows = []
    for i in range(n):
        task = official_task(f"HumanEval/{i % 164}")
        rows.append({
            "run_id": run_id, "problem_id": f"humaneval_{i % 164}", "benchmark": "humaneval",
            "category": "humaneval", "condition": "single-oneshot", "seed": i // 164, "trial_index": 0,
            "status": "done", "passed": True, "tests_passed": 1, "tests_total": 1, "test_source": "problem",
            "final_code": humaneval_program(task, i // 164 + i) + f"# stored program {i}\n", "finished_at": utcnow(),
        })
    with bulk_writes(store) as bulk:
        bulk.insert(Trial, rows)
    return run_id


def measure_protocols(store: Store, pool: Any, n: int) -> dict[str, Any]:
    """Rescore the same HumanEval run under each protocol on a warm pool: trials/s and passes for each."""
    run_id = seed_humaneval(store, n)
    warm = seed_humaneval(store, 164)
    for protocol in ("standalone", "with-prompt"):  # warm-up; it also calibrates every suite, once per machine
        rescore_run(store, warm, pool=pool, protocol=protocol)
    out = {}
    for protocol in ("standalone", "with-prompt"):
        started = time.perf_counter()
        report = rescore_run(store, run_id, pool=pool, protocol=protocol)
        seconds = time.perf_counter() - started
        out[protocol] = (report.rescored / seconds, report.passed_after, report.rescored, seconds)
    return out


def seed_best_of(store: Store, samples: int = 5, varied: int = 9, distinct_programs: bool = False) -> int:
    """A best-of-`samples` HumanEval run: each problem's samples are one program (canonical) but on the first
    `varied` problems, where the last sample returns None: 164 x 5 = 820 trials holding 173 distinct programs, as
    the paper's best-of-5 run. `distinct_programs` makes each differ by a comment, so every trial is its own job."""
    from execugraph.benchmarks.humaneval import official_task

    config = {"conditions": {"single-oneshot": resolve_condition("single-oneshot").model_dump()}}
    run_id = store.create_run("batch", f"rescore bench: best-of-{samples} HumanEval", config, benchmark="humaneval",
                              status="done")
    rows = []
    for i in range(164):
        task = official_task(f"HumanEval/{i}")
        for sample in range(samples):
            odd = i < varied and sample == samples - 1
            code = task["prompt"] + ("    return None\n" if odd else task["canonical_solution"])
            if distinct_programs:
                code += f"# sample {i}.{sample}\n"
            rows.append({
                "run_id": run_id, "problem_id": f"humaneval_{i}", "benchmark": "humaneval", "category": "humaneval",
                "condition": "single-oneshot", "seed": sample, "trial_index": 0, "status": "done",
                "passed": not odd, "tests_passed": 0 if odd else 1, "tests_total": 1,
                "error_class": "wrong_answer" if odd else None, "test_source": "problem", "final_code": code,
                "finished_at": utcnow(),
            })
    with bulk_writes(store) as bulk:
        bulk.insert(Trial, rows)
    return run_id


def measure_repeats(store: Store, pool: Any, rounds: int) -> None:
    """Rescore the best-of-5 run (each distinct job once) and its every-program-distinct twin, interleaved; print
    the best time of each, the jobs run and the ratio; the verdicts must be the same trial for trial."""
    rescore_run(store, seed_humaneval(store, 164), pool=pool)  # warm-up: calibrates every suite, once per machine
    repeated, each = seed_best_of(store), seed_best_of(store, distinct_programs=True)
    times: dict[int, list[float]] = {repeated: [], each: []}
    reports = {}
    for _ in range(rounds):
        for run_id in (each, repeated):
            started = time.perf_counter()
            reports[run_id] = rescore_run(store, run_id, pool=pool)
            times[run_id].append(time.perf_counter() - started)
    verdicts = {run_id: [(t.problem_id, t.seed, t.passed, t.error_class, t.tests_passed, t.tests_total)
                         for t in sorted(store.trials_for_run(r.run_id), key=lambda t: (t.problem_id, t.seed))]
                for run_id, r in reports.items()}
    same = verdicts[repeated] == verdicts[each]
    one, every = reports[repeated], reports[each]
    print(f"best-of-5 HumanEval run, standalone, end to end, best of {rounds}: {one.rescored} programs, "
          f"{one.distinct_jobs} distinct jobs run in {min(times[repeated]):.2f} s; the same programs each made "
          f"distinct (every trial runs, as before): {every.jobs_run} jobs in {min(times[each]):.2f} s")
    print(f"ratio every trial / each distinct job once: {min(times[each]) / min(times[repeated]):.2f}x faster; "
          f"verdicts the same trial for trial: {same} ({one.passed_after}/{one.rescored} pass)")
    assert same, "verdicts differ between running each distinct job once and running every trial"


CHILD = r"""
import json, sys
job = json.loads(sys.stdin.read())
ns = {"__name__": "__candidate__"}
try:
    exec(compile(job["code"], "<candidate>", "exec"), ns)
    out = {"ok": True, "value": eval(job["expr"], ns)}
    text = json.dumps(out)
except BaseException as exc:
    text = json.dumps({"ok": False, "error": type(exc).__name__})
sys.stdout.write(text)
"""


def _limit_memory(mb: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))


def fresh_test(code: str, test: dict[str, Any], timeout_s: float = 5.0, memory_mb: int = 512) -> bool:
    """One test case in its own fresh isolated interpreter, as the reference sandbox does."""
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", CHILD],
            input=json.dumps({"code": code, "expr": test["expr"]}),
            capture_output=True,
            text=True,
            timeout=timeout_s,
            preexec_fn=lambda: _limit_memory(memory_mb + 256),
            env={},
        )
        out = json.loads(done.stdout or "{}")
    except (subprocess.TimeoutExpired, json.JSONDecodeError):
        return False
    return bool(out.get("ok")) and out.get("value") == json.loads(json.dumps(test["expected"]))


def fresh_trial(code: str, problem: Any) -> bool:
    return all([fresh_test(code, t) for t in problem.tests])  # every test runs, like the reference


def measure_fresh(sample: list[dict[str, Any]], problems: dict[str, Any], workers: int) -> tuple[float, list[bool]]:
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        verdicts = list(pool.map(lambda row: fresh_trial(row["final_code"], problems[row["problem_id"]]), sample))
    return time.perf_counter() - started, verdicts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--sample", type=int, default=60, help="trials the fresh-interpreter approach runs")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="sandbox workers for ours")
    parser.add_argument("--humaneval-trials", type=int, default=328, help="HumanEval programs for the protocol rates")
    parser.add_argument("--best-of-rounds", type=int, default=2, help="rounds of the repeated-programs comparison "
                        "(0: skip it)")
    args = parser.parse_args()
    from sandbox import SandboxPool

    problems = {p.id: p for p in load_internal30() if p.id in CORRECT}
    with tempfile.TemporaryDirectory() as tmp, Store.open(str(Path(tmp) / "bench.db")) as store:
        warm_id, _ = seed(store, 32, "warm-up")
        run_id, rows = seed(store, args.trials)
        tests = sum(len(problems[r["problem_id"]].tests) for r in rows)
        print(
            f"machine: {os.cpu_count()} cores, 1-minute load average {os.getloadavg()[0]:.1f} at the start "
            "(other processes competing for the cores slow both approaches)"
        )
        print(
            f"{args.trials} stored programs of {len(problems)} internal-30 problems, {tests} test cases "
            f"({tests / args.trials:.1f} per trial); 60% correct, 25% wrong answer, 10% crash, 5% syntax error"
        )
        started = time.perf_counter()
        pool = SandboxPool(args.workers)
        pool_start = time.perf_counter() - started
        try:
            rescore_run(store, warm_id, pool=pool)  # warm-up: imports, loaders, first forks
            started = time.perf_counter()
            report = rescore_run(store, run_id, pool=pool)
            ours_s = time.perf_counter() - started
            protocols = measure_protocols(store, pool, args.humaneval_trials) if args.humaneval_trials else {}
            if args.best_of_rounds:
                measure_repeats(store, pool, args.best_of_rounds)
        finally:
            pool.close()
        ours = report.rescored / ours_s
        assert report.rescored == args.trials and report.agree == args.trials, report.to_dict()["flips"][:3]
        print(
            f"ours: warm SandboxPool x{args.workers}, batched run_many, end to end (read, run, write the child run): "
            f"{report.rescored} trials in {ours_s:.2f} s = {ours:.1f} trials/s "
            f"(sandbox execution alone {report.rescored / report.duration_s:.1f}/s; pool start {pool_start:.2f} s, "
            f"paid once, not included); agreement with stored verdicts {report.agree}/{report.rescored}"
        )

        for protocol, (rate, passed_n, total, seconds) in protocols.items():
            print(
                f"grading protocol {protocol}: {total} stored HumanEval programs rescored end to end in {seconds:.2f} s "
                f"= {rate:.1f} trials/s ({passed_n} pass)"
            )
        if len(protocols) == 2:
            ratio = protocols["with-prompt"][0] / protocols["standalone"][0]
            print(f"ratio with-prompt / standalone: {ratio:.2f}x (the prompt runs in every candidate module)")

        sample = [rows[i] for i in sorted(random.Random(0).sample(range(len(rows)), min(args.sample, len(rows))))]
        sample_tests = sum(len(problems[r["problem_id"]].tests) for r in sample)
        results = {}
        for workers in sorted({1, args.workers}):
            seconds, verdicts = measure_fresh(sample, problems, workers)
            rate = len(sample) / seconds
            results[workers] = rate
            agree = sum(v == r["passed"] for v, r in zip(verdicts, sample, strict=True))
            print(
                f"fresh `python -I -S` per test case, {workers} worker(s): measured on a sample of {len(sample)} "
                f"trials ({sample_tests} test cases, {seconds / sample_tests * 1000:.1f} ms each) in {seconds:.2f} s "
                f"= {rate:.2f} trials/s; extrapolated to {args.trials} trials: {args.trials / rate:.0f} s; "
                f"verdicts agree with the stored ones on {agree}/{len(sample)}"
            )
        print(f"ratio ours / fresh, 1 worker: {ours / results[1]:.1f}x")
        if args.workers != 1:
            print(f"ratio ours / fresh, {args.workers} workers each: {ours / results[args.workers]:.1f}x")
        print(f"1-minute load average at the end: {os.getloadavg()[0]:.1f}")
        verdict = "met" if ours >= TARGET else "NOT met"
        print(f"target >= {TARGET:.0f} trials/s (10x the published {PUBLISHED_ONE_WORKER}/s): {verdict} ({ours:.1f}/s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
