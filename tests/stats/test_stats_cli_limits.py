"""`stats --json` carries each pair's smallest attainable p and explanation, and the method's p_min entry."""

from __future__ import annotations

import json

import pytest

from tests.stats.test_stats_cli import cli_runs  # noqa: F401  (the module's seeded CLI runs)

pytestmark = pytest.mark.integration


def test_stats_json_carries_the_limits(cli_runs):  # noqa: F811
    rc, out, err = cli_runs["results"]["json"]
    assert rc == 0, err
    printed = json.loads(out)
    (pair,) = printed["pairs"]
    assert {"p_min_wilcoxon", "p_min_mcnemar", "explanation"} <= set(pair)
    assert 0 < pair["p_min_wilcoxon"] <= pair["p_wilcoxon"] and 0 < pair["p_min_mcnemar"] <= pair["p_mcnemar"]
    assert isinstance(pair["explanation"], str)
    assert "p_min" in printed["method"]
