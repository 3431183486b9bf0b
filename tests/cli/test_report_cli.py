"""`python -m execugraph report` as real subprocesses on a store holding imported runs of three benchmarks.

The LaTeX is compiled when a TeX engine is installed, and checked structurally either way; every number in
the paired, category and ablation tables is compared with what `stats --json` prints for the same family.
CSV carries the unrounded values; `--figures` renders SVG and PDF through chromium.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from execugraph.configuration.settings import DATA_DIR
from execugraph.publication import import_path
from execugraph.store import Store
from tests.stats.test_stats_family_and_tables import check_latex_table

pytestmark = pytest.mark.integration

PROJECT_ROOT = Path(__file__).resolve().parents[2]
FIXTURE = DATA_DIR / "fixtures" / "reference_layout" / "grid-demo"
TEX = shutil.which("pdflatex") or shutil.which("lualatex")
CHROMIUM = Path("/usr/bin/chromium")


def _cli(db: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "execugraph", "--db", str(db), *args],
        cwd=PROJECT_ROOT,
        env={**os.environ, "BROWSER_PATH": str(CHROMIUM)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("report")
    db = folder / "runs.db"
    with Store.open(str(db)) as store:
        runs = {r.name: str(r.id) for r in import_path(store, FIXTURE).runs}
    ids = [runs[n] for n in ("e1_so", "e1_sr", "e2_he_mf", "e3_apps_so")]
    family = ["--runs", *ids, "--baseline", runs["e1_so"]]
    commands = {
        "json": ["stats", *family, "--json"],
        "latex": ["report", *family, "--format", "latex", "--out", str(folder / "tex")],
        "csv": ["report", *family, "--format", "csv", "--out", str(folder / "csv")],
        "markdown": ["report", *family, "--format", "markdown"],
        "bad-baseline": ["report", "--runs", *ids, "--baseline", "nope", "--format", "csv"],
        "figures-without-out": ["report", "--runs", *ids, "--figures"],
    }
    if CHROMIUM.exists():
        commands["figures"] = ["report", *family, "--format", "csv", "--out", str(folder / "fig"), "--figures"]
    procs = {name: _cli(db, *args) for name, args in commands.items()}
    results = {}
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=600)
        results[name] = (proc.returncode, out, err)
    assert results["json"][0] == 0, results["json"][2]
    return {"folder": folder, "ids": ids, "runs": runs, "results": results, "report": json.loads(results["json"][1])}


def test_the_family_keeps_imported_runs_of_other_benchmarks_apart(outputs):
    report = outputs["report"]
    assert [a["name"] for a in report["arms"]] == [f"{n} #{outputs['runs'][n]}" for n in
                                                   ("e1_so", "e1_sr", "e2_he_mf", "e3_apps_so")]
    assert [(p["a_name"], p["b_name"]) for p in report["pairs"]] == [(report["arms"][0]["name"], report["arms"][1]["name"])]
    assert sorted(x["reason"] for x in report["excluded"]) == [
        "different benchmarks (internal30 vs apps)",
        "different benchmarks (internal30 vs humaneval)",
    ]


def test_latex_compiles_or_is_sound_and_holds_the_numbers_of_stats_json(outputs, tmp_path):
    rc, out, err = outputs["results"]["latex"]
    assert rc == 0, err
    folder = outputs["folder"] / "tex"
    written = sorted(p.name for p in folder.iterdir())
    assert {"tables.tex", "paired.tex", "category_rates.tex", "ablation.tex", "cost.tex"} <= set(written)
    assert sorted(Path(line).name for line in out.split()) == written
    report = outputs["report"]

    header, *rows = check_latex_table((folder / "paired.tex").read_text())
    assert header[2:] == ["n", "Problems that differ", "Majority-discordant", "Delta (pp)", "95\\% CI (pp)",
                          "p (Wilcoxon, exact)", "p (Holm)"]
    assert len(rows) == len(report["pairs"]) == 1
    for cells, pair in zip(rows, report["pairs"], strict=True):
        assert cells[2:5] == [str(pair["n"]), str(pair["problems_differ"]), str(pair["majority_discordant"])]
        assert cells[5] == f"{pair['delta_pp']:+.1f}"
        assert cells[6] == f"[{pair['ci_lo']:+.1f}, {pair['ci_hi']:+.1f}]"
        assert cells[7] == f"{pair['p_wilcoxon']:.4f}" and cells[8] == f"{pair['p_holm']:.4f}"
    notes = (folder / "paired.tex").read_text()
    assert "Not compared: e2\\_he\\_mf" in notes and "different benchmarks" in notes

    _, *cat_rows = check_latex_table((folder / "category_rates.tex").read_text())
    overall = {c[0]: c for c in cat_rows if c[1] == "overall"}
    for arm in report["arms"]:
        cells = overall[arm["name"].replace("_", "\\_").replace("#", "\\#")]
        assert cells[2:5] == [str(arm["problems"]), str(arm["trials"]), f"{100 * arm['pass_rate']:.1f}"]
        assert cells[5] == f"[{100 * arm['ci_lo']:.1f}, {100 * arm['ci_hi']:.1f}]"

    header, *abl_rows = check_latex_table((folder / "ablation.tex").read_text())
    assert header[-1].startswith("Delta vs e1\\_so")
    deltas = {p["b"]: p["delta_pp"] for p in report["pairs"]}
    for cells, arm in zip(abl_rows, report["arms"], strict=True):
        assert cells[-2] == f"{100 * arm['pass_rate']:.1f}"
        assert cells[-1] == (f"{deltas[arm['label']]:+.1f}" if arm["label"] in deltas else "---")  # the em dash of a missing number, in LaTeX

    if TEX:
        build = tmp_path / "build"
        shutil.copytree(folder, build)
        done = subprocess.run([TEX, "-interaction=nonstopmode", "-halt-on-error", "tables.tex"], cwd=build,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout[-3000:]
        assert (build / "tables.pdf").stat().st_size > 1000


def test_csv_holds_the_unrounded_values(outputs):
    rc, _, err = outputs["results"]["csv"]
    assert rc == 0, err
    report = outputs["report"]
    rows = list(csv.reader(io.StringIO((outputs["folder"] / "csv" / "paired.csv").read_text())))
    assert rows[0] == ["Baseline", "Arm", "n", "Problems that differ", "Majority-discordant", "Delta (pp)",
                       "95% CI low (pp)", "95% CI high (pp)", "p (Wilcoxon, exact)", "p (Holm)"]
    pair = report["pairs"][0]
    assert [float(x) for x in rows[1][5:10]] == pytest.approx(
        [pair["delta_pp"], pair["ci_lo"], pair["ci_hi"], pair["p_wilcoxon"], pair["p_holm"]]
    )
    cost = list(csv.DictReader(io.StringIO((outputs["folder"] / "csv" / "cost.csv").read_text())))
    for row, arm in zip(cost, report["arms"], strict=True):
        assert float(row["Wall-clock median (s)"]) == pytest.approx(arm["cost"]["wallclock_s"]["median"])


def test_markdown_goes_to_stdout_and_bad_requests_exit_2(outputs):
    rc, out, err = outputs["results"]["markdown"]
    assert rc == 0, err
    assert "**Paired comparisons**" in out and "| Baseline | Arm |" in out
    assert "**Pass rate per category with 95% CI**" in out
    rc, out, err = outputs["results"]["bad-baseline"]
    assert rc == 2 and out == "" and "baseline 'nope' is not one of the arms" in err
    rc, _, err = outputs["results"]["figures-without-out"]
    assert rc == 2 and "--figures needs --out" in err


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium for static figures")
def test_figures_are_written_as_svg_and_pdf(outputs):
    rc, out, err = outputs["results"]["figures"]
    assert rc == 0, err
    folder = outputs["folder"] / "fig"
    for name in ("pass_rates", "categories", "comparisons", "cost_accuracy"):
        assert (folder / f"{name}.svg").read_bytes().startswith(b"<svg")
        assert (folder / f"{name}.pdf").read_bytes().startswith(b"%PDF")
    assert b"e1_sr #" in (folder / "pass_rates.svg").read_bytes()  # arms by name, on the drawn axis
