"""Our built-in HumanEval+ verdicts against EvalPlus's own evaluator, program by program.

Usage: .venv/bin/python bench/evalplus_agreement.py [--venv /tmp/evalplus-venv] [--workers N] [--programs FILE]
Installs `evalplus` from PyPI into its own virtualenv (once), points it at the vendored HumanEvalPlus file
(EvalPlus reads HUMANEVAL_OVERRIDE_PATH), and grades the same corpus both ways: every canonical solution, the
hand-written programs of data/amplify/humaneval_programs.json, a few programs right on HumanEval's tests and
wrong on plus inputs, and `--programs` (JSONL `{"task_id": "HumanEval/N", "solution": ...}`, e.g. a run's programs).
EvalPlus's plus verdict is base and plus both "pass"; ours is the `plus` set passing under `standalone`
(EvalPlus runs a `solution` as it is). Prints agreement counts and every disagreement.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ROOT = Path(__file__).resolve().parent.parent
EXTRA = {  # right on HumanEval's own tests, wrong on some plus input
    "HumanEval/0": "def has_close_elements(numbers, threshold):\n    return any(abs(a - b) <= threshold for i, a in "
                   "enumerate(numbers) for b in numbers[i + 1:])\n",
}


def _venv(path: Path) -> Path:
    python = path / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    probe = subprocess.run([str(python), "-c", "import evalplus"], capture_output=True)
    if probe.returncode != 0:
        subprocess.run([str(python), "-m", "pip", "install", "-q", "evalplus"], check=True)
    return python


def _corpus(extra_file: Path | None) -> list[dict[str, str]]:
    from execugraph.benchmarks import evalplus_data as data

    samples = [{"task_id": r["task_id"], "solution": r["prompt"] + r["canonical_solution"]}
               for r in data.records(data.HUMANEVAL_PLUS)]
    hand = json.loads((ROOT / "data" / "amplify" / "humaneval_programs.json").read_text())
    for problem_id, programs in hand.items():
        samples += [{"task_id": f"HumanEval/{problem_id.rpartition('_')[2]}", "solution": p["code"]} for p in programs]
    samples += [{"task_id": t, "solution": code} for t, code in EXTRA.items()]
    if extra_file is not None:
        samples += [json.loads(line) for line in extra_file.read_text().splitlines() if line.strip()]
    return samples


def _theirs(python: Path, samples: list[dict[str, str]], folder: Path, workers: int) -> list[tuple[bool, str]]:
    from execugraph.benchmarks import evalplus_data as data

    plain = folder / "HumanEvalPlus.jsonl"
    with gzip.open(data.release_path(data.HUMANEVAL_PLUS), "rt", encoding="utf-8") as fh:
        plain.write_text(fh.read(), encoding="utf-8")
    path = folder / "samples.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in samples), encoding="utf-8")
    env = os.environ | {"HUMANEVAL_OVERRIDE_PATH": str(plain)}
    code = ("import sys; from evalplus.evaluate import evaluate; "
            "evaluate(dataset='humaneval', samples=sys.argv[1], parallel=int(sys.argv[2]), i_just_wanna_run=True)")
    subprocess.run([str(python), "-c", code, str(path), str(workers)], check=True, env=env, cwd=folder)
    found = [p for p in folder.iterdir() if p.name.endswith("eval_results.json")]
    results = json.loads(found[0].read_text())["eval"]
    seen: dict[str, int] = {}
    out = []
    for sample in samples:  # EvalPlus keeps each task's samples in the order they were read
        index = seen.get(sample["task_id"], 0)
        seen[sample["task_id"]] = index + 1
        row = results[sample["task_id"]][index]
        passed = row["base_status"] == "pass" and row["plus_status"] == "pass"
        out.append((passed, f"base {row['base_status']}, plus {row['plus_status']} {row.get('plus_fail_tests')}"[:300]))
    return out


def _ours(samples: list[dict[str, str]], workers: int) -> list[bool]:
    from execugraph.benchmarks.evalplus import load_humaneval_plus, set_tests, with_expected
    from execugraph.grading.rules import build_suite
    from sandbox import Limits, SandboxPool

    with SandboxPool(workers) as pool:
        problems = {p.source.removeprefix("evalplus/"): p for p in with_expected(load_humaneval_plus(), pool)}
        jobs = []
        for s in samples:
            problem = problems[s["task_id"]]
            jobs.append((s["solution"], build_suite(problem, set_tests(problem, "plus"), "standalone"),
                         Limits(timeout_s=20, memory_mb=4096)))  # EvalPlus: per input max(1 s, 4 x reference)
        return [r.passed for r in pool.run_many(jobs)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=Path("/tmp/evalplus-venv"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--programs", type=Path)
    args = parser.parse_args()
    python = _venv(args.venv)
    samples = _corpus(args.programs)
    started = time.perf_counter()
    ours = _ours(samples, args.workers)
    ours_s = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        said = _theirs(python, samples, Path(tmp), args.workers)
        theirs = [passed for passed, _why in said]
        theirs_s = time.perf_counter() - started
    agree = sum(a == b for a, b in zip(ours, theirs, strict=True))
    print(f"programs {len(samples)}: agree {agree}, disagree {len(samples) - agree}; "
          f"EvalPlus passes {sum(theirs)}, we pass {sum(ours)}; ours {ours_s:.0f} s, EvalPlus's {theirs_s:.0f} s "
          f"(load average {os.getloadavg()[0]:.2f})")
    for n, (sample, a, (b, why)) in enumerate(zip(samples, ours, said, strict=True)):
        if a != b:
            print(f"  sample {n} {sample['task_id']}: ours {'pass' if a else 'fail'}, EvalPlus {'pass' if b else 'fail'} "
                  f"({why})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
