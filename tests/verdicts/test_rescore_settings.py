"""A rescore reads each condition's stored config as a RunConfig: what it cannot keep is logged, not hidden."""

from __future__ import annotations

import logging
from types import SimpleNamespace

from execugraph.domain.config import RunConfig
from execugraph.grading.rules import GradingSettings
from execugraph.verdicts.rescore import condition_settings


def _run(conditions: dict) -> SimpleNamespace:
    return SimpleNamespace(id=7, config={"conditions": conditions})


def test_an_odd_stored_value_is_reported_and_the_rest_is_the_run_configs(caplog) -> None:
    run = _run({"multi-full": {"grading_protocol": "nonsense", "test_timeout_s": 2.0, "memory_mb": 256}})
    with caplog.at_level(logging.WARNING, logger="execugraph.verdicts.rescore"):
        settings = condition_settings(run, "multi-full")
    assert settings == GradingSettings.of(RunConfig(test_timeout_s=2.0, memory_mb=256))
    assert (settings.protocol, settings.timeout_s, settings.memory_mb) == ("standalone", 2.0, 256)
    assert [r.getMessage() for r in caplog.records] == [
        "run 7, condition multi-full: field 'grading_protocol': stored value 'nonsense' is not valid here, "
        "default used"]


def test_a_well_formed_or_missing_condition_config_says_nothing(caplog) -> None:
    config = RunConfig(condition="single-retry", mode="single", planner=False, reviewer=False, optimizer=False,
                       grading_protocol="with-prompt", feedback_tests="visible", best_of_n=3)
    run = _run({"single-retry": config.model_dump()})
    with caplog.at_level(logging.WARNING, logger="execugraph.verdicts.rescore"):
        assert condition_settings(run, "single-retry") == GradingSettings.of(config)
        assert condition_settings(run, "other") == GradingSettings()  # no stored config: a RunConfig's defaults
    assert caplog.records == []


def test_fields_that_disagree_leave_the_grading_fields_read_alone_and_say_so(caplog) -> None:
    run = _run({"single": {"mode": "single", "planner": True, "test_timeout_s": 3.0, "memory_mb": 0}})
    with caplog.at_level(logging.WARNING, logger="execugraph.verdicts.rescore"):
        assert condition_settings(run, "single") == GradingSettings(timeout_s=3.0)
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2
    assert said[0] == ("run 7, condition single: stored config is not valid as a whole (Value error, mode 'single' "
                       "cannot enable planner, reviewer, optimizer or retrieval); only its grading fields were read")
    assert said[1] == "run 7, condition single: field 'memory_mb': stored value 0 is not valid here, default used"
