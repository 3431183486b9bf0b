"""Statistics speed: the report over a 56-run family (756 pairs) before and after vectorising, side by side.

Builds plain trial records for 56 runs (HumanEval-sized and internal-30-sized arms,
four conditions, 1 or 5 trials per problem, seeded) and writes them into a temporary
SQLite store (written by the older code; the newer one migrates it on opening), then times, in fresh
processes one after the other:

- "before": the code of BEFORE_REV (the last commit before the report's tests were
  computed all at once), extracted with `git archive` into a temporary folder, or the
  `execugraph` package under `--before DIR` (say `git archive HEAD execugraph | tar -x -C DIR`,
  to compare with the last commit while other work in the checkout changes the report);
- "after": this checkout.

Each side builds the report through `build_report` (the store path the Statistics page
and `stats` take) and through `build_report_from_records`, once cold and then `--repeats`
times warm (the figure a page rerun sees), and prints CPU and wall seconds (best warm
run), the ratio before / after, and the sha256 of the report's JSON: both sides must give
the same bytes (exit 1 otherwise). The load average is printed beside the figures.
`--profile` prints the after side's top functions (cProfile, warm).

    .venv/bin/python bench/statistics_speed.py [--runs 56] [--seed 0] [--repeats 3] [--before-rev REV | --before DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BEFORE_REV = "a37bf53"  # last commit whose report ran one signed-rank test, t-interval and mean at a time


def family(runs: int, seed: int) -> list[dict[str, Any]]:
    """Trial records of `runs` runs: odd runs on 164 problems x 1 trial, even ones on 30 x 5."""
    rng = random.Random(seed)
    conditions = ["single-oneshot", "single-retry", "multi-full", "multi-no-planner"]
    records = []
    for r in range(1, runs + 1):
        bench = "humaneval" if r % 2 else "internal30"
        problems, trials = (164, 1) if bench == "humaneval" else (30, 5)
        skill = rng.uniform(0.4, 0.9)
        for p in range(problems):
            for t in range(trials):
                records.append({
                    "run_id": str(r), "problem_id": f"{bench}_{p}", "category": f"c{p % 5}",
                    "condition": conditions[r % 4], "seed": t, "trial_index": 0, "passed": rng.random() < skill,
                    "benchmark": bench, "tokens_in": rng.randint(100, 4000), "tokens_out": rng.randint(50, 500),
                    "llm_calls": rng.randint(1, 9), "wallclock_s": rng.uniform(1, 60),
                })
    return records


def write_store(db: Path, records: list[dict[str, Any]]) -> list[str]:
    """The records as finished trials of one finished batch run per run id (ids in order); returns the store ids."""
    from execugraph.store import Store
    from execugraph.store.bulk_insert import bulk_writes
    from execugraph.store.models import Trial

    by_run: dict[str, list[dict[str, Any]]] = {}
    for rec in records:
        by_run.setdefault(rec["run_id"], []).append(rec)
    ids = []
    with Store.open(str(db)) as store:
        for run, recs in by_run.items():
            condition = recs[0]["condition"]
            new = store.create_run("batch", f"run {run}", {"conditions": [condition]}, benchmark=recs[0]["benchmark"],
                                   status="done")
            rows = [{
                "run_id": new, "problem_id": r["problem_id"], "benchmark": r["benchmark"], "category": r["category"],
                "condition": r["condition"], "seed": r["seed"], "trial_index": r["trial_index"], "status": "done",
                "passed": r["passed"], "tokens_in": r["tokens_in"], "tokens_out": r["tokens_out"],
                "llm_calls": r["llm_calls"], "wallclock_s": r["wallclock_s"], "retries_used": 0,
            } for r in recs]
            with bulk_writes(store) as bulk:
                bulk.insert(Trial, rows)
            ids.append(str(new))
    return ids


def worker(args: argparse.Namespace) -> int:
    """One side: time both entry points on the code first on sys.path, print one JSON line."""
    import cProfile
    import hashlib
    import pstats
    import time

    sys.path.insert(0, args.code)
    if args.write:  # with the older code, so the newer one opens the store by migrating it forward
        print(json.dumps(write_store(Path(args.db), family(args.runs, args.seed))))
        return 0
    from execugraph.stats import build_report, build_report_from_records
    from execugraph.store import Store

    records = family(args.runs, args.seed)
    run_ids = sorted({r["run_id"] for r in records}, key=int)
    out: dict[str, Any] = {"code": args.code}
    with Store.open(args.db) as store:
        entries = {"store": lambda: build_report(store, args.store_ids.split(",")),
                   "records": lambda: build_report_from_records(records, run_ids)}
        for name, build in entries.items():
            timings = []
            for _ in range(1 + args.repeats):
                cpu, wall = time.process_time(), time.perf_counter()
                report = build()
                timings.append((time.process_time() - cpu, time.perf_counter() - wall))
            warm = min(timings[1:])
            body = report.model_dump_json()
            out["pairs"] = len(report.pairs)
            out[name] = {"cold_cpu": timings[0][0], "cold_wall": timings[0][1], "warm_cpu": warm[0],
                         "warm_wall": min(t[1] for t in timings[1:]), "sha256": hashlib.sha256(body.encode()).hexdigest()}
        if args.profile:
            profile = cProfile.Profile()
            profile.enable()
            entries["store"]()
            profile.disable()
            pstats.Stats(profile, stream=sys.stderr).sort_stats("tottime").print_stats(15)
    print(json.dumps(out))
    return 0


def side(code: str, db: Path, store_ids: list[str], args: argparse.Namespace, profile: bool) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--worker", "--code", code, "--db", str(db), "--store-ids", ",".join(store_ids),
           "--runs", str(args.runs), "--seed", str(args.seed), "--repeats", str(args.repeats)]
    done = subprocess.run(cmd + (["--profile"] if profile else []), capture_output=True, text=True, check=False,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": code})
    if done.returncode != 0:
        raise SystemExit(f"{code}: worker failed:\n{done.stderr[-3000:]}")
    if profile:
        print(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=56)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3, help="warm builds per side (the best is reported)")
    parser.add_argument("--before-rev", default=BEFORE_REV)
    parser.add_argument("--before", type=Path, help="a folder holding the before side's execugraph package "
                        "(instead of --before-rev)")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--code", help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    parser.add_argument("--store-ids", help=argparse.SUPPRESS)
    parser.add_argument("--write", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    if args.before is not None and not (args.before / "execugraph" / "__init__.py").is_file():
        raise SystemExit(f"--before {args.before}: no execugraph package in that folder")
    with tempfile.TemporaryDirectory() as tmp:
        if args.before is not None:
            before = args.before.resolve()
        else:
            before = Path(tmp) / "before"
            before.mkdir()
            archive = subprocess.run(["git", "archive", args.before_rev, "execugraph"], cwd=ROOT, capture_output=True,
                                     check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(before)], input=archive, check=True)
        db = Path(tmp) / "runs.db"
        written = subprocess.run([sys.executable, __file__, "--worker", "--write", "--code", str(before), "--db", str(db),
                                  "--runs", str(args.runs), "--seed", str(args.seed)], capture_output=True, text=True,
                                 check=False, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(before)})
        if written.returncode != 0:
            raise SystemExit(f"writing the store failed:\n{written.stderr[-3000:]}")
        store_ids = json.loads(written.stdout.strip().splitlines()[-1])
        load = os.getloadavg()
        old = side(str(before), db, store_ids, args, profile=False)
        new = side(str(ROOT), db, store_ids, args, profile=args.profile)
        load_after = os.getloadavg()
    print(f"{args.runs} runs, {new['pairs']:,} pairs; before = {args.before or args.before_rev}, after = this checkout; "
          f"load average {load[0]:.1f} before, {load_after[0]:.1f} after")
    same = True
    for name, what in (("store", "build_report (store)"), ("records", "build_report_from_records")):
        o, n = old[name], new[name]
        print(f"{what}: warm CPU {o['warm_cpu']:.3f} s -> {n['warm_cpu']:.3f} s "
              f"({o['warm_cpu'] / max(n['warm_cpu'], 1e-9):.1f}x), wall {o['warm_wall']:.3f} s -> {n['warm_wall']:.3f} s "
              f"({o['warm_wall'] / max(n['warm_wall'], 1e-9):.1f}x); cold CPU {o['cold_cpu']:.2f} s -> "
              f"{n['cold_cpu']:.2f} s; report bytes {'identical' if o['sha256'] == n['sha256'] else 'DIFFER'}")
        same = same and o["sha256"] == n["sha256"]
    met = "met" if new["store"]["warm_cpu"] < 0.5 else "not met here"
    print(f"target: build_report warm under 0.5 s on a quiet machine; here {new['store']['warm_cpu']:.3f} s CPU at "
          f"load {load_after[0]:.1f} ({met}; CPU time too grows with the load, wall far more)")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
