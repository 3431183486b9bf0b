"""A small published study in the published layout, written by hand so every number of its reproduction is known.

`write_study(root)` writes `root/study/` (six run folders) and `root/benchmark.jsonl` (the study's benchmark
file, given to `reproduce --dataset`, not inside the folder) and returns their paths. Two benchmarks, three
conditions and a best-of-5 arm:

| folder  | benchmark  | condition      | what the records say                                                    |
|---------|------------|----------------|-------------------------------------------------------------------------|
| e1_so   | internal30 | single-oneshot | passes fib, subset_sum; climb_stairs ended before any test ran           |
|         |            |                | (`test_source: "none"`) but its program is correct: it flips to passed   |
| e2_sr   | internal30 | single-retry   | passes fib, climb_stairs, coin_change, house_robber, subset_sum; lcs was |
|         |            |                | refused by the old harness (an import): it flips to passed; min_cost_path|
|         |            |                | has no program (`test_source: "none"`): it keeps its failure             |
| e3_mf   | internal30 | multi-full     | passes all but cycle_detect                                              |
| e4_bo5  | internal30 | best-of-n@5    | five one-sample trials per problem; passes 5,5,5,5,5,5,3,0,0,1 of 5      |
| h1_so   | humaneval  | single-oneshot | all four passed under the published harness; humaneval_0 and _12 use     |
|         |            |                | List/Optional without importing them: they fail under standalone         |
| h2_mf   | humaneval  | multi-full     | all four pass, imports included                                          |

`subset_sum` carries `"source": "apps-introductory"` but is an internal-30 id. Per-problem pass rates are
ordered e1_so <= e2_sr <= e4_bo5 <= e3_mf on every problem (published and rescored), so every paired
difference has one sign: the exact Wilcoxon p is then 2 / 2^k for k non-zero differences.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.reference_internal30 import REFERENCE

PROBLEMS: dict[str, tuple[str, str, list[tuple[list, object]]]] = {  # id -> (category, entry point, tests)
    "fib": ("dp", "fib", [([0], 0), ([10], 55), ([20], 6765)]),
    "climb_stairs": ("dp", "climbStairs", [([1], 1), ([5], 8), ([10], 89)]),
    "coin_change": ("dp", "coinChange", [([[1, 2, 5], 11], 3), ([[2], 3], -1), ([[1], 0], 0)]),
    "lcs": ("dp", "longestCommonSubsequence", [(["abcde", "ace"], 3), (["abc", "def"], 0), (["abc", "abc"], 3)]),
    "house_robber": ("dp", "rob", [([[1, 2, 3, 1]], 4), ([[2, 7, 9, 3, 1]], 12), ([[]], 0)]),
    "subset_sum": ("dp", "subsetSum", [([[3, 34, 4, 12, 5, 2], 9], True), ([[3, 34, 4, 12, 5, 2], 30], False),
                                       ([[], 0], True)]),
    "min_cost_path": ("dp", "minPathSum", [([[[1, 3, 1], [1, 5, 1], [4, 2, 1]]], 7), ([[[1, 2], [1, 1]]], 3),
                                           ([[[5]]], 5)]),
    "connected_components": ("graph", "countComponents", [([[[1], [0, 2], [1], [4], [3]]], 2), ([[[], []]], 2),
                                                           ([[[1], [0]]], 1)]),
    "cycle_detect": ("graph", "hasCycle", [([[[1, 2], [0, 2], [0, 1]]], True), ([[[1], [0, 2], [1]]], False),
                                           ([[[]]], False)]),
    "valid_parentheses": ("ds", "isValid", [(["()[]{}"], True), (["(]"], False), (["([)]"], False)]),
}
IDS = list(PROBLEMS)
MODEL = "qwen2.5-coder:7b-instruct-q4_K_M"
REFUSED = "ImportError: import of 'functools' is not allowed"

# Published outcome per problem (1 passed, 0 failed) and its rescored outcome, per internal-30 arm.
PUBLISHED = {
    "e1_so": {"fib": 1, "subset_sum": 1},
    "e2_sr": {"fib": 1, "climb_stairs": 1, "coin_change": 1, "house_robber": 1, "subset_sum": 1},
    "e3_mf": {p: 1 for p in IDS if p != "cycle_detect"},
}
RESCORED = {
    "e1_so": {**PUBLISHED["e1_so"], "climb_stairs": 1},
    "e2_sr": {**PUBLISHED["e2_sr"], "lcs": 1},
    "e3_mf": dict(PUBLISHED["e3_mf"]),
}
BEST_OF_5 = {"fib": 5, "climb_stairs": 5, "coin_change": 5, "lcs": 5, "house_robber": 5, "subset_sum": 5,
             "min_cost_path": 3, "connected_components": 0, "cycle_detect": 0, "valid_parentheses": 1}
RETRIES = {  # e2_sr and e3_mf retries used per problem (e1_so and e4_bo5 never retry)
    "e2_sr": dict(zip(IDS, [0, 1, 2, 3, 1, 0, 0, 3, 3, 3], strict=True)),
    "e3_mf": dict(zip(IDS, [0, 1, 0, 2, 0, 0, 1, 0, 3, 0], strict=True)),
}
HUMANEVAL = ("humaneval_0", "humaneval_2", "humaneval_4", "humaneval_12")
NEEDS_PROMPT = ("humaneval_0", "humaneval_12")  # use typing names without importing them


def wrong_program(pid: str) -> str:
    """A program that defines the entry point and answers wrongly (lcs raises: a runtime error)."""
    entry = PROBLEMS[pid][1]
    if pid == "lcs":
        return f"def {entry}(*args):\n    raise ValueError('not implemented')\n"
    return f"def {entry}(*args):\n    return -12345\n"


def _humaneval_programs() -> dict[str, str]:
    from execugraph.configuration.settings import DATA_DIR

    source = DATA_DIR / "fixtures" / "reference_layout" / "published-demo" / "e2_he_so" / "trials.jsonl"
    return {r["problem_id"]: r["code"] for r in map(json.loads, source.read_text().splitlines()) if r}


def _base(pid: str, condition: str, category: str, source: str, *, seed: int = 0, trial: int = 0,
          budget: int = 3) -> dict:
    return {"problem_id": pid, "category": category, "source": source, "condition": condition,
            "model_planner": MODEL, "model_generator": MODEL, "seed": seed, "trial": trial, "retry_budget": budget,
            "timestamp": 1778400000 + 10 * IDS.index(pid) + trial if pid in IDS else 1778500000}


def _graded(record: dict, ok: bool, code: str, error: str, tests: int = 3) -> dict:
    return {**record, "passed": ok, "tests_total": tests, "tests_passed": tests if ok else 0,
            "error_class": "none" if ok else error, "test_source": "deterministic", "code": code, "stderr": ""}


def internal30_records(arm: str) -> list[dict]:
    """The records of one internal-30 run folder."""
    condition = {"e1_so": "single-oneshot", "e2_sr": "single-retry", "e3_mf": "multi-full",
                 "e4_bo5": "best-of-n@5"}[arm]
    records = []
    for i, pid in enumerate(IDS):
        category = PROBLEMS[pid][0]
        source = "apps-introductory" if pid == "subset_sum" else "internal"
        if arm == "e4_bo5":
            for t in range(5):
                ok = t < BEST_OF_5[pid]
                rec = _base(pid, condition, category, source, trial=t, budget=0)
                rec |= {"retries_used": 0, "llm_calls": 1, "tokens_in": 100, "tokens_out": 40 + 10 * t,
                        "wallclock_s": 1.0 + 0.25 * t}
                records.append(_graded(rec, ok, REFERENCE[pid] if ok else wrong_program(pid), "wrong_answer"))
            continue
        retries = RETRIES.get(arm, {}).get(pid, 0)
        calls = {"e1_so": 1, "e2_sr": 1 + retries, "e3_mf": 5 + 2 * retries}[arm]
        rec = _base(pid, condition, category, source) | {
            "retries_used": retries, "llm_calls": calls, "tokens_in": 150 * calls, "tokens_out": 60 * calls + i,
            "wallclock_s": 2.0 * calls + 0.1 * i,
        }
        ok = bool(PUBLISHED[arm].get(pid))
        if arm == "e1_so" and pid == "climb_stairs":  # a model read timeout ended it before any test ran
            records.append(rec | {"passed": False, "tests_total": 0, "tests_passed": 0, "error_class": "llm_error",
                                  "test_source": "none", "code": REFERENCE[pid],
                                  "stderr": "httpx.ReadTimeout: timed out after 300 s"})
        elif arm == "e2_sr" and pid == "min_cost_path":  # ... and this one never produced a program
            records.append(rec | {"passed": False, "tests_total": 0, "tests_passed": 0, "error_class": "llm_error",
                                  "test_source": "none", "code": "", "stderr": "httpx.ReadTimeout"})
        elif arm == "e2_sr" and pid == "lcs":  # a correct program the old harness refused
            records.append(rec | {"passed": False, "tests_total": 3, "tests_passed": 0,
                                  "error_class": "sandbox_violation", "test_source": "deterministic",
                                  "code": "import functools\n" + REFERENCE[pid], "stderr": REFUSED})
        else:
            error = "runtime" if pid == "lcs" else "wrong_answer"
            records.append(_graded(rec, ok, REFERENCE[pid] if ok else wrong_program(pid), error))
    return records


def humaneval_records(arm: str) -> list[dict]:
    """The records of one HumanEval run folder (every program passed under the published harness)."""
    programs = _humaneval_programs()
    condition = {"h1_so": "single-oneshot", "h2_mf": "multi-full"}[arm]
    records = []
    for i, pid in enumerate(HUMANEVAL):
        code = programs[pid]
        if arm == "h2_mf" and pid in NEEDS_PROMPT:
            code = "from typing import List, Optional\n\n" + code
        calls = 1 if arm == "h1_so" else 6 + i
        rec = _base(pid, condition, "humaneval", f"humaneval/{pid.split('_')[1]}", budget=0 if arm == "h1_so" else 3)
        rec |= {"retries_used": 0, "llm_calls": calls, "tokens_in": 200 * calls, "tokens_out": 80 * calls,
                "wallclock_s": 3.0 * calls}
        records.append(_graded(rec, True, code, "none", tests=1))
    return records


ARMS = ("e1_so", "e2_sr", "e3_mf", "e4_bo5", "h1_so", "h2_mf")


def records_of(arm: str) -> list[dict]:
    return humaneval_records(arm) if arm.startswith("h") else internal30_records(arm)


def dataset_lines() -> list[dict]:
    """The study's benchmark file: the ten internal-30 problems in the published layout, three tests each."""
    lines = []
    for pid, (category, entry, tests) in PROBLEMS.items():
        lines.append({
            "id": pid, "category": category, "source": "apps-introductory" if pid == "subset_sum" else "internal",
            "difficulty": "easy", "statement": f"Solve {pid}.", "primary_function": entry,
            "signature_aliases": [], "selection_rationale": "reproduction test", "timeout_s": 5.0,
            "tests": [{"args": json.dumps(args), "expected": json.dumps(expected), "call": None,
                       "description": f"case {n}", "kind": "basic", "has_custom_judge": False}
                      for n, (args, expected) in enumerate(tests)],
        })
    return lines


def write_study(root: Path) -> tuple[Path, Path]:
    """Write the results folder and the benchmark file under `root`; returns (folder, benchmark file)."""
    folder = root / "study"
    for arm in ARMS:
        (folder / arm).mkdir(parents=True, exist_ok=True)
        (folder / arm / "trials.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records_of(arm)))
    (folder / "e1_so" / "run_meta.json").write_text(json.dumps({"condition": "single-oneshot", "retry_budget": 0}))
    dataset = root / "benchmark.jsonl"
    dataset.write_text("".join(json.dumps(line) + "\n" for line in dataset_lines()))
    return folder, dataset
