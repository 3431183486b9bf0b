"""`stats` and `report`: paired comparisons of stored runs, Holm-adjusted, and their publication tables.

`python -m execugraph stats --runs A B [C ...]` is a thin front end over
`execugraph.stats.build_report`, the same function the dashboard and the export
call, so the terminal shows the numbers they show. `stats --runs A --near-limit`
lists instead the programs whose verdict was decided within 20% of a time limit
(`execugraph.stats.near_limit`), and how many ended by the CPU limit or the
wall-clock backstop, so a reader sees how many verdicts are fragile.

`python -m execugraph report --runs A B --format latex|csv|markdown [--out DIR] [--figures]`
prints the publication tables (`execugraph.stats.tables`) of the same report
`stats --json` prints, with the same family options, so every number in them can
be checked against it. Without `--out` the tables go to stdout; with it each table
is a file (`paired.tex`, ...; LaTeX adds a compilable `tables.tex`), and `--figures`
adds every chart as SVG and PDF (rendered by chromium, see README).

Heavy imports (scipy, the store) happen in the `run_*` functions, keeping `--help`
and other commands fast.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execugraph.safety.inert_text import terminal_text

if TYPE_CHECKING:
    from execugraph.stats.report_model import RateCI, StatsReport
    from execugraph.stats.sensitivity_sections import ProtocolSensitivity

EXIT_BAD_REQUEST = 2
EXIT_EXPORT_FAILED = 1


def configure_stats(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments of `stats`."""
    parser.add_argument("--runs", nargs="+", required=True, metavar="RUN", help="run ids, earliest first")
    parser.add_argument(
        "--conditions",
        nargs="+",
        metavar="CONDITION",
        help="compare these conditions within (and across) the runs; one run alone compares all its conditions",
    )
    add_family_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the full report as JSON")
    parser.add_argument(
        "--near-limit",
        action="store_true",
        help="list instead the programs whose verdict was decided within 20%% of a time limit (CPU or wall-clock "
        "backstop), and the timeouts by the limit that ended them",
    )
    from execugraph.cli.windows import add_window_arguments

    add_window_arguments(parser)


def add_family_arguments(parser: argparse.ArgumentParser) -> None:
    """--baseline and --across-benchmarks: which comparisons form the family Holm adjusts over."""
    parser.add_argument(
        "--baseline",
        metavar="ARM",
        help="compare every arm against this one (a run id, an arm label such as 3:multi-full, an arm name, or a "
        "condition); default: all pairs",
    )
    parser.add_argument(
        "--cost",
        choices=("tokens", "calls", "wallclock", "model-time"),
        default=None,
        help="the cost the accuracy-cost frontier and matched budgets are shown on (default: the measure a batch's "
        "--match-budget planned, else tokens); model-time: the summed duration of a trial's LLM calls",
    )
    parser.add_argument(
        "--across-benchmarks",
        action="store_true",
        help="also compare arms of different benchmarks (by default such pairs are listed apart, not tested)",
    )


def family_from(args: argparse.Namespace) -> Any:
    """The comparison family the arguments ask for."""
    from execugraph.stats.family import Family

    return Family(baseline=args.baseline, comparable_only=not args.across_benchmarks)


def load_report(args: argparse.Namespace, command: str) -> StatsReport | None:
    """The report the arguments ask for, or None after printing why not (unknown run, condition, baseline)."""
    from execugraph.cli.store import open_store
    from execugraph.stats import UnknownConditionError, UnknownRunError, build_report
    from execugraph.verdicts.sensitivity import protocol_sensitivity

    store = open_store(args, writes=False)  # a bad --db: one line and exit 2, from cli.main
    try:
        from execugraph.stats.planned_budget import planned_cost, plans_of

        plans = plans_of({r: getattr(store.get_run(int(r)), "config", None) if str(r).isdigit() else None
                          for r in args.runs})
        cost = getattr(args, "cost", None) or planned_cost(plans) or "tokens"
        report = build_report(store, args.runs, args.conditions, family=family_from(args), cost=cost)
        if plans:  # `batch --match-budget`: its pair's pass@k at the budget, shown without being asked
            from execugraph.stats.planned_budget import planned_results

            args.planned_budgets = planned_results(report, plans)
        report = report.with_sections(
            protocol_sensitivity=protocol_sensitivity(store, args.runs, args.conditions, family=family_from(args))
        )
        from execugraph.verdicts.suite_sensitivity import suite_sensitivity

        suites = suite_sensitivity(store, args.runs, args.conditions, family=family_from(args))
        if any(suites.runs["amplified"]):  # only once some run was rescored on amplified tests
            report = report.with_sections(suite_sensitivity=suites)
        from execugraph.sequential.summary import report_section

        stops = report_section(store, list(args.runs))
        if stops:  # only for sequential batches
            report = report.with_sections(sequential=stops)
        return report
    except (UnknownRunError, UnknownConditionError, ValueError) as exc:
        print(f"{command}: {terminal_text(exc)}", file=sys.stderr)
        return None
    finally:
        store.close()


def run_stats(args: argparse.Namespace) -> int:
    """Build the report and print it; exit 2 naming an unknown run, condition or baseline."""
    if getattr(args, "near_limit", False):
        from execugraph.cli.near_limit import run_near_limit

        return run_near_limit(args)
    report = load_report(args, "stats")
    if report is None:
        return EXIT_BAD_REQUEST
    from execugraph.cli.windows import stored_window

    try:  # a contamination window: asked for, or from cutoffs kept with the runs (execugraph.verdicts.windows)
        window = stored_window(args, report, args.runs, args.conditions, family_from(args))
    except ValueError as exc:
        print(f"stats: {terminal_text(exc)}", file=sys.stderr)
        return EXIT_BAD_REQUEST
    from execugraph.cli.facets import stored_facets

    facets = stored_facets(args, report, args.runs)  # difficulty / platform, where the problems carry them
    if args.json:
        data = report.to_json_dict()
        if facets:
            data["breakdowns"] = facets
        if window is not None:
            data["contamination_window"] = window.to_json_dict()
        if getattr(args, "planned_budgets", None):
            data["planned_matched_budgets"] = args.planned_budgets
        print(json.dumps(data, indent=2))
    else:
        print(format_report(report))
        if facets:
            from execugraph.stats.facets import facet_lines

            print("\n".join(terminal_text(line) for line in facet_lines(facets)))
        if getattr(args, "planned_budgets", None):
            from execugraph.stats.planned_budget import planned_lines

            print("\n".join(terminal_text(line) for line in planned_lines(args.planned_budgets)))
        if window is not None:
            from execugraph.verdicts.windows import window_lines

            print("\n" + "\n".join(terminal_text(line) for line in window_lines(window)))
    return 0


def configure_report(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments of `report`."""
    parser.add_argument("--runs", nargs="+", required=True, metavar="RUN", help="run ids, earliest first")
    parser.add_argument("--conditions", nargs="+", metavar="CONDITION", help="as for `stats`")
    add_family_arguments(parser)
    parser.add_argument("--format", choices=("latex", "csv", "markdown"), default="markdown", dest="fmt")
    parser.add_argument("--out", type=Path, metavar="DIR", help="write one file per table into DIR")
    parser.add_argument("--figures", action="store_true", help="with --out: also write every chart as SVG and PDF")


def run_report(args: argparse.Namespace) -> int:
    """Print or write the tables; exit 2 naming a bad request, 1 when figures could not be rendered."""
    if args.figures and args.out is None:
        print("report: --figures needs --out DIR", file=sys.stderr)
        return EXIT_BAD_REQUEST
    report = load_report(args, "report")
    if report is None:
        return EXIT_BAD_REQUEST
    from execugraph.stats.all_tables import publication_tables
    from execugraph.stats.table_format import render_all, write_tables

    tables = publication_tables(report)
    if args.out is None:
        sys.stdout.write(render_all(tables, args.fmt))
        return 0
    written = write_tables(tables, args.fmt, args.out)
    if args.figures:
        from execugraph.figures.report_figures import report_figures
        from execugraph.figures.static import FigureExportError, write_figures

        try:
            written += write_figures(report_figures(report), args.out)
        except FigureExportError as exc:
            print(f"report: tables written, figures not: {exc}", file=sys.stderr)
            return EXIT_EXPORT_FAILED
    for path in written:
        print(path)
    return 0


def _pct(value: float | None) -> str:
    from execugraph.stats.table_format import number

    return number(value, ".1f", scale=100.0, suffix="%")


def _p(value: float | None) -> str:
    from execugraph.stats.table_format import number

    small = isinstance(value, float) and 0 <= value < 1e-3  # False for NaN, which `number` shows as missing
    return number(value, ".2e" if small else ".3f")


def _pp(value: float | None) -> str:
    from execugraph.stats.table_format import number

    return number(value, "+.1f")


def _ci_pp(lo: float | None, hi: float | None) -> str:
    from execugraph.stats.table_format import interval

    return interval(lo, hi)


def _ci_pct(lo: float | None, hi: float | None) -> str:
    from execugraph.stats.table_format import interval

    return interval(lo, hi, ".1f", scale=100.0, suffix="%")


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Left-aligned text table with a rule under the header (each cell on one line, no control from the data)."""
    cells = [[terminal_text(h) for h in headers]] + [[terminal_text(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def format_report(report: StatsReport) -> str:
    """Human-readable rendering of a report: runs, arms (when not the runs), categories, pairs."""
    return "\n".join([_format_report(report), *_sequential_lines(report)])


def _sequential_lines(report: StatsReport) -> list[str]:
    """The sequential batches' own decisions: what their p-values and intervals may claim."""
    rows = report.sequential or []
    if not rows:
        return []
    out = ["", "Sequential batches (the paired p-values above ignore the interim looks; these do not)"]
    shown: set[int] = set()
    for row in rows:
        if row.run not in shown:
            shown.add(row.run)
            out += [f"run {row.run}: {line}" if i == 0 else f"  {line}" for i, line in enumerate(row.lines)]
    return out


def _format_report(report: StatsReport) -> str:
    out = ["Runs"]
    out.append(
        _table(
            ["run", "name", "trials", "pass rate", "95% CI", "not counted"],
            [
                [
                    r.id,
                    r.name or r.title or "",
                    r.trials,
                    _pct(r.pass_rate),
                    _ci_pct(r.ci_lo, r.ci_hi),
                    ", ".join(f"{k} {v}" for k, v in r.not_counted.items()) or "",
                ]
                for r in report.runs
            ],
        )
    )
    arms = report.arms
    if any(a.condition is not None for a in arms):
        out += ["", "Arms"]
        out.append(
            _table(
                ["arm", "problems", "trials", "pass rate", "95% CI", "retry budget"],
                [
                    [
                        a.shown,
                        a.problems,
                        a.trials,
                        _pct(a.pass_rate),
                        _ci_pct(a.ci_lo, a.ci_hi),
                        "?" if a.retry_budget is None else a.retry_budget,
                    ]
                    for a in arms
                ],
            )
        )
    categories = sorted({c for a in arms for c in a.categories})
    if categories:
        out += ["", "Pass rate by category"]
        out.append(
            _table(
                ["arm", *categories],
                [
                    [a.shown, *(_pct(_category_rate(a.categories.get(c))) for c in categories)]
                    for a in arms
                ],
            )
        )
    flagged = [a for a in arms if a.flag]
    if flagged:
        out += ["", "Arms with ungraded trials (their comparisons rest on fewer graded trials)"]
        out += [f"! {terminal_text(a.shown)}: {terminal_text(a.flag)}" for a in flagged]
    out += ["", f"Paired comparisons (b - a over common problems; Holm over this family: {report.family.mode})"]
    if not report.pairs:
        out.append("(nothing to compare: give more runs or --conditions, or see the pairs listed apart below)")
    else:
        out.append(
            _table(
                [
                    "a",
                    "b",
                    "n",
                    "problems that differ",
                    "majority-discordant",
                    "delta pp",
                    "95% CI",
                    "p wilcoxon",
                    "p mcnemar",
                    "p holm",
                    "note",
                ],
                [
                    [
                        p.a_shown,
                        p.b_shown,
                        p.n,
                        p.problems_differ,
                        p.majority_discordant,
                        _pp(p.delta_pp),
                        _ci_pp(p.ci_lo, p.ci_hi),
                        _p(p.p_wilcoxon),
                        _p(p.p_mcnemar),
                        _p(p.p_holm),
                        " ".join(filter(None, [p.note, *(f"! {x} ungraded" for x in p.ungraded_arms)])),
                    ]
                    for p in report.pairs
                ],
            )
        )
        limits = [f"- {terminal_text(p.b_shown)} vs {terminal_text(p.a_shown)}: {terminal_text(p.explanation)}"
                  for p in report.pairs if p.explanation]
        if limits:
            out += ["", "What these comparisons can and cannot say", *limits]
    if report.excluded:
        out += ["", "Not compared (listed apart, not tested)"]
        out.append(
            _table(
                ["a", "b", "reason"],
                [[x.a_name or x.a, x.b_name or x.b, x.reason] for x in report.excluded],
            )
        )
    if report.pairs:
        from execugraph.stats.cost_text import cost_lines

        out += ["", *cost_lines(report, table=_table)]
    if report.protocol_sensitivity and report.pairs:
        out += ["", *format_sensitivity(report.protocol_sensitivity)]
    return "\n".join(out)


def _category_rate(section: RateCI | None) -> float | None:
    """A category's pass rate, None where the arm has no trials in it."""
    return None if section is None else section.pass_rate


def format_sensitivity(sensitivity: ProtocolSensitivity) -> list[str]:
    """The comparisons under both grading protocols side by side, or which rescores would make them."""
    out = ["Grading protocol sensitivity (the paired table's comparisons as run and under each protocol)"]
    if not sensitivity.applies:
        return [f"{out[0]}: {terminal_text(sensitivity.note or '')}"]
    if not sensitivity.available:
        out.append("(needs every run graded under both protocols; run:)")
        out += [f"  {m.command}" for m in sensitivity.missing]
        return out
    protocols = list(sensitivity.sets or sensitivity.runs)
    headers = ["a", "b"]
    for name in protocols:
        headers += [f"delta {name}", "95% CI", "p holm"]
    headers += ["same conclusion", "programs changed"]
    rows = []
    for pair in sensitivity.pairs:
        row = [pair.a, pair.b]
        for name in protocols:
            v = pair.by_set[name]
            row += [_pp(v.delta_pp), _ci_pp(v.ci_lo, v.ci_hi), _p(v.p_holm)]
        row += ["yes" if pair.same_conclusion else "NO", len(pair.changed)]
        rows.append(row)
    out.append(_table(headers, rows))
    out.append("runs: " + "; ".join(f"{name}: {', '.join(map(str, ids))}" for name, ids in sensitivity.runs.items()))
    return out
