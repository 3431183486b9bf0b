"""`python -m execugraph reproduce PATH [--dataset FILE] [--families FILE] --out DIR`: what holds up in a study.

Imports a published results folder (or zip, or an ExecuGraph bundle) into the
database (`--db`), rescores every run under both grading protocols, and writes
report.md, report.html, tables/ (LaTeX and CSV), figures/ (SVG) and
reproduce.json into DIR. A progress line goes to stderr; the written files to
stdout. Exit 2 for an input that cannot be used (the message names file, line
and field; nothing is imported), 1 when everything but the figures was written.
The report names runs as the study does and holds the study's own warnings, so it
is the same on any database; what this database already held ("already imported
as run 3") is printed as a note and kept under `local` in reproduce.json.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXIT_BAD_INPUT = 2
EXIT_NO_FIGURES = 1
# Here, not beside the amplified pass (`execugraph.reproduce.amplified`): declaring the flag must not load the study.
AMPLIFY_HELP = ("also grade every run on stronger (amplified) tests and show each comparison under the original and "
                "the amplified tests side by side; builds a missing amplified suite from the benchmark's references "
                "(internal30, humaneval) and reruns every program once more in the sandbox, so it costs about one "
                "more rescore per run")


def configure(parser: argparse.ArgumentParser) -> None:
    """Declare the command's arguments."""
    parser.add_argument("path", type=Path, help="a published results folder (a trials.jsonl per run folder), or a zip")
    parser.add_argument("--dataset", type=Path, metavar="FILE",
                        help="the study's benchmark file (published layout, JSONL): its tests grade the runs it covers")
    parser.add_argument("--families", type=Path, metavar="FILE",
                        help="JSON naming the comparison families (name, runs by folder, baseline or pairs); "
                        "default: runs grouped by benchmark and problem set, all pairs within a group")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="folder for the report, tables, figures")
    parser.add_argument("--workers", type=int, help="sandbox workers (default: one per core)")
    parser.add_argument("--max-size", metavar="SIZE", help="most the input may unpack to, e.g. 2GiB "
                        "(default: EXECUGRAPH_IMPORT_MAX_BYTES, else 1GiB)")
    parser.add_argument("--no-figures", action="store_true", help="skip the SVG figures (they need chromium)")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.add_argument("--amplify", action="store_true", help=AMPLIFY_HELP)
    from execugraph.cli.windows import add_window_arguments

    add_window_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Reproduce; print the files written and one line per comparison family."""
    from execugraph.configuration.settings import parse_size
    from execugraph.safety.inert_text import terminal_text as shown

    try:
        limit = parse_size(args.max_size) if args.max_size else None
    except ValueError as exc:
        print(f"reproduce: --max-size: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    from execugraph.cli.windows import window_from, window_requested

    try:
        window = window_from(args) if window_requested(args) else None
    except ValueError as exc:
        print(f"reproduce: {shown(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.out.exists() and not args.out.is_dir():
        print(f"reproduce: --out {args.out}: exists and is not a folder", file=sys.stderr)
        return EXIT_BAD_INPUT
    from execugraph.cli.store import open_store
    from execugraph.publication import BundleFormatError
    from execugraph.reproduce import REPORT_HTML, ReproduceError, reproduce_path, terminal_line

    store = open_store(args, writes=True)
    listener = None if args.quiet else terminal_line(sys.stderr)
    try:
        study, missing = reproduce_path(store, args.path, args.out, dataset=args.dataset, families=args.families,
                                        max_bytes=limit, listener=listener, workers=args.workers,
                                        figures=not args.no_figures, amplify=args.amplify, window=window)
    except (BundleFormatError, ReproduceError) as exc:
        _end_line(listener)
        print(f"reproduce: nothing imported: {shown(exc.issues[0])}", file=sys.stderr)
        for issue in exc.issues[1:]:
            print(f"  {shown(issue)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        _end_line(listener)
        print(f"reproduce: {shown(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    finally:
        store.close()
    _end_line(listener)
    for warning in study.data["warnings"]:
        print(f"reproduce: warning: {shown(warning)}", file=sys.stderr)
    for note in study.data["local"]["import_notes"]:  # about this database: not in the report
        print(f"reproduce: note: {shown(note)}", file=sys.stderr)
    outputs = study.data["outputs"]
    for name in [*outputs["report"], *outputs["tables"], *outputs["figures"], "reproduce.json"]:
        print(shown(args.out / name))
    for family in study.data["families"]:
        for comparison in family["comparisons"]:
            print(shown(comparison["sentence"]), file=sys.stderr)
        for line in (family.get("contamination_window") or {}).get("lines", []):
            print(shown(line), file=sys.stderr)
    if missing is not None and not args.no_figures:
        print(f"reproduce: everything but the figures was written to {shown(args.out / REPORT_HTML)}: {shown(missing)}",
              file=sys.stderr)
        return EXIT_NO_FIGURES
    return 0


def _end_line(listener: object) -> None:
    if listener is not None:
        sys.stderr.write("\n")
