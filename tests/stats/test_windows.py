"""Contamination windows (`stats.windows`): dates checked, problems placed in windows, undated ones named,
each comparison again on the window with its own n and Holm p, and one sentence on whether it holds."""

from __future__ import annotations

import pytest

from execugraph.stats.from_records import build_report_from_records
from execugraph.verdicts.windows import (
    Window,
    pair_window,
    parse_cutoffs,
    parse_date,
    window_lines,
    window_sentence,
    windowed_comparisons,
)

# p1..p12 released late (b solves them, a does not), e1..e8 early (a solves them, b does not), u1 undated
LATE = {f"p{i}": f"2024-09-{i:02d}" for i in range(1, 13)}
EARLY = {f"e{i}": f"2023-01-{i:02d}" for i in range(1, 9)}
DATES = {**LATE, **EARLY}
META = {"1": {"title": "A", "models": {"generator": "model-a"}}, "2": {"title": "B", "models": {"generator": "model-b"}}}


def _records() -> list[dict]:
    out = []
    for pid in [*LATE, *EARLY, "u1"]:
        for run in ("1", "2"):
            won = (run == "2") if pid.startswith("p") else (run == "1") if pid.startswith("e") else True
            out.append({"run_id": run, "problem_id": pid, "condition": "c", "seed": 0, "trial_index": 0,
                        "passed": won, "category": "x"})
    return out


def _section(**kwargs):
    records = _records()
    full = build_report_from_records(records, ["1", "2"], runs_meta=META, n_boot=200)
    return full, windowed_comparisons(full, records, DATES, ["1", "2"], runs_meta=META, **kwargs)


def test_dates_are_checked_and_the_error_names_where() -> None:
    assert parse_date("2024-08-01", "x") == "2024-08-01"
    for bad in ("2024/08/01", "2024-13-01", "01-08-2024", 20240801, "2024-08-01T00:00:00"):
        with pytest.raises(ValueError, match=r"^suite\.jsonl: record 3: field 'release_date': .* YYYY-MM-DD"):
            parse_date(bad, "suite.jsonl: record 3: field 'release_date'")
    assert parse_cutoffs(["org/model=7b=2024-03-01", "m=2024-01-31"]) == {"org/model=7b": "2024-03-01",
                                                                         "m": "2024-01-31"}
    with pytest.raises(ValueError, match="--cutoff 'model': expected MODEL=DATE"):
        parse_cutoffs(["model"])
    with pytest.raises(ValueError, match="--cutoff 'm=March'"):
        parse_cutoffs(["m=March"])


def test_window_bounds_are_strict_and_an_empty_window_is_refused() -> None:
    w = Window("2024-01-01", "2024-02-01")
    assert [w.holds(d) for d in ("2024-01-01", "2024-01-02", "2024-01-31", "2024-02-01")] == [False, True, True, False]
    assert Window(after="2024-01-01").holds("2030-01-01") and Window().open
    with pytest.raises(ValueError, match="empty window"):
        Window("2024-02-01", "2024-01-01")


def test_each_comparison_is_reported_on_all_problems_and_in_the_window() -> None:
    full, section = _section(window=Window(after="2024-06-01"))
    (pair,) = section.pairs
    assert pair.full["n"] == 21 and pair.windowed is not None and pair.windowed["n"] == 12
    assert pair.windowed["delta_pp"] == pytest.approx(100.0) and pair.windowed["p_holm"] < 0.05
    assert pair.full["delta_pp"] == pytest.approx(100.0 * 4 / 21)  # 12 won, 8 lost, 1 tied
    assert pair.full["p_holm"] > 0.05 and pair.holds is False
    assert "does NOT hold in the window (its significance changes)" in pair.sentence
    assert "on the 12 released after 2024-06-01, B #2 ahead by 100.0 pp" in pair.sentence
    assert section.undated == ["u1"] and section.inside == {"released after 2024-06-01": 12}
    rates = {row["name"]: (row["all"]["pass_rate"], row["window"]["pass_rate"]) for row in section.arms}
    assert rates == {"A #1": (pytest.approx(9 / 21), 0.0), "B #2": (pytest.approx(13 / 21), 1.0)}
    text = "\n".join(window_lines(section))
    assert "1 problem(s) without a release date, left out of every window: u1" in text
    assert section.to_json_dict()["undated"] == {"count": 1, "problems": ["u1"]}


def test_the_window_from_cutoffs_is_after_the_later_cutoff_of_the_two_models() -> None:
    assert pair_window("model-a", "model-b", Window(), {"model-a": "2023-06-01", "model-b": "2024-01-01"}) == Window(
        "2024-01-01")
    assert pair_window("model-a", "model-b", Window("2022-01-01"), {"model-a": "2023-06-01"}) == Window("2022-01-01")
    _, section = _section(cutoffs={"model-a": "2022-06-01", "model-b": "2023-01-05"})
    (pair,) = section.pairs
    assert pair.window == Window("2023-01-05") and pair.windowed is not None
    assert pair.windowed["n"] == 12 + 3  # e6, e7, e8 were released after 2023-01-05


def test_a_window_no_problem_falls_in_cannot_test_the_comparison() -> None:
    _, section = _section(window=Window(after="2030-01-01"))
    (pair,) = section.pairs
    assert pair.windowed is None and pair.holds is None and "untested in the window" in pair.sentence
    with pytest.raises(ValueError, match="needs --released-after"):
        _section()


def test_the_sentence_says_when_the_conclusion_holds() -> None:
    full = {"n": 40, "delta_pp": 20.0, "p_holm": 0.001}
    holds, sentence = window_sentence("a", "b", full, {"n": 15, "delta_pp": 18.0, "p_holm": 0.02},
                                      Window("2024-01-01"))
    assert holds is True
    assert sentence == ("b vs a: the conclusion holds in the window: on all 40 common problems, b ahead by 20.0 pp "
                        "(Holm p 0.001); on the 15 released after 2024-01-01, b ahead by 18.0 pp (Holm p 0.02).")
    holds, sentence = window_sentence("a", "b", full, {"n": 15, "delta_pp": -5.0, "p_holm": 0.5}, Window("2024-01-01"))
    assert holds is False and "(the direction changes)" in sentence
