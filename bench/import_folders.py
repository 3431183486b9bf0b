"""Import of a results tree with many one-record run folders: the time per folder must not grow with the tree.

Builds, in a temporary folder, a zip of N run folders in the published layout (each holding one
trial record of the hand-written study in tests' fixtures shape: a small internal-30 record) and
imports it into a fresh SQLite store through `import_path`, at N/4 and N folders. Prints both times
and the ratio of the per-folder times (1.0 is linear; the quadratic import this replaced took 169 s
for 10,000 folders, about 10x the per-folder time of 2,500). Target: 10,000 folders under 15 s on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from execugraph.publication import import_path  # noqa: E402
from execugraph.store import Store  # noqa: E402

RECORD = {  # one record of the published layout (tests/support/published_study.py writes whole studies of them)
    "problem_id": "fib", "category": "dp", "source": "internal", "condition": "single-oneshot",
    "model_planner": "qwen2.5-coder:7b-instruct-q4_K_M", "model_generator": "qwen2.5-coder:7b-instruct-q4_K_M",
    "seed": 0, "trial": 0, "retry_budget": 3, "timestamp": 1778400000, "retries_used": 0, "llm_calls": 1,
    "tokens_in": 150, "tokens_out": 60, "wallclock_s": 2.0, "passed": True, "tests_total": 3, "tests_passed": 3,
    "error_class": "none", "test_source": "deterministic",
    "code": "def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n",
    "stderr": "",
}


def build(folder: Path, n: int) -> Path:
    path = folder / f"study-{n}.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for i in range(n):  # each folder its own run (identical folders would be imported once)
            line = json.dumps(RECORD | {"seed": i, "timestamp": RECORD["timestamp"] + i}) + "\n"
            archive.writestr(f"study/run_{i:05d}/trials.jsonl", line)
    return path


def timed_import(folder: Path, n: int) -> tuple[float, int]:
    archive = build(folder, n)
    with Store.open(str(folder / f"runs-{n}.db")) as store:
        began = time.perf_counter()
        result = import_path(store, archive)
        took = time.perf_counter() - began
    return took, len(result.runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folders", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        small_n, big_n = max(1, args.folders // 4), args.folders
        small, small_runs = timed_import(Path(tmp), small_n)
        big, big_runs = timed_import(Path(tmp), big_n)
    ratio = (big / big_n) / (small / small_n)
    print(f"{small_n:>6} folders: {small:6.1f} s ({small_runs} runs), {1000 * small / small_n:.2f} ms per folder")
    print(f"{big_n:>6} folders: {big:6.1f} s ({big_runs} runs), {1000 * big / big_n:.2f} ms per folder")
    print(f"per-folder time ratio {big_n} / {small_n} folders: {ratio:.2f} (1.0 = linear); "
          f"target: {big_n} folders under {15 * big_n / 10_000:.0f} s -> {'met' if big < 15 * big_n / 10_000 else 'MISSED'}")


if __name__ == "__main__":
    main()
