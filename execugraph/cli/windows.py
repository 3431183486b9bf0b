"""`--released-after`, `--released-before` and `--cutoff MODEL=DATE`: the contamination-window flags of
`stats`, `reproduce` and `batch`, and the windowed section they add (`execugraph.verdicts.windows`)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from execugraph.stats.report_model import StatsReport
    from execugraph.store import Store
    from execugraph.verdicts.windows import Window, WindowSection


def add_window_arguments(parser: argparse.ArgumentParser, *, cutoff: bool = True) -> None:
    """Declare the window flags (dates as YYYY-MM-DD)."""
    parser.add_argument("--released-after", metavar="DATE",
                        help="also report each comparison on the problems released strictly after DATE (YYYY-MM-DD)")
    parser.add_argument("--released-before", metavar="DATE",
                        help="... and strictly before DATE (YYYY-MM-DD)")
    if cutoff:
        parser.add_argument("--cutoff", action="append", metavar="MODEL=DATE",
                            help="a model's training cutoff (repeatable); without --released-after each comparison "
                            "is also shown on the problems released after the later cutoff of its two models")


def window_requested(args: argparse.Namespace) -> bool:
    """Whether any window flag was given."""
    return bool(getattr(args, "released_after", None) or getattr(args, "released_before", None)
                or getattr(args, "cutoff", None))


def window_from(args: argparse.Namespace) -> tuple[Window, dict[str, str]]:
    """The explicit window and the cutoffs the flags give; ValueError naming the bad flag."""
    from execugraph.verdicts.windows import Window, parse_cutoffs, parse_date

    after = args.released_after and parse_date(args.released_after, "--released-after")
    before = args.released_before and parse_date(args.released_before, "--released-before")
    return Window(after or None, before or None), parse_cutoffs(getattr(args, "cutoff", None))


def stored_cutoffs(store: Store, run_ids: Sequence[str]) -> dict[str, str]:
    """The training cutoffs the runs were queued with (`batch --cutoff`, kept in the run config)."""
    from execugraph.store import run_reads

    found: dict[str, str] = {}
    keys = [int(r) for r in run_ids if str(r).strip().isdigit()]
    for header in run_reads.run_headers(store, keys):
        batch = (header.config or {}).get("batch")
        cutoffs = batch.get("model_cutoffs") if isinstance(batch, dict) else None
        if isinstance(cutoffs, dict):
            found.update({str(m): str(d) for m, d in cutoffs.items()})
    return found


def stored_window(args: argparse.Namespace, report: StatsReport, run_ids: Sequence[str],
                  conditions: Sequence[str] | None, family: Any = None) -> WindowSection | None:
    """The windowed comparisons of stored runs (cutoffs given here override those kept with the runs, which override
    the dashboard's cutoff table), or None when no window is asked for and no compared model has a cutoff;
    ValueError for bad flags."""
    from execugraph.cli.store import open_store
    from execugraph.verdicts.windows import store_windowed_comparisons

    window, cutoffs = window_from(args)
    store = open_store(args, writes=False)
    try:
        from execugraph.store.model_cutoffs import model_cutoffs

        compared = {a.model for a in report.arms if a.model}  # the dashboard's table, for the models compared here
        table = {m: d for m, d in model_cutoffs(store).items() if m in compared}
        cutoffs = table | stored_cutoffs(store, run_ids) | cutoffs
        if window.open and not cutoffs:
            return None
        return store_windowed_comparisons(store, report, run_ids, conditions, window=window, cutoffs=cutoffs,
                                          family=family)
    finally:
        store.close()
