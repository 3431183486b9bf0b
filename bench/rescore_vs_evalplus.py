"""Re-judging side by side with EvalPlus: our `rescore` CLI against `evalplus.evaluate` on the same 820 programs.

The corpus is a best-of-5 HumanEval run shaped as the paper's: 164 problems x 5 samples = 820 programs holding
173 distinct ones. Each problem's main program is its canonical solution or, on every fifth problem, a mutant
(standins/humaneval_mutants.py: off-by-one, flipped comparison, None returned, dropped import, broken helper);
on 9 problems the fifth sample is another program; humaneval_129's five samples are an exponential path search
(the paper's run held one), which runs out of time on the larger inputs.

Side by side in one run, each command end to end as a subprocess (interpreter start, imports, reading, judging,
writing its results), the per-machine caches of both warmed first (EvalPlus's ground truth; our calibrations
and HumanEval+ expected outputs) and the runs interleaved:

(a) `python -m execugraph rescore --grading-protocol standalone` on a fresh store holding the run, against
    `evalplus.evaluate --dataset humaneval --base_only --parallel 2` on the same programs in EvalPlus's own
    samples.jsonl layout (`{"task_id", "solution"}`, a solution run as it is);
(b) `rescore --suite plus` (HumanEval+ from data/evalplus) against `evalplus.evaluate` with its plus tests.

Prints the seconds of each, the ratio EvalPlus / ours, the CPU per program (user + system of the command and
every process it started), the peak memory (the process tree's summed PSS, sampled every 0.25 s) and the
verdicts agreeing program by program, with the 1-minute load average. EvalPlus 0.3.1 is installed from PyPI
into its own virtualenv by `bench/evalplus_agreement.py` (once). Targets: (a) 4x or more, (b) 1x or more.

    .venv/bin/python bench/rescore_vs_evalplus.py [--venv /tmp/evalplus-venv] [--rounds 1] [--workers 2]
        [--only base|plus] [--skip-warm]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evalplus_agreement import _venv  # noqa: E402  (bench/ is on sys.path when a bench script runs)

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"base": 4.0, "plus": 1.0}
SAMPLES = 5
VARIED = range(0, 162, 18)  # the 9 problems whose fifth sample is another program: 164 + 9 = 173 distinct
EXPONENTIAL = 129
SLOW_MIN_PATH = '''
def minPath(grid, k):
    """Every path of length k from every cell, the smallest kept: exponential in k."""
    n = len(grid)
    best = None

    def walk(i, j, path):
        nonlocal best
        path = path + [grid[i][j]]
        if len(path) == k:
            if best is None or path < best:
                best = path
            return
        for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            a, b = i + di, j + dj
            if 0 <= a < n and 0 <= b < n:
                walk(a, b, path)

    for i in range(n):
        for j in range(n):
            walk(i, j, [])
    return best
'''


def paper_shaped() -> list[tuple[int, str]]:
    """(task number, program) for the 820 samples, task by task, sample by sample."""
    from standins.humaneval_mutants import corpus

    by_task: dict[int, list] = {}
    for program in corpus():
        by_task.setdefault(program.task, []).append(program)
    out = []
    for task in range(164):
        programs = by_task[task]
        canonical, mutants = programs[0].code, [p.code for p in programs[1:]]
        main = mutants[task % len(mutants)] if task % 5 == 4 and mutants else canonical
        if task == EXPONENTIAL:
            main = SLOW_MIN_PATH.lstrip()
        other = canonical if main != canonical else (mutants[0] if mutants else canonical + "# another sample\n")
        for sample in range(SAMPLES):
            varied = task in VARIED and sample == SAMPLES - 1
            out.append((task, other if varied else main))
    return out


def seed_store(db: Path, programs: list[tuple[int, str]]) -> int:
    """A fresh store holding one finished single-oneshot HumanEval run of the programs; returns its id."""
    from execugraph.configuration.conditions import resolve_condition
    from execugraph.store import Store, Trial, utcnow
    from execugraph.store.bulk_insert import bulk_writes

    config = {"conditions": {"single-oneshot": resolve_condition("single-oneshot").model_dump()}}
    with Store.open(str(db)) as store:
        run_id = store.create_run("batch", f"best-of-{SAMPLES} HumanEval, {len(programs)} programs", config,
                                  benchmark="humaneval", status="done")
        rows = [{
            "run_id": run_id, "problem_id": f"humaneval_{task}", "benchmark": "humaneval", "category": "humaneval",
            "condition": "single-oneshot", "seed": n % SAMPLES, "trial_index": 0, "status": "done", "passed": True,
            "tests_passed": 1, "tests_total": 1, "test_source": "problem", "final_code": code,
            "finished_at": utcnow(),
        } for n, (task, code) in enumerate(programs)]
        with bulk_writes(store) as bulk:
            bulk.insert(Trial, rows)
    return run_id


@dataclass
class Timed:
    """One command end to end: wall seconds, CPU seconds of it and its descendants, peak summed PSS (bytes)."""

    seconds: float
    cpu_s: float
    peak_bytes: int
    stdout: str


def _tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as fh:
                    parent = int(fh.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(parent, []).append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def _pss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def timed(command: list[str], env: dict[str, str], cwd: Path) -> Timed:
    """Run `command` to the end, sampling its process tree's summed PSS; raise with its stderr when it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak, done = [0], threading.Event()

    def sample() -> None:
        while not done.wait(0.25):
            peak[0] = max(peak[0], sum(_pss(pid) for pid in _tree(proc.pid)))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:4])} ... exited {proc.returncode}: {err[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timed(seconds, cpu, peak[0], out)


def ours(db: Path, run_id: int, suite: str, workers: int, env: dict[str, str]) -> tuple[Timed, list[bool]]:
    """`rescore` through the real CLI; the child run's verdicts in the parent's trial order."""
    command = [sys.executable, "-m", "execugraph", "rescore", "--db", str(db), "--run", str(run_id),
               "--grading-protocol", "standalone", "--workers", str(workers), "--json"]
    if suite == "plus":
        command += ["--suite", "plus"]
    result = timed(command, env, ROOT)
    child = json.loads(result.stdout.strip().splitlines()[-1])["run_id"]
    from execugraph.store import Store

    with Store.open(str(db)) as store:
        key = {(t.problem_id, t.seed): t.passed for t in store.trials_for_run(child)}
        order = [(t.problem_id, t.seed) for t in sorted(store.trials_for_run(run_id), key=lambda t: t.id)]
    return result, [bool(key[k]) for k in order]


def theirs(python: Path, programs: list[tuple[int, str]], folder: Path, suite: str, workers: int,
           env: dict[str, str]) -> tuple[Timed, list[bool]]:
    """`evalplus.evaluate` on a fresh samples.jsonl; its verdicts in sample order (plus: base and plus both pass)."""
    folder.mkdir()
    samples = folder / "samples.jsonl"
    samples.write_text("".join(json.dumps({"task_id": f"HumanEval/{t}", "solution": c}) + "\n" for t, c in programs),
                       encoding="utf-8")
    command = [str(python.parent / "evalplus.evaluate"), "--dataset", "humaneval", "--samples", str(samples),
               "--parallel", str(workers)]
    if suite == "base":
        command.append("--base_only")
    result = timed(command, env, folder)
    results = json.loads((folder / "samples_eval_results.json").read_text())["eval"]
    seen: dict[int, int] = {}
    verdicts = []
    for task, _code in programs:
        index = seen.get(task, 0)
        seen[task] = index + 1
        row = results[f"HumanEval/{task}"][index]
        verdicts.append(row["base_status"] == "pass" and (suite == "base" or row["plus_status"] == "pass"))
    return result, verdicts


def warm(python: Path, env: dict[str, str], workers: int, folder: Path) -> None:
    """The per-machine caches both sides keep, filled before any timing: EvalPlus's ground truth, and our
    calibrations and HumanEval+ expected outputs (a rescore of the 164 canonical programs, base and plus)."""
    probe = ("from evalplus.data import get_human_eval_plus, get_human_eval_plus_hash; "
             "from evalplus.evaluate import get_groundtruth; "
             "get_groundtruth(get_human_eval_plus(), get_human_eval_plus_hash(), [])")
    subprocess.run([str(python), "-c", probe], env=env, cwd=folder, check=True, capture_output=True)
    from execugraph.benchmarks.humaneval import official_task

    canonical = [(t, official_task(f"HumanEval/{t}")["prompt"] + official_task(f"HumanEval/{t}")["canonical_solution"])
                 for t in range(164)]
    db = folder / "warm.db"
    run_id = seed_store(db, canonical)
    for suite in ("base", "plus"):
        ours(db, run_id, suite, workers, env)


def _mb(n: int) -> str:
    return f"{n / 2**20:.0f} MB"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=Path("/tmp/evalplus-venv"))
    parser.add_argument("--rounds", type=int, default=1, help="interleaved rounds; the best time of each is kept")
    parser.add_argument("--workers", type=int, default=2, help="our sandbox workers and EvalPlus's --parallel")
    parser.add_argument("--only", choices=["base", "plus"])
    parser.add_argument("--skip-warm", action="store_true", help="the caches are known to be warm (a run just before)")
    args = parser.parse_args()
    python = _venv(args.venv)
    programs = paper_shaped()
    distinct = len(set(programs))
    suites = [args.only] if args.only else ["base", "plus"]
    with tempfile.TemporaryDirectory(prefix="rescore-vs-evalplus-") as tmp:
        folder = Path(tmp)
        plain = folder / "HumanEvalPlus.jsonl"
        with gzip.open(ROOT / "data" / "evalplus" / "HumanEvalPlus.jsonl.gz", "rt", encoding="utf-8") as fh:
            plain.write_text(fh.read(), encoding="utf-8")
        env = os.environ | {"HUMANEVAL_OVERRIDE_PATH": str(plain), "TQDM_DISABLE": "1", "PYTHONUNBUFFERED": "1"}
        print(f"machine: {os.cpu_count()} cores; 1-minute load average {os.getloadavg()[0]:.2f} at the start")
        print(f"corpus: {len(programs)} best-of-{SAMPLES} HumanEval programs, {distinct} distinct; "
              f"both sides with {args.workers} workers")
        if not args.skip_warm:
            started = time.perf_counter()
            warm(python, env, args.workers, folder)
            print(f"caches warmed in {time.perf_counter() - started:.1f} s (not timed); "
                  f"load average {os.getloadavg()[0]:.2f}", flush=True)
        best: dict[tuple[str, str], Timed] = {}
        verdicts: dict[tuple[str, str], list[bool]] = {}
        loads = []
        for round_ in range(args.rounds):
            for suite in suites:
                db = folder / f"{suite}-{round_}.db"
                run_id = seed_store(db, programs)
                for side in ("ours", "evalplus"):
                    loads.append(os.getloadavg()[0])
                    if side == "ours":
                        result, said = ours(db, run_id, suite, args.workers, env)
                    else:
                        result, said = theirs(python, programs, folder / f"ep-{suite}-{round_}", suite, args.workers,
                                              env)
                    key = (suite, side)
                    if key not in best or result.seconds < best[key].seconds:
                        best[key] = result
                    verdicts[key] = said
                    print(f"  round {round_ + 1} {suite} {side}: {result.seconds:.2f} s "
                          f"(load {os.getloadavg()[0]:.2f})", flush=True)
        loads.append(os.getloadavg()[0])
        n = len(programs)
        for suite in suites:
            a, b = best[(suite, "ours")], best[(suite, "evalplus")]
            agree = sum(x == y for x, y in zip(verdicts[(suite, "ours")], verdicts[(suite, "evalplus")], strict=True))
            what = ("(a) rescore --grading-protocol standalone vs evalplus.evaluate --base_only" if suite == "base"
                    else "(b) rescore --suite plus vs evalplus.evaluate (base + plus tests)")
            ratio = b.seconds / a.seconds
            print(f"{what}, best of {args.rounds}:")
            print(f"  ours {a.seconds:.2f} s, {a.cpu_s / n * 1000:.1f} ms CPU per program, peak {_mb(a.peak_bytes)}; "
                  f"EvalPlus {b.seconds:.2f} s, {b.cpu_s / n * 1000:.1f} ms CPU per program, peak {_mb(b.peak_bytes)}")
            print(f"  passes: ours {sum(verdicts[(suite, 'ours')])}, EvalPlus {sum(verdicts[(suite, 'evalplus')])}; "
                  f"verdicts agree on {agree}/{n}")
            differ = sorted({f"{t}: ours {'pass' if x else 'fail'}, EvalPlus {'pass' if y else 'fail'}"
                             for (t, _c), x, y in zip(programs, verdicts[(suite, "ours")],
                                                      verdicts[(suite, "evalplus")], strict=True) if x != y})
            if differ:
                print(f"  programs judged differently (HumanEval/N): {'; '.join(differ)}")
            status = "met" if ratio >= TARGETS[suite] else "NOT met"
            print(f"  ratio EvalPlus / ours: {ratio:.2f}x (target >= {TARGETS[suite]:.0f}x: {status})")
        print(f"1-minute load average during the timed runs: {min(loads):.2f}-{max(loads):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
