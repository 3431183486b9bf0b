"""Kept for plugins and older imports: this module now lives in `execugraph.verdicts.windows`."""

from execugraph.verdicts.windows import (
    PAIR_KEYS,
    Window,
    WindowPair,
    WindowSection,
    pair_window,
    parse_cutoffs,
    parse_date,
    store_windowed_comparisons,
    window_lines,
    window_sentence,
    windowed_comparisons,
)

__all__ = [
    "PAIR_KEYS",
    "Window",
    "WindowPair",
    "WindowSection",
    "pair_window",
    "parse_cutoffs",
    "parse_date",
    "store_windowed_comparisons",
    "window_lines",
    "window_sentence",
    "windowed_comparisons",
]
