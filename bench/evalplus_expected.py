"""How long computing every HumanEval+/MBPP+ expected output takes (each canonical solution run once in the sandbox).

Usage: .venv/bin/python bench/evalplus_expected.py [--only humaneval-plus|mbpp-plus] [--workers N] [--cache DIR]
    [--check-references]
Without --cache a fresh temporary cache is used, so every task is computed (the cold figure); a second pass over
the same cache is timed too (the warm figure: reading the cached outputs and building the plus tests).
Prints seconds per benchmark, tasks per second and the 1-minute load average at the end of each figure.
`--check-references` then grades every canonical solution on its own plus tests (standalone and with-prompt)
and prints how many pass (all should: a failure is a comparison that disagrees with EvalPlus's).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["humaneval-plus", "mbpp-plus"])
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--check-references", action="store_true")
    args = parser.parse_args()
    folder = args.cache or Path(tempfile.mkdtemp(prefix="evalplus-cache-"))
    os.environ["EXECUGRAPH_CACHE_DIR"] = str(folder)

    from execugraph.benchmarks.evalplus import load_humaneval_plus, load_mbpp_plus, with_expected
    from sandbox import SandboxPool

    loaders = {"humaneval-plus": load_humaneval_plus, "mbpp-plus": load_mbpp_plus}
    names = [args.only] if args.only else list(loaders)
    with SandboxPool(args.workers) as pool:
        for name in names:
            for label in ("cold", "warm"):
                problems = loaders[name]()
                started = time.perf_counter()
                ready = with_expected(problems, pool)
                took = time.perf_counter() - started
                tests = sum(sum(1 for t in p.tests if t.get("set") == "plus") for p in ready)
                print(f"{name} {label}: {len(ready)} problems, {tests} plus tests, {took:.1f} s "
                      f"({len(ready) / took:.1f} problems/s), load average {os.getloadavg()[0]:.2f}", flush=True)
            if args.check_references:
                _check_references(pool, name, ready)
    print(f"cache: {folder}")
    return 0


def _check_references(pool, name: str, problems: list) -> None:
    from execugraph.benchmarks.evalplus import set_tests
    from execugraph.grading.rules import build_suite
    from sandbox import Limits

    for protocol in ("standalone", "with-prompt"):
        started = time.perf_counter()
        jobs = [(p.reference, build_suite(p, set_tests(p, "plus"), protocol), Limits(timeout_s=60, memory_mb=4096))
                for p in problems]
        results = pool.run_many(jobs)
        failed = [(p.id, r.verdict, next((t.got[:160] for t in r.tests if not t.passed), ""))
                  for p, r in zip(problems, results, strict=True) if not r.passed]
        print(f"{name} references on their plus tests ({protocol}): {len(problems) - len(failed)}/{len(problems)} "
              f"pass, {time.perf_counter() - started:.1f} s, load average {os.getloadavg()[0]:.2f}", flush=True)
        for item in failed[:20]:
            print("  failed:", *item, flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
