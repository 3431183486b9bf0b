"""`sequential-replay` on hand-built studies, checked against a hand computation of the rule."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from scipy.stats import norm

from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.store import Store

pytestmark = pytest.mark.integration

# Lan-DeMets O'Brien-Fleming-type, two-sided 0.05, 5 equal looks (ld98 / gsDesign, as in the boundary test)
BOUNDS = [4.8769, 3.3569, 2.6803, 2.2898, 2.0310]


def study(db: Path, a: list[int], b: list[int], *, extra_condition: bool = False) -> tuple[int, int]:
    """Two runs of one trial per problem: baseline outcomes `a`, compared `b` (1 passed, 0 failed)."""
    with Store.open(str(db)) as store:
        ids = []
        for condition, outcomes in (("single-oneshot", a), ("multi-full", b)):
            run_id = store.create_run("batch", condition, {}, status="done")
            for i, passed in enumerate(outcomes):
                tid = store.create_trial(run_id, f"p{i}", condition, 0, 0, benchmark="toy")
                store.finish_trial(tid, status="done", passed=bool(passed))
            if extra_condition:
                tid = store.create_trial(run_id, "p0", "single-retry", 0, 0, benchmark="toy")
                store.finish_trial(tid, status="done", passed=True)
            ids.append(run_id)
    return ids[0], ids[1]


def replay(db: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "execugraph", "--db", str(db), "sequential-replay", *args],
                          cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300)


def test_a_difference_on_every_problem_stops_at_the_fourth_of_five_looks_in_every_order(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    a, b = study(db, [0] * 10, [1] * 10)
    done = replay(db, "--runs", str(a), str(b), "--orders", "50", "--looks", "5", "--json", "--rule", "obf-mdd")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    # by hand: every d = +1, so Z_n = sqrt(n): 1.41, 2.00, 2.45 stay below 4.88, 3.36, 2.68; 2.83 >= 2.29 stops
    assert [math.sqrt(n) >= bound for n, bound in zip((2, 4, 6, 8, 10), BOUNDS, strict=True)][:4] == [
        False, False, False, True]
    assert got["stops"] == {"efficacy": 50}
    assert got["mean_stop_look"] == 4 and got["mean_trials_fraction"] == pytest.approx(0.8)
    assert got["full_z"] == pytest.approx(math.sqrt(10)) and got["full_significant"] is True
    assert got["agreement"] == 1.0 and got["problems"] == 10
    assert 0 <= got["type1_error"] <= 0.2  # sign-flipped +-1s: only an all-same run of 8 could cross


def test_no_difference_stops_for_futility_where_conditional_power_first_drops_below_ten_percent(tmp_path) -> None:
    db = tmp_path / "runs.db"
    a, b = study(db, [1, 0] * 5, [1, 0] * 5)
    done = replay(db, "--runs", str(a), str(b), "--orders", "20", "--looks", "5", "--mdd", "20", "--json", "--rule", "obf-mdd")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)

    def power(t: float) -> float:  # B_t = 0; drift = MDD sqrt(N) / max(rms(d), MDD) = sqrt(10)
        return float(norm.sf((BOUNDS[-1] - math.sqrt(10) * (1 - t)) / math.sqrt(1 - t)))

    first_low = next(k for k, t in enumerate((0.2, 0.4, 0.6, 0.8), start=1) if power(t) < 0.10)
    assert first_low == 4 and power(0.6) > 0.10  # 0.11 at look 3, 0.001 at look 4
    assert got["stops"] == {"futility": 20} and got["mean_stop_look"] == first_low
    assert got["agreement"] == 1.0 and got["full_significant"] is False
    assert got["type1_error"] == 0.0 and got["mean_trials_fraction"] == pytest.approx(0.8)


def test_unclear_arms_are_refused_with_the_conditions_named(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    a, b = study(db, [0, 1, 1], [1, 1, 1], extra_condition=True)
    refused = replay(db, "--runs", str(a), str(b))
    assert refused.returncode == 2 and "has 2 conditions (single-oneshot, single-retry)" in refused.stderr
    assert "Traceback" not in refused.stderr
    named = replay(db, "--runs", f"{a}:single-oneshot", f"{b}:multi-full", "--orders", "5")
    assert named.returncode == 0, named.stderr
    assert "multi-full vs" in named.stdout and "3 paired problems" in named.stdout
    missing = replay(db, "--runs", "999", str(b))
    assert missing.returncode == 2 and "run 999 does not exist" in missing.stderr
