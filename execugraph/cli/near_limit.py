"""`stats --runs A [B ...] --near-limit`: the verdicts decided within 20% of a time limit, per run.

Reads each run's last grading execution per trial (`verdict_reads.grading_results`) and
applies the one rule in `execugraph.stats.near_limit`; `--conditions` narrows the trials.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from execugraph.safety.inert_text import terminal_text

if TYPE_CHECKING:
    from execugraph.domain.json_types import JsonObject
    from execugraph.store import Store

EXIT_BAD_REQUEST = 2


def near_limit_report(store: Store, run_ids: list[int], conditions: list[str] | None = None) -> JsonObject:
    """Per run: how many programs were measured, how many near a limit (listed), the timeouts by kind."""
    from execugraph.stats.near_limit import near_limit
    from execugraph.store import verdict_reads

    runs = []
    for run_id in run_ids:
        rows = verdict_reads.grading_results(store, run_id)
        if conditions:
            rows = [r for r in rows if r["condition"] in conditions]
        runs.append({"run": run_id, **near_limit(rows)})
    return {"runs": runs}


def format_near_limit(report: JsonObject) -> str:
    lines = []
    for run in report["runs"]:
        share = 1 - run["share"]
        timeouts = ", ".join(f"{n} by {_kind(k)}" for k, n in run["timeouts"].items()) or "none"
        lines.append(f"run {run['run']}: {len(run['near'])} of {run['measured']} measured programs decided within "
                     f"{share:.0%} of a time limit ({run['programs']} graded; timeouts: {timeouts})")
        if run["programs"] > run["measured"]:
            lines.append(f"  {run['programs'] - run['measured']} graded before per-test CPU and limits were recorded")
        for row in run["near"]:  # ids, conditions and test names may come from published logs: one inert line
            verdict = "passed" if row["passed"] else (row["error_class"] or "failed")
            lines.append(terminal_text(f"  {row['problem_id']}  {row['condition']}  seed {row['seed']}  trial "
                                       f"#{row['trial']}  {verdict}: {row['detail']}"))
    return "\n".join(lines)


def _kind(kind: str) -> str:
    return {"cpu": "the CPU limit", "wall": "the wall-clock backstop", "suite": "the suite's limit",
            "blocked": "the blocked-time budget (sleeping or waiting)", "not-run": "an earlier test's timeout",
            "wall-clock": "a wall-clock limit (older policy)"}.get(kind, kind)


def run_near_limit(args: argparse.Namespace) -> int:
    from execugraph.cli.store import open_store

    try:
        run_ids = [int(r) for r in args.runs]
    except ValueError:
        print(f"stats: --near-limit takes run ids (numbers), got {' '.join(args.runs)}", file=sys.stderr)
        return EXIT_BAD_REQUEST
    store = open_store(args, writes=False)
    try:
        missing = [r for r in run_ids if store.get_run(r) is None]
        if missing:
            print(f"stats: unknown run id(s): {', '.join(map(str, missing))}", file=sys.stderr)
            return EXIT_BAD_REQUEST
        report = near_limit_report(store, run_ids, args.conditions)
    finally:
        store.close()
    print(json.dumps(report, indent=2) if args.json else format_near_limit(report))
    return 0
