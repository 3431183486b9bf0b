"""The typed report dumps to exactly the JSON the report dict always was, and reads back from files old and new."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from execugraph.stats import build_report_from_records
from execugraph.stats.all_tables import publication_tables
from execugraph.stats.report import _clean
from execugraph.stats.report_model import SequentialRow, StatsReport
from execugraph.stats.sensitivity_sections import ProtocolSensitivity
from tests.stats.test_stats_report import META, hand_records

# Written by the report code before the report was typed (the dict `build_report_from_records` returned).
EXPECTED = Path(__file__).parent / "data" / "hand_report.json"


@pytest.fixture(scope="module")
def report() -> StatsReport:
    return build_report_from_records(hand_records(), ["1", "2"], runs_meta=META)


def _same_keys_in_order(got: object, want: object, where: str = "report") -> None:
    """Walk both values together: same keys in the same order, same types, same values, at every level."""
    assert type(got) is type(want), f"{where}: {type(got).__name__} != {type(want).__name__}"
    if isinstance(want, dict):
        assert list(got) == list(want), f"{where}: keys {list(got)} != {list(want)}"
        for key in want:
            _same_keys_in_order(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, list):
        assert len(got) == len(want), f"{where}: {len(got)} items != {len(want)}"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _same_keys_in_order(g, w, f"{where}[{i}]")
    else:
        assert got == want, f"{where}: {got!r} != {want!r}"


def test_the_dump_is_the_old_report_dict_key_by_key(report):
    want = json.loads(EXPECTED.read_text())
    _same_keys_in_order(report.to_json_dict(), want)
    _same_keys_in_order(report.model_dump(mode="json"), want)


def test_the_written_json_is_byte_identical(report):
    assert json.dumps(report.to_json_dict(), indent=2) + "\n" == EXPECTED.read_text()


def test_a_report_read_back_from_a_file_is_the_same_report(report):
    read = StatsReport.from_json(json.loads(EXPECTED.read_text()))
    assert read == report
    assert json.dumps(read.to_json_dict()) == json.dumps(report.to_json_dict())
    assert read.report_schema == 1 and read.to_json_dict()["schema"] == 1


def test_an_older_report_without_newer_keys_still_reads(report):
    old = json.loads(EXPECTED.read_text())
    for pair in old["pairs"]:
        for key in ("p_min_wilcoxon", "p_min_mcnemar", "explanation", "categories", "ungraded_arms"):
            del pair[key]
    for arm in old["arms"]:
        for key in ("ungraded", "flag", "agreement"):
            del arm[key]
    del old["sampling"]["control"]
    del old["retry_budget_missing"]
    read = StatsReport.from_json(old)
    assert read.pairs[0].p_min_wilcoxon is None and read.pairs[0].categories == []
    assert read.arms[0].ungraded is None and read.arms[0].graded_trials == read.arms[0].trials
    assert read.sampling.control == [] and read.retry_budget_missing == []
    assert [t.key for t in publication_tables(read)][:3] == ["category_rates", "paired", "ablation"]


def test_a_misspelt_key_is_refused_not_read_as_missing():
    old = json.loads(EXPECTED.read_text())
    old["arms"][0]["pass_rat"] = 0.5
    with pytest.raises(ValidationError):
        StatsReport.from_json(old)


def test_the_report_is_frozen(report):
    with pytest.raises(ValidationError):
        report.arms[0].trials = 0  # type: ignore[misc]


def test_optional_sections_appear_only_when_added_and_after_method(report):
    assert not {"protocol_sensitivity", "suite_sensitivity", "sequential"} & set(report.to_json_dict())
    row = SequentialRow(run=1, comparison="2 vs 1", decision="efficacy", look="2 of 3", problems=20, planned=30,
                        delta=12.5, ci=(1.0, 24.0), p_repeated=0.01, saved_trials=40, lines=["stopped"])
    added = report.with_sections(protocol_sensitivity=ProtocolSensitivity(available=False), sequential=[row])
    dumped = added.to_json_dict()
    assert list(dumped)[-3:] == ["method", "protocol_sensitivity", "sequential"]
    assert dumped["sequential"][0]["ci"] == [1.0, 24.0]  # a tuple is a JSON list, as json.dumps wrote it
    assert StatsReport.from_json(json.loads(json.dumps(dumped))) == added
    with pytest.raises(ValueError, match="not an optional report section"):
        report.with_sections(arms=[])


def test_clean_keeps_the_json_rule():
    cleaned = _clean({"a": np.float64(0.5), "b": np.int64(3), "c": math.nan, "d": [math.inf, (1, np.bool_(True))]})
    assert cleaned == {"a": 0.5, "b": 3, "c": None, "d": [None, [1, True]]}
    assert type(cleaned["a"]) is float and type(cleaned["b"]) is int and type(cleaned["d"][1][1]) is bool
