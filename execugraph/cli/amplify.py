"""`amplify`: a stronger version of a benchmark (new inputs, a reference's answers), stored beside the original.

`python -m execugraph amplify --benchmark internal30 [--reference FILE] [--seed S] [--per-problem N]`
writes `<benchmark>+amplified:<digest>` into the store (`rescore --suite amplified` grades
a run on it) and prints, per problem, tests kept and added, what was dropped and why, and
(unless `--no-adequacy`) the mutation score of the original and the amplified tests.
Problems without a reference get differential checks instead: inputs on which the stored
passing programs disagree are reported as "tests too weak here"; no verdict changes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execugraph.domain.json_types import JsonObject
from execugraph.safety.inert_text import terminal_text as shown

if TYPE_CHECKING:
    from execugraph.amplify.differential import Disagreement


def configure(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments of `amplify`."""
    parser.add_argument("--benchmark", required=True, help="internal30, humaneval, or a file benchmark (with --path)")
    parser.add_argument("--path", help="the benchmark file, for user/apps/published benchmarks")
    parser.add_argument("--reference", type=Path, help="reference programs: JSONL {id, reference} or JSON id -> program")
    parser.add_argument("--seed", type=int, default=0, help="generation seed (default 0); same seed, same suite")
    from execugraph.amplify.build import DEFAULT_PER_PROBLEM

    parser.add_argument("--per-problem", type=int, default=DEFAULT_PER_PROBLEM,
                        help=f"new tests per problem at most (default {DEFAULT_PER_PROBLEM})")
    parser.add_argument("--problems", nargs="+", metavar="ID", help="only these problem ids")
    parser.add_argument("--workers", type=int, help="sandbox workers (default: one per core)")
    parser.add_argument("--no-adequacy", action="store_true", help="skip the mutation score")
    parser.add_argument("--no-store", action="store_true", help="print only; store nothing")
    parser.add_argument("--no-witnesses", action="store_true",
                        help="do not use stored passing programs to drop inputs they dispute with the reference")
    parser.add_argument("--no-panel", action="store_true",
                        help="amplify without the bundled independent-solutions panel (data/amplify/<benchmark>_panel.json)")
    parser.add_argument("--json", action="store_true", help="print the provenance (and adequacy) as JSON")


def _problems(args: argparse.Namespace) -> tuple[str, list[Any]]:
    from execugraph.benchmarks import canonical_name, file_benchmark_names, load_benchmark, select_problems

    name = canonical_name(args.benchmark)
    opts = {"path": args.path} if name in file_benchmark_names() else {}
    problems = load_benchmark(name, **opts)
    if args.problems:
        problems = select_problems(problems, ids=args.problems)
    return name, problems


def run(args: argparse.Namespace) -> int:
    """Amplify, store, print."""
    from execugraph.amplify.build import amplify_benchmark
    from execugraph.amplify.references import read_reference_file
    from sandbox import SandboxPool

    if args.per_problem < 1:
        print("amplify: --per-problem must be at least 1", file=sys.stderr)
        return 2
    try:
        name, problems = _problems(args)
        references = read_reference_file(args.reference) if args.reference else None
    except (LookupError, ValueError, TypeError, OSError) as exc:
        print(f"amplify: {shown(exc)}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    witnesses = _witnesses(args, name, problems)
    with SandboxPool(args.workers) as pool:
        suite = amplify_benchmark(pool, name, problems, seed=args.seed, per_problem=args.per_problem,
                                  references=references, witnesses=witnesses,
                                  panel={} if getattr(args, "no_panel", False) else None)
        elapsed = time.perf_counter() - started
        adequacy = None if args.no_adequacy else _adequacy(pool, problems, suite, references)
        differential = _differential(args, pool, suite)
    if not args.no_store:
        from execugraph.cli.store import open_store

        store = open_store(args, writes=True)
        for problem in suite.stored_problems():
            store.upsert_problem(problem)
    out = {**suite.provenance, "seconds": round(elapsed, 2), "stored": not args.no_store}
    if adequacy is not None:
        out["adequacy"] = adequacy
    if differential:
        out["differential"] = differential
    if args.json:
        print(json.dumps(out, sort_keys=True))
    else:
        _print(out)
    return 0


def _witnesses(args: argparse.Namespace, name: str, problems: list[Any]) -> dict[str, list[str]]:
    """Stored programs passing each problem's original tests: the independent solutions whose disagreement with
    the reference drops an input (`amplify/agreement.py`); none with --no-witnesses."""
    if getattr(args, "no_witnesses", False):
        return {}
    from execugraph.amplify.agreement import MAX_WITNESSES
    from execugraph.cli.store import open_store
    from execugraph.store import StoreUnavailableError
    from execugraph.store.amplified_reads import passing_programs

    try:
        store = open_store(args, writes=False)
    except StoreUnavailableError as exc:
        print(f"amplify: no independent solutions (the store cannot be opened: {shown(exc)})", file=sys.stderr)
        return {}
    try:
        found = {p.id: passing_programs(store, name, p.id, MAX_WITNESSES) for p in problems}
    finally:
        store.close()
    return {pid: programs for pid, programs in found.items() if programs}


def _adequacy(pool: Any, problems: list[Any], suite: Any, references: dict[str, str] | None) -> JsonObject:
    """The suite's mutation scores as the printed JSON holds them."""
    from execugraph.amplify.adequacy import suite_adequacy

    return suite_adequacy(pool, problems, suite.stored_problems(), references).as_dict()


def _differential(args: argparse.Namespace, pool: Any, suite: Any) -> dict[str, list[Disagreement]]:
    """Differential checks for the problems that had no reference (needs stored passing programs)."""
    lacking = [p for p in suite.problems if not p.added and p.note.startswith("no reference")]
    if not lacking:
        return {}
    from execugraph.amplify.differential import disagreements
    from execugraph.cli.store import open_store

    store = open_store(args, writes=False)
    return disagreements(store, pool, [p.problem for p in lacking], suite.benchmark, args.seed, args.per_problem)


def _print(out: JsonObject) -> None:
    """The printed JSON (`out`) as lines for a person."""
    problems = out["problems"]
    added = sorted(p["added"] for p in problems.values())
    median = added[len(added) // 2] if added else 0
    print(f"{shown(out['name'])}: {len(problems)} problem(s), {sum(added)} test(s) added "
          f"(median {median}, max {max(added, default=0)} per problem) in {out['seconds']} s; "
          f"seed {out['seed']}, {out['generator']}, hypothesis {out['hypothesis']}, "
          f"{out['references']} reference(s) sha256 {out['reference_digest'][:12]}"
          + ("" if out["stored"] else " (not stored)"))
    scores = (out.get("adequacy") or {}).get("problems", {})
    for pid, info in problems.items():
        line = f"  {shown(pid)}: {info['original']} original + {info['added']} new"
        score = scores.get(pid)
        if score:
            line += (f"; mutation score {score['original_killed']}/{score['mutants']} -> "
                     f"{score['amplified_killed']}/{score['mutants']}")
        if info["dropped"]:
            line += "; dropped " + ", ".join(f"{shown(why)} {n}" for why, n in info["dropped"].items())
        if info["note"]:
            line += f" ({shown(info['note'])})"
        print(line)
    total = (out.get("adequacy") or {}).get("total")
    if total:
        print(f"  mutation score: original {total['original_score']:.1%}, amplified {total['amplified_score']:.1%} "
              f"({total['only_amplified']} mutant(s) only the amplified tests kill, of {total['mutants']})")
    for pid, items in (out.get("differential") or {}).items():
        print(f"  {shown(pid)}: tests too weak here: {len(items)} input(s) on which passing programs disagree")
