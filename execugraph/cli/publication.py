"""CLI for publication: `export`, `import` and `rescore` (see execugraph.publication)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from execugraph.domain.json_types import JsonObject
from execugraph.domain.vocabulary import GRADING_PROTOCOLS
from execugraph.safety.inert_text import terminal_text as shown

if TYPE_CHECKING:
    from execugraph.publication.published_problems import BenchmarkFile


def _store(args: argparse.Namespace, *, writes: bool = True):
    from execugraph.cli.store import open_store

    return open_store(args, writes=writes)


def configure_export(parser: argparse.ArgumentParser) -> None:
    """`export --run ID [--run ID ...] --out PATH [--include-host]`."""
    parser.add_argument(
        "--run",
        dest="runs",
        type=int,
        action="append",
        required=True,
        metavar="ID",
        help="run to export (repeat for several)",
    )
    parser.add_argument("--out", type=Path, required=True, help="new folder, or a path ending in .zip")
    parser.add_argument(
        "--include-host",
        action="store_true",
        help="keep host names, user names and local paths (by default a bundle names none of them; "
        "a suite file is recorded by file name and SHA-256)",
    )


def run_export(args: argparse.Namespace) -> int:
    """Write the bundle; print what was written as JSON (exit 2 on a refused export)."""
    from execugraph.publication import ExportError, export_bundle

    try:
        written = export_bundle(_store(args, writes=False), args.runs, args.out, include_host=args.include_host)
    except (ExportError, OSError) as exc:
        print(f"export: {shown(exc)}", file=sys.stderr)
        return 2
    print(json.dumps(written.as_dict()))
    return 0


def configure_import(parser: argparse.ArgumentParser) -> None:
    """`import PATH [--max-size SIZE] [--condition C] [--model M] [--dataset FILE] [--quiet]` (a bundle, a results
    tree or harness files)."""
    parser.add_argument("path", type=Path, help="an ExecuGraph bundle, a published results tree, or human-eval, "
                        "EvalPlus, bigcode or LiveCodeBench results (folder, .zip, or one .jsonl/.json file)")
    parser.add_argument(
        "--max-size",
        metavar="SIZE",
        help="refuse an input that unpacks to more than this, e.g. 2GiB or 500MB "
        "(default: EXECUGRAPH_IMPORT_MAX_BYTES, else 1GiB)",
    )
    parser.add_argument("--condition", help="human-eval/EvalPlus/bigcode files: the condition their trials ran "
                        "under (default: imported)")
    parser.add_argument("--model", help="human-eval/EvalPlus/bigcode files: the model that wrote them "
                        "(default: the file name, or bigcode's config.model)")
    parser.add_argument("--dataset", type=Path, metavar="FILE",
                        help="harness samples without verdicts: the problem file they are graded on (MBPP lines, "
                        "HumanEval.jsonl(.gz) or the published layout); HumanEval needs none, MBPP does not ship")
    parser.add_argument("--quiet", action="store_true", help="no grading progress lines on stderr")


def _dataset(path: Path | None, limit: int | None) -> BenchmarkFile | None:
    """The `--dataset` problem file, parsed as `reproduce --dataset` parses it (ReproduceError names the line)."""
    if path is None:
        return None
    from execugraph.configuration.settings import load_settings
    from execugraph.reproduce import load_dataset, read_small_file

    return load_dataset(read_small_file(path, limit or load_settings().import_max_bytes, "benchmark file"), path.name)


def run_import(args: argparse.Namespace) -> int:
    """Import and print `{"runs": [{"id", "name", "trials", ...}]}`; a bad input exits 2 naming file, line and field.

    Samples graded on import print `grading N/M samples...` on stderr at most every second, then a final line."""
    from execugraph.configuration.settings import parse_size
    from execugraph.publication import BundleFormatError, import_path
    from execugraph.publication.harness import HarnessOptions
    from execugraph.reproduce import ReproduceError
    from execugraph.reproduce.progress import grading_printer

    try:
        limit = parse_size(args.max_size) if args.max_size else None
    except ValueError as exc:
        print(f"import: --max-size: {exc}", file=sys.stderr)
        return 2
    try:
        options = HarnessOptions(getattr(args, "condition", None), getattr(args, "model", None))
        dataset = _dataset(getattr(args, "dataset", None), limit)
        grading = None if getattr(args, "quiet", False) else grading_printer(sys.stderr)
        result = import_path(_store(args), args.path, max_bytes=limit, options=options, dataset=dataset,
                             on_grading=grading)
    except (BundleFormatError, ReproduceError) as exc:
        print(f"import: nothing imported: {shown(exc)}", file=sys.stderr)
        for issue in exc.issues[1:]:
            print(f"  {shown(issue)}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"import: {shown(exc)}", file=sys.stderr)
        return 2
    for warning in result.warnings:
        print(f"import: {shown(warning)}", file=sys.stderr)
    print(json.dumps(result.to_dict()))
    return 0


def configure_rescore(parser: argparse.ArgumentParser) -> None:
    """`rescore --run ID [--grading-protocol P] [--tests recorded|current] [--workers N] [--json]`."""
    parser.add_argument("--run", type=int, required=True, metavar="ID", help="run whose stored programs to re-grade")
    parser.add_argument(
        "--grading-protocol",
        choices=GRADING_PROTOCOLS,
        help="grade every program under this protocol (default: each condition's own; standalone when unrecorded)",
    )
    parser.add_argument(
        "--tests",
        choices=["recorded", "current"],
        default="recorded",
        help="recorded: the suite each trial was graded on whenever it is stored (default); current: today's",
    )
    parser.add_argument("--workers", type=int, help="sandbox workers (default: one per core)")
    parser.add_argument("--json", action="store_true", help="print the full report as JSON")
    parser.add_argument("--suite", metavar="amplified[:DIGEST]|plus",
                        help="grade on the stored amplified version of the run's benchmark (see `amplify`), or "
                             "plus: a HumanEval/MBPP run on the built-in HumanEval+/MBPP+ plus tests (verdict set plus)")


def jobs_line(report: JsonObject) -> str:
    """`820 programs, 173 distinct jobs run`: each distinct sandbox job (program, suite, limits) ran once."""
    distinct, ran = report.get("distinct_jobs", 0), report.get("jobs_run", 0)
    line = f"{report['rescored']} programs, {distinct} distinct jobs run"
    if ran < distinct:  # a shared memo (reproduce) had run some of them already
        line = f"{report['rescored']} programs, {distinct} distinct jobs ({ran} run, {distinct - ran} already run)"
    return line


def _print_report(report: JsonObject) -> None:
    """The rescore report (`RescoreReport.to_dict()`, what --json prints) as lines for a person."""
    agreement = report["agreement"]
    rate = "-" if agreement["rate"] is None else f"{agreement['rate']:.1%}"
    print(
        f"run {report['parent_run_id']} -> rescore run {report['run_id']} (sandbox policy {report['policy_version']}, "
        f"grading protocol {report['grading_protocol']}, {report['tests']} tests)"
    )
    print(
        f"  trials {report['trials']}, rescored {report['rescored']}, unresolved {report['unresolved']}, "
        f"skipped {sum(report['skipped'].values())} {report['skipped'] or ''}".rstrip()
    )
    print(
        f"  agreement with stored verdicts {rate} ({agreement['same']}/{agreement['rescored']}); "
        f"passed {report['passed_before']} -> {report['passed_after']}; {len(report['flips'])} flip(s)"
    )
    if report["rescored"]:
        print(f"  {jobs_line(report)}")
    if report["trials_per_s"]:
        print(f"  {report['trials_per_s']} trials/s")
    if report["protocol_effect"]["note"]:
        print(f"  note: {shown(report['protocol_effect']['note'])}")
    if report["suite_changed"]:
        print(f"  {report['suite_changed']} trial(s) graded on a suite other than the one recorded")
    for flip in report["flips"]:
        print(
            f"  flip: {shown(flip['problem_id'])} [{shown(flip['condition'])} seed {flip['seed']} "
            f"#{flip['trial_index']}, trial {flip['trial']}] {flip['from']} -> {flip['to']}: {shown(flip['reason'])}"
        )
    for item in report["unresolved_problems"]:
        where = f"{item['benchmark']}/{item['problem_id']}" if item["benchmark"] else item["problem_id"]
        print(f"  unresolved: {shown(where)} ({item['trials']} trial(s)): {shown(item['reason'])}")


def run_rescore(args: argparse.Namespace) -> int:
    """Rescore into a child run and print the summary (or the full report with --json)."""
    from execugraph.benchmarks.errors import BenchmarkError
    from execugraph.verdicts import rescore_run

    def progress(done: int, total: int) -> None:
        if not args.json:
            sys.stderr.write(f"\rrescoring {done}/{total}   ")
            sys.stderr.flush()

    try:
        store, tests, benchmark_file = _store(args), args.tests, None
        if getattr(args, "suite", None) == "plus":
            from execugraph.verdicts.plus_suite import resolve_plus_suite

            benchmark_file, tests = resolve_plus_suite(store, args.run)
        elif getattr(args, "suite", None):
            from execugraph.amplify.stored import resolve_suite

            benchmark_file, tests = resolve_suite(store, args.run, args.suite)
        report = rescore_run(
            store, args.run, workers=args.workers, on_progress=progress,
            protocol=args.grading_protocol, tests=tests, benchmark_file=benchmark_file,
        ).to_dict()
    except (LookupError, ValueError, BenchmarkError) as exc:
        print(f"rescore: {shown(exc)}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report))
    else:
        sys.stderr.write("\n")
        _print_report(report)
    return 0
