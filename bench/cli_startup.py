"""CLI start-up: `python -m execugraph status` (and `--help`) against `python -c "import sqlalchemy"`, side by side.

Target (issue 42): `status` on a fresh database within 2x the time of importing SQLAlchemy, the
floor of any command that reads the store; also timed on a store of 20 finished batches (50 trials each). Each round runs every command once in turn, so load
from other work falls on all of them alike; the figures are medians over `--rounds`, and the
ratios are of those medians: wall-clock (what a user waits) and CPU (user + system of the child,
which other work on a shared machine disturbs less). `--importtime` also prints the slowest imports
of `status`.

    .venv/bin/python bench/cli_startup.py [--rounds 15] [--importtime]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 2.0  # status within this many times `import sqlalchemy`


def finished_batches(db: Path, runs: int = 20, trials: int = 50) -> None:
    """A store holding `runs` finished batch runs of `trials` graded trials each (what `status` lists)."""
    sys.path.insert(0, str(ROOT))
    from execugraph.store import Store

    with Store.open(str(db)) as store:
        for r in range(runs):
            run = store.create_run("batch", f"batch {r}", {"batch": {"concurrency": 2}}, status="done")
            for t in range(trials):
                trial = store.create_trial(run, f"p{t}", "single-oneshot", 0, 0, status="done")
                store.update_trial(trial, passed=t % 3 != 0, wallclock_s=1.0 + t % 7)


def commands(python: str, filled: Path) -> dict[str, list[str]]:
    """What is timed, by label: the floor first; `from execugraph.store import Store` is what a command reading
    the store through the ORM pays before its own work (the tables, SQLModel, pydantic), and what `status` no longer
    pays (it reads through `execugraph.store.status_view`, SQLAlchemy Core only)."""
    return {
        "import sqlalchemy": [python, "-c", "import sqlalchemy"],
        "from execugraph.store import Store": [python, "-c", "from execugraph.store import Store"],
        "python -m execugraph status": [python, "-m", "execugraph", "status"],
        "status, 20 finished batches": [python, "-m", "execugraph", "--db", str(filled), "status"],
        "python -m execugraph --help": [python, "-m", "execugraph", "--help"],
        "python -c pass": [python, "-c", "pass"],
    }


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user + system) of one run (it must succeed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def slowest_imports(python: str, env: dict[str, str], top: int = 15) -> list[str]:
    """The `-X importtime` lines of `status` with the largest cumulative times."""
    done = subprocess.run([python, "-X", "importtime", "-m", "execugraph", "status"], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=True)
    rows = []
    for line in done.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    return [f"{us / 1000:8.1f} ms {name}" for us, name in sorted(rows, reverse=True)[:top]]


def main() -> int:
    """Time every command `--rounds` times, interleaved; print medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--importtime", action="store_true", help="also print the slowest imports of `status`")
    args = parser.parse_args()
    python = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        env = os.environ | {"EXECUGRAPH_DB": str(Path(tmp) / "runs.db"), "PYTHONDONTWRITEBYTECODE": "0"}
        filled = Path(tmp) / "filled.db"
        finished_batches(filled)
        runs = commands(python, filled)
        for argv in runs.values():  # warm-up: bytecode caches, the database file, the page cache
            timed(argv, env)
        times: dict[str, list[float]] = {label: [] for label in runs}
        cpu: dict[str, list[float]] = {label: [] for label in runs}
        for _ in range(args.rounds):
            for label, argv in runs.items():
                wall, used = timed(argv, env)
                times[label].append(wall)
                cpu[label].append(used)
        if args.importtime:
            print("slowest imports of `status` (cumulative):")
            print("\n".join(slowest_imports(python, env)))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    floor, cpu_floor = statistics.median(times["import sqlalchemy"]), statistics.median(cpu["import sqlalchemy"])
    print(f"{args.rounds} rounds, interleaved, load average {load:.1f} on {os.cpu_count()} cores; medians:")
    for label, values in times.items():
        median, used = statistics.median(values), statistics.median(cpu[label])
        print(f"  {label:<36} wall {median * 1000:6.0f} ms ({median / floor:.2f}x; min {min(values) * 1000:.0f}, "
              f"max {max(values) * 1000:.0f})  CPU {used * 1000:6.0f} ms ({used / cpu_floor:.2f}x)")
    ratio = statistics.median(times["python -m execugraph status"]) / floor
    cpu_ratio = statistics.median(cpu["python -m execugraph status"]) / cpu_floor
    verdict = "met" if ratio <= TARGET else "NOT met"
    print(f"status / import sqlalchemy: {ratio:.2f}x wall-clock, {cpu_ratio:.2f}x CPU (target <= {TARGET:.1f}x wall: "
          f"{verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
