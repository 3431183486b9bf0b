"""The Runs page's numbers that may be missing, as the cells show them: an em dash, never a blank, None or NaN (a
cancelled batch with no graded trial drew a blank pass rate), and still sorting in numeric order.

Why text: Streamlit's grid draws a missing value in a number column as "None" whatever a Styler or format says, and
a Styler's text reaches neither the grid's accessible table nor a copied cell. So these columns are text, right
aligned and padded on the left with figure spaces (as wide as a digit) to one width with at least one: the grid's
text sort (`localeCompare`: spaces before punctuation before digits) then orders them as numbers, and the dash,
which has no leading space, sorts after every number. Nothing here imports streamlit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from ui.views.run_groups import MISSING

FIGURE_SPACE = "\u2007"
RUN_TABLE_TEXT = {"pass_rate": "{:.1%}"}  # the Runs table's columns that may miss a value (the bar read 33.33%)
SUMMARY_TEXT = {"pass_rate": "{:.1%}", "mean_retries": "{:.2f}", "mean_wallclock_s": "{:.2f}"}  # run detail tables


def missing(value: object) -> bool:
    """None, NaN and pandas' NA / NaT: what a table would otherwise draw as a blank, None or NaN."""
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    return type(value).__name__ in ("NAType", "NaTType")


def cell_text(value: object, pattern: str | None = None) -> str:
    """One numeric cell as text: MISSING when missing, `pattern` when given, a whole number without `.0`."""
    if missing(value):
        return MISSING
    if pattern is not None:
        return pattern.format(value)
    if isinstance(value, float) and value.is_integer():
        return f"{int(value)}"  # a count column that held one missing value became float: 3.0 reads 3
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def aligned(values: Iterable[object], pattern: str | None = None) -> list[str]:
    """Non-negative numbers as text of one width (figure spaces in front, at least one) and MISSING where missing:
    in a text column they line up and sort in numeric order, the missing ones last."""
    values = list(values)
    texts = [cell_text(v, pattern) for v in values]
    width = 1 + max((len(t) for v, t in zip(values, texts, strict=True) if not missing(v)), default=0)
    return [MISSING if missing(v) else t.rjust(width, FIGURE_SPACE) for v, t in zip(values, texts, strict=True)]


def shown_rows(rows: list[Mapping[str, Any]], formats: Mapping[str, str]) -> list[dict[str, Any]]:
    """`rows` with each column of `formats` as `aligned` text (give those columns a right-aligned TextColumn)."""
    out = [dict(r) for r in rows]
    for column, pattern in formats.items():
        if not any(column in r for r in rows):
            continue
        for row, text in zip(out, aligned((r.get(column) for r in rows), pattern), strict=True):
            row[column] = text
    return out
