"""Runs: a cancelled batch with no graded trial reads an em dash in every empty numeric cell (the table's pass rate,
the run detail's metrics and per-condition / per-category tables), never a blank, None or NaN, and the text
columns still sort as numbers."""

from __future__ import annotations

from tests.ui.conftest import no_exception
from ui.keys import Runs
from ui.views.runs_cells import FIGURE_SPACE, aligned, cell_text, shown_rows

DASH = "—"


def _blank(value: object) -> bool:
    return str(value).strip(" " + FIGURE_SPACE) in ("", "None", "nan", "NaN", "<NA>", "NaT")


def test_a_cancelled_batch_with_no_graded_trial_reads_a_dash_in_the_runs_table(app, seeded_db):
    at = app("runs")
    no_exception(at)
    frame = at.dataframe[0].value
    rows = {row["id"]: row for row in frame.to_dict("records")}
    assert rows[seeded_db.cancelled]["pass_rate"] == DASH, rows[seeded_db.cancelled]
    graded = rows[seeded_db.batch]["pass_rate"]
    assert graded.startswith(FIGURE_SPACE) and graded.endswith("%"), graded
    for row in rows.values():
        for column in ("pass_rate", "passed", "graded", "errors", "trials", "llm_calls", "tokens", "wall_clock"):
            assert not _blank(row[column]), (column, row)


def test_the_cancelled_runs_detail_reads_dashes_not_blanks(app, seeded_db):
    at = app("runs", state={Runs.DETAIL: seeded_db.cancelled})
    no_exception(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Pass rate (0/0 graded)"] == DASH, metrics
    assert metrics["Mean wall clock"] == DASH, metrics
    assert not any(_blank(v) for v in metrics.values()), metrics
    for table in (at.dataframe[1], at.dataframe[2]):
        (row,) = table.value.to_dict("records")
        assert row["pass_rate"] == row["mean_wallclock_s"] == row["mean_retries"] == DASH, row
        assert row["trials"] == 1 and row["graded"] == 0, row  # counts stay numbers
        assert not any(_blank(v) for v in row.values()), row


def test_aligned_text_sorts_like_the_numbers_with_the_dash_last():
    values = [1.0, None, 0.333, 0.05, float("nan")]
    texts = aligned(values, "{:.1%}")
    assert [t.lstrip(FIGURE_SPACE) for t in texts] == ["100.0%", DASH, "33.3%", "5.0%", DASH]
    assert len({len(t) for t in texts if t != DASH}) == 1 and all(t[0] == FIGURE_SPACE for t in texts if t != DASH)
    # the grid's text sort (ICU: spaces before punctuation before digits), modelled by these ranks
    rank = {FIGURE_SPACE: 0, DASH: 1, ".": 2, "%": 3, **{d: 10 + int(d) for d in "0123456789"}}
    order = sorted(texts, key=lambda t: [rank[c] for c in t])
    assert [t.lstrip(FIGURE_SPACE) for t in order] == ["5.0%", "33.3%", "100.0%", DASH, DASH]
    assert cell_text(3.0) == "3" and cell_text(1.25) == "1.25" and cell_text(None) == DASH


def test_shown_rows_changes_only_the_named_columns():
    rows = [{"name": "a", "rate": 0.5, "n": 3}, {"name": "b", "rate": None, "n": 4}]
    shown = shown_rows(rows, {"rate": "{:.1%}", "absent": "{:.1f}"})
    assert [r["rate"] for r in shown] == [FIGURE_SPACE + "50.0%", DASH]
    assert [r["n"] for r in shown] == [3, 4] and "absent" not in shown[0] and rows[1]["rate"] is None
