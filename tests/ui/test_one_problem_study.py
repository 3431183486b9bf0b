"""A study of ONE problem in which both arms pass: every surface shows intervals of non-zero width and an em dash,
never None or NaN, where a number is missing (issue 38: honest small samples).

The store holds real rows (a batch run, two conditions, one problem; one trial of single-oneshot and two of
multi-full, all passed), so the pass@k table has a k (2) that one arm lacks. The surfaces: `stats` in the terminal
(a real subprocess), `stats --json` (JSON keeps null), the publication tables as LaTeX, CSV and Markdown written by
`report --out`, the report's explanation with its power sentence, and the Statistics page (AppTest).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from execugraph.cli import main
from execugraph.stats import build_report
from execugraph.stats.tables import MISSING
from execugraph.store import Store
from tests.ui.conftest import no_exception

PROJECT_ROOT = Path(__file__).resolve().parents[2]
RAW = re.compile(r"\bNone\b|\bnan\b|\bNaN\b|\binf\b")


def _one_problem_run(store: Store) -> int:
    """Both arms pass the one problem: single-oneshot once, multi-full twice (so only one arm has pass@2)."""
    run_id = store.create_run("batch", "one problem", {"conditions": ["single-oneshot", "multi-full"]},
                              benchmark="internal30", status="running")
    keys = [{"problem_id": "fib", "condition": cond, "seed": 0, "trial_index": t, "category": "dp",
             "benchmark": "internal30"}
            for cond, trials in (("single-oneshot", 1), ("multi-full", 2)) for t in range(trials)]
    assert store.ensure_trials(run_id, keys) == 3
    for trial in store.trials_for_run(run_id):
        calls = 1 if trial.condition == "single-oneshot" else 5
        store.finish_trial(trial.id, passed=True, error_class=None, retries_used=0, wallclock_s=2.0 * calls,
                           tokens_in=150 * calls, tokens_out=60 * calls, llm_calls=calls, test_source="problem")
    store.update_run(run_id, status="done")
    return run_id


def _cli(db: Path, *args: str) -> str:
    env = os.environ | {"EXECUGRAPH_DB": str(db)}
    done = subprocess.run([sys.executable, "-m", "execugraph", "--db", str(db), *args], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _no_raw_missing(text: str, where: str) -> None:
    found = RAW.search(text)
    assert found is None, f"{where}: {found.group(0)!r} in ...{text[max(0, found.start() - 80):found.end() + 80]}..."


@pytest.fixture
def one_problem(tmp_path: Path) -> tuple[Path, int]:
    db = tmp_path / "runs.db"  # the database the dashboard of this test opens (EXECUGRAPH_DB)
    with Store.open(str(db)) as store:
        run_id = _one_problem_run(store)
    return db, run_id


def test_the_report_has_non_zero_intervals_and_a_power_sentence(one_problem):
    db, run_id = one_problem
    with Store.open(str(db)) as store:
        report = build_report(store, [str(run_id)])
    (pair,) = report.pairs
    assert pair.n == 1 and pair.delta_pp == 0.0
    assert pair.ci_lo == pytest.approx(-79.345, abs=1e-3) and pair.ci_hi == pytest.approx(79.345, abs=1e-3)
    for section in [*report.arms, *report.runs, *(c for a in report.arms for c in a.categories.values())]:
        assert section.ci_lo == pytest.approx(0.2065, abs=1e-4) and section.ci_hi == 1.0  # Wilson, 1 of 1 problem
    assert "With 1 problem no difference can be detected; about 97 problems would detect a 20 pp difference at " \
           "80% power" in pair.explanation


def test_terminal_json_and_every_table_format_show_no_none_or_nan(one_problem, tmp_path, capsys, monkeypatch):
    db, run_id = one_problem
    terminal = _cli(db, "stats", "--runs", str(run_id))  # the terminal, as a user runs it
    _no_raw_missing(terminal, "stats")
    assert "20.7% .. 100.0%" in terminal and "-79.3 .. +79.3" in terminal
    assert "With 1 problem no difference can be detected; about 97 problems would detect a 20 pp" in terminal
    monkeypatch.setenv("EXECUGRAPH_DB", str(db))
    assert main(["--db", str(db), "stats", "--runs", str(run_id), "--json"]) == 0  # the same CLI, in this process
    printed = json.loads(capsys.readouterr().out)
    (pair,) = printed["pairs"]
    assert pair["ci_hi"] - pair["ci_lo"] > 150  # JSON is data: its missing numbers stay null
    for fmt, ext in (("latex", "tex"), ("csv", "csv"), ("markdown", "md")):
        out = tmp_path / fmt
        assert main(["--db", str(db), "report", "--runs", str(run_id), "--format", fmt, "--out", str(out)]) == 0
        files = sorted(out.glob(f"*.{ext}"))
        assert files, fmt
        for path in files:
            _no_raw_missing(path.read_text(), path.name)
        paired = (out / f"paired.{ext}").read_text()
        assert ("-79.3" in paired and "+79.3" in paired) or "-79.345" in paired, paired
        rates = (out / f"category_rates.{ext}").read_text()
        assert "20.7" in rates or "20.65" in rates, rates
    latex_rates = (tmp_path / "latex" / "category_rates.tex").read_text()
    assert "---" in latex_rates and MISSING not in latex_rates  # the em dash, as LaTeX writes it
    assert MISSING in (tmp_path / "markdown" / "category_rates.md").read_text()


def test_the_statistics_page_shows_em_dashes_and_wide_intervals(app, one_problem):
    _, run_id = one_problem
    at = app("statistics", runs=str(run_id))
    no_exception(at)
    shown = [str(e.value) for kind in ("markdown", "caption", "info", "warning", "success") for e in getattr(at, kind)]
    frames = [t.value for t in at.table] + [d.value for d in at.dataframe]
    for frame in frames:
        shown.append(frame.to_string())
        assert not frame.isna().any().any(), frame  # a missing cell would read None in the data frame
    for text in shown:
        _no_raw_missing(text, "Statistics page")
    paired = next(f for f in frames if "95% CI (pp)" in f.columns)
    assert [c.replace("\\", "") for c in paired["95% CI (pp)"]] == ["[-79.3, +79.3]"]  # shown literally
    passk = next(f for f in frames if "pass@2 (%)" in f.columns)
    assert list(passk["arm"]) == ["single-oneshot", "multi-full"]
    assert list(passk["pass@1 (%)"]) == ["100.0", "100.0"] and list(passk["pass@2 (%)"]) == [MISSING, "100.0"]
    rates = next(f for f in frames if "95% CI (%)" in f.columns)
    assert {c.replace("\\", "") for c in rates["95% CI (%)"]} == {"[20.7, 100.0]"}
    assert any("about 97 problems would detect a 20 pp difference" in text for text in shown)
