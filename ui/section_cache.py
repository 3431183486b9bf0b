"""Statistics' verdict-set sensitivity and contamination-window sections, built once per database, data version and
inputs (`st.cache_data`, as the report itself is): a rerun that changes none of them builds no report again.

The data version covers what the two builders read: the compared runs' trials and those of the runs derived from
them (rescores under another protocol or stronger tests, a file's second verdict set), so a finished rescore or a
new trial shows on the next run. `BUILDS` counts the builds per section (the seam the tests read).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import streamlit as st

from execugraph.store import run_reads

if TYPE_CHECKING:
    from execugraph.stats.report_model import StatsReport
    from execugraph.store import Store
    from execugraph.verdicts.windows import WindowSection

BUILDS: Counter[str] = Counter()  # section name -> times its builder ran in this process


def data_version(store: Store, run_ids: Sequence[int]) -> tuple[Any, ...]:
    """Trial counts (finished, graded, passed, errored) of the runs and of every rescore or import made from them."""
    ids = sorted({int(r) for r in run_ids})
    derived: set[int] = set()
    for run_id in ids:
        family = run_reads.rescore_family(store, run_id)
        derived.update(family[1] if family else [])
        derived.update(child for child, _ in run_reads.imported_children(store, run_id))
    counts = run_reads.trial_count_rows(store, sorted({*ids, *derived}))
    return tuple(ids), tuple(sorted(derived)), tuple(sorted(counts))


@st.cache_data(show_spinner="Comparing the verdict sets...", max_entries=16)
def _sensitivity(_store: Store, url: str, run_ids: tuple[int, ...], conditions: tuple[str, ...], baseline: str | None,
                 comparable_only: bool, version: tuple[Any, ...]) -> tuple[Any, Any]:
    from execugraph.stats.family import Family
    from execugraph.verdicts.sensitivity import protocol_sensitivity
    from ui.views.verdict_choices import amplified_sensitivity

    BUILDS["sensitivity"] += 1
    family = Family(baseline=baseline, comparable_only=comparable_only)
    return (protocol_sensitivity(_store, list(run_ids), list(conditions) or None, family=family),
            amplified_sensitivity(_store, list(run_ids), list(conditions) or None, family=family))


def sensitivity(store: Store, run_ids: Sequence[int], conditions: Sequence[str], *, baseline: str | None,
                comparable_only: bool) -> tuple[Any, Any]:
    """(protocol sensitivity, amplified-tests sensitivity or None) of the family; ValueError as the builders raise."""
    ids = tuple(int(r) for r in run_ids)
    return _sensitivity(store, store.url, ids, tuple(conditions), baseline, comparable_only,
                        data_version(store, ids))


@st.cache_data(show_spinner="Comparing on the problems released after the date...", max_entries=16)
def _window(_store: Store, _full: StatsReport, url: str, run_ids: tuple[int, ...], conditions: tuple[str, ...] | None,
            baseline: str | None, comparable_only: bool, after: str, version: tuple[Any, ...]) -> WindowSection:
    from execugraph.stats.family import Family
    from execugraph.verdicts.windows import Window, store_windowed_comparisons

    BUILDS["window"] += 1
    return store_windowed_comparisons(_store, _full, [str(r) for r in run_ids], list(conditions) if conditions else None,
                                      window=Window(after=after),
                                      family=Family(baseline=baseline, comparable_only=comparable_only))


def window(store: Store, full: StatsReport, run_ids: Sequence[str], conditions: Sequence[str] | None, *,
           baseline: str | None, comparable_only: bool, after: str) -> WindowSection:
    """Each comparison of `full` on the problems released after `after` (an ISO date), as
    `execugraph.verdicts.windows.store_windowed_comparisons` builds it (`full` is the report of the same inputs)."""
    ids = tuple(int(r) for r in run_ids)
    return _window(store, full, store.url, ids, tuple(conditions) if conditions else None, baseline, comparable_only,
                   after, data_version(store, ids))
