"""`python -m execugraph report --runs A B --format latex|csv|markdown [--out DIR] [--figures]`: publication tables.

The tables (`execugraph.stats.tables`) come from the same report `stats --json`
prints, with the same family options, so every number in them can be checked
against it. Without `--out` the tables go to stdout; with it each table is a
file (`paired.tex`, ...; LaTeX adds a compilable `tables.tex`), and `--figures`
adds every chart as SVG and PDF (rendered by chromium, see README).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from execugraph.cli.stats import EXIT_BAD_REQUEST, add_family_arguments, load_report

EXIT_EXPORT_FAILED = 1


def configure(parser: argparse.ArgumentParser) -> None:
    """Declare the command's arguments."""
    parser.add_argument("--runs", nargs="+", required=True, metavar="RUN", help="run ids, earliest first")
    parser.add_argument("--conditions", nargs="+", metavar="CONDITION", help="as for `stats`")
    add_family_arguments(parser)
    parser.add_argument("--format", choices=("latex", "csv", "markdown"), default="markdown", dest="fmt")
    parser.add_argument("--out", type=Path, metavar="DIR", help="write one file per table into DIR")
    parser.add_argument("--figures", action="store_true", help="with --out: also write every chart as SVG and PDF")


def run(args: argparse.Namespace) -> int:
    """Print or write the tables; exit 2 naming a bad request, 1 when figures could not be rendered."""
    if args.figures and args.out is None:
        print("report: --figures needs --out DIR", file=sys.stderr)
        return EXIT_BAD_REQUEST
    report = load_report(args, "report")
    if report is None:
        return EXIT_BAD_REQUEST
    from execugraph.stats.table_format import render_all, write_tables
    from execugraph.stats.tables import publication_tables

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
