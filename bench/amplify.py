"""Amplified tests per benchmark: inputs added per problem (median, max), time, mutation score original vs amplified.

Usage: .venv/bin/python bench/amplify.py [--per-problem N] [--seed S] [--humaneval-n N] [--internal30-n N]
    [--only humaneval|internal30] [--ids ID,...] [--no-search] [--no-referee] [--no-adequacy] [--no-panel]
(the defaults, 0: every problem of HumanEval-164 and internal-30; N > 0 takes a reproducible sample).
For HumanEval, HumanEval+ is the referee (`execugraph/amplify/referee.py`): the share of its false passes the
amplified suite catches (target >= 80%) and the share of the programs it passes that the amplified suite fails
(target <= 1%), over a corpus of programs that pass the original tests (references, EvalPlus's canonical solutions,
mutants of the references, the hand-written programs of data/amplify/humaneval_programs.json, whose correct ones
are also the amplifier's independent witnesses). The amplifier's own independent-solutions panel
(data/amplify/humaneval_panel.json, `execugraph/amplify/panel.py`) is used as in `amplify`; its member count is printed
(`--no-panel`: amplified without it, to show its effect).
The amplification time is what the 300 s target is about and is printed against it; the adequacy
and distinguishability runs after it are measurement (every mutant of every reference run in the
sandbox) and are timed apart. Each figure comes with the 1-minute load average when it was taken.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from execugraph.amplify.adequacy import suite_adequacy  # noqa: E402
from execugraph.amplify.build import DEFAULT_PER_PROBLEM, amplify_benchmark  # noqa: E402
from execugraph.amplify.distinguish import SEARCH_BUDGET, distinguishable_report  # noqa: E402
from execugraph.benchmarks import load_humaneval, load_internal30, select_problems  # noqa: E402

TARGET_S = 300.0  # amplification of one benchmark, on 2 cores
ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "data" / "amplify" / "humaneval_programs.json"  # hand-written: witnesses and corpus


def _load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def _programs() -> dict[str, list[dict]]:
    """The hand-written HumanEval programs (independent correct solutions, plausible wrong ones)."""
    return json.loads(PROGRAMS.read_text(encoding="utf-8"))


def _number(problem_id: str) -> int:
    return int(problem_id.rsplit("_", 1)[-1]) if problem_id.rsplit("_", 1)[-1].isdigit() else 0


def _referee(pool, problems: list, suite) -> None:
    """HumanEval+ as the referee: the share of its false passes the amplified suite catches, and the share of the
    programs it passes that the amplified suite fails (targets: >= 80%, <= 1%)."""
    from execugraph.amplify.referee import MUTANTS_PER_PROBLEM, judge, plus_problems

    started = time.perf_counter()
    plus, skipped = plus_problems(pool, [p.id for p in problems])
    for pid, why in skipped.items():
        print(f"   not refereed: {pid}: {why[:160]}")
    extra = {pid: [(f"{'correct' if e['correct'] else 'wrong'} {e['label']}", e["code"]) for e in entries]
             for pid, entries in _programs().items()}
    report = judge(pool, problems, plus, {p.id: p for p in suite.stored_problems()}, extra)
    corpus = ", ".join(f"{n} {kind}" for kind, n in sorted(report.corpus.items()))
    print(f"   HumanEval+ as referee, corpus of {sum(report.corpus.values())} programs passing the original tests "
          f"({corpus}; mutants: one-change AST mutants of each reference, {MUTANTS_PER_PROBLEM} tried per problem; "
          f"hand-written: {PROGRAMS.relative_to(ROOT)}):")
    print(f"   (i) HumanEval+ false passes caught: {len(report.caught)}/{len(report.false_passes)} = "
          f"{report.caught_share:.1%} (target >= 80%)")
    print(f"   (ii) programs HumanEval+ passes that the amplified suite fails: {len(report.false_alarms)}/"
          f"{len(report.plus_passed)} = {report.false_alarm_share:.1%} (target <= 1%) "
          f"(measurement: {time.perf_counter() - started:.1f} s, {_load()})", flush=True)
    fair = report.without_wrong_references()
    print(f"   over the {len(problems) - len(report.wrong_reference) - len(skipped)} problems whose reference passes "
          f"HumanEval+ (not: {', '.join(sorted(report.wrong_reference, key=_number)) or 'none'}): (i) "
          f"{len(fair.caught)}/{len(fair.false_passes)} = {fair.caught_share:.1%}, (ii) {len(fair.false_alarms)}/"
          f"{len(fair.plus_passed)} = {fair.false_alarm_share:.1%}")
    for program, failed in report.false_alarms:
        print(f"   false alarm: {program.problem_id} {program.origin}: fails {failed[:120]}")
    missed = [p for p in report.false_passes if p not in report.caught]
    for program in missed:
        print(f"   missed false pass: {program.problem_id} {program.origin}")


def _adequacy(pool, problems: list, suite) -> None:
    """The mutation score of the original and the amplified tests against one-change mutants of the references."""
    started = time.perf_counter()
    found = suite_adequacy(pool, problems, suite.stored_problems())
    total = found.total
    print(f"   mutation score: original {total.original_score:.1%} ({total.original_killed}/{total.mutants}),"
          f" amplified {total.amplified_score:.1%} ({total.amplified_killed}/{total.mutants}); "
          f"{total.only_amplified} mutants only the amplified tests kill (measurement: "
          f"{time.perf_counter() - started:.1f} s, {_load()})", flush=True)
    for pid, score in found.problems.items():
        if score.only_amplified:
            print(f"   {pid}: {', '.join(score.only_amplified)}")


def _one(pool, name: str, problems: list, seed: int, per_problem: int, budget: int, *, search: bool = True,
         referee: bool = False, adequacy: bool = True, panel: bool = True) -> None:
    whole = time.perf_counter()
    started = time.perf_counter()
    witnesses = ({pid: [e["code"] for e in entries if e["correct"]] for pid, entries in _programs().items()}
                 if referee else None)
    suite = amplify_benchmark(pool, name, problems, seed=seed, per_problem=per_problem, witnesses=witnesses,
                              panel=None if panel else {})
    amplify_s = time.perf_counter() - started
    added = [p.added for p in suite.problems]
    verdict = "within" if amplify_s <= TARGET_S else "OVER"
    print(f"== {name}: {len(problems)} problems, {sum(added)} inputs added "
          f"(median {statistics.median(added):g}, max {max(added)} per problem; "
          f"{sum(1 for a in added if a == 0)} problems got none); digest {suite.digest[:12]}; "
          f"rules {suite.provenance['rules']}, panel of {suite.provenance['panel']} members")
    print(f"   amplification: {amplify_s:.1f} s ({verdict} the {TARGET_S:.0f} s target; {os.cpu_count()} cores, "
          f"{_load()})", flush=True)
    if adequacy:
        _adequacy(pool, problems, suite)
    if referee:
        _referee(pool, problems, suite)
    if not search:
        print(f"   {name} total {time.perf_counter() - whole:.1f} s (no distinguishability search)", flush=True)
        return
    started = time.perf_counter()
    target = distinguishable_report(pool, problems, suite.stored_problems(), seed=seed, budget=budget)
    t = target["total"]
    print(f"   95% target: {t['missed']} mutants the original tests miss, {t['distinguishable']} distinguishable, "
          f"{t['amplified_killed']} of those killed by the amplified tests = {t['share']:.1%} "
          f"({t['search_inputs']} search inputs answered for the {t['searched_problems']} problems with a mutant "
          f"both suites miss; measurement: {time.perf_counter() - started:.1f} s, {_load()})")
    print(f"   distinguishability: {t['how']}")
    for pid, score in target["problems"].items():
        if score["survivors"]:
            print(f"   survives amplified, distinguishable: {pid}: {', '.join(score['survivors'])}")
    print(f"   {name} total {time.perf_counter() - whole:.1f} s (amplification {amplify_s:.1f} s + measurement)",
          flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-problem", type=int, default=DEFAULT_PER_PROBLEM)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--humaneval-n", type=int, default=0)
    parser.add_argument("--internal30-n", type=int, default=0)
    parser.add_argument("--search-budget", type=int, default=SEARCH_BUDGET,
                        help="candidate inputs per problem in the distinguishability search")
    parser.add_argument("--no-search", action="store_true", help="skip the distinguishability search")
    parser.add_argument("--no-referee", action="store_true", help="skip HumanEval+ as the referee")
    parser.add_argument("--no-adequacy", action="store_true", help="skip the mutation score (quick referee runs)")
    parser.add_argument("--no-panel", action="store_true", help="amplify without the independent-solutions panel")
    parser.add_argument("--ids", default="", help="comma-separated HumanEval problem ids (e.g. humaneval_1,humaneval_59)")
    parser.add_argument("--only", choices=["internal30", "humaneval"], help="one benchmark only")
    args = parser.parse_args()
    from sandbox import SandboxPool

    internal = load_internal30()
    humaneval = load_humaneval()
    if args.internal30_n:
        internal = select_problems(internal, n=args.internal30_n, seed=args.seed)
    if args.humaneval_n:
        humaneval = select_problems(humaneval, n=args.humaneval_n, seed=args.seed)
    if args.ids:
        humaneval = [p for p in humaneval if p.id in set(args.ids.split(","))]
    with SandboxPool() as pool:
        if args.only != "humaneval":
            _one(pool, "internal30", internal, args.seed, args.per_problem, args.search_budget,
                 search=not args.no_search, adequacy=not args.no_adequacy, panel=not args.no_panel)
        if args.only != "internal30":
            _one(pool, "humaneval", humaneval, args.seed, args.per_problem, args.search_budget,
                 search=not args.no_search, referee=not args.no_referee, adequacy=not args.no_adequacy,
                 panel=not args.no_panel)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
