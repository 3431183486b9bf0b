"""Reproducing a published study of ONE problem that both runs pass: report.md, report.html and the LaTeX/CSV
tables show intervals of non-zero width, an em dash where a number is missing (never None or NaN) and the power
sentence; reproduce.json keeps null for missing numbers (issue 38)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.support import published_study as S

PROJECT = Path(__file__).resolve().parents[2]
RAW = re.compile(r"\bNone\b|\bnan\b|\bNaN\b|\binf\b")


def _write_one_problem_study(root: Path) -> tuple[Path, Path]:
    """Two run folders of the hand-written study (one-shot, multi-full), cut to `fib`, which both pass."""
    folder = root / "study"
    for arm in ("e1_so", "e3_mf"):
        (folder / arm).mkdir(parents=True)
        rows = [r for r in S.records_of(arm) if r["problem_id"] == "fib"]
        assert [r["passed"] for r in rows] == [True]
        (folder / arm / "trials.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    dataset = root / "benchmark.jsonl"
    dataset.write_text("".join(json.dumps(line) + "\n" for line in S.dataset_lines() if line["id"] == "fib"))
    return folder, dataset


def test_a_one_problem_study_reports_wide_intervals_and_no_none(tmp_path: Path) -> None:
    folder, dataset = _write_one_problem_study(tmp_path)
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "execugraph", "--db", str(tmp_path / "runs.db"), "reproduce",
                           str(folder), "--dataset", str(dataset), "--out", str(out), "--workers", "2"],
                          capture_output=True, text=True, timeout=600, cwd=PROJECT)
    assert done.returncode == 0, done.stderr
    surfaces = {"terminal": done.stdout, "report.md": (out / "report.md").read_text(),
                "report.html": (out / "report.html").read_text()}
    surfaces |= {p.name: p.read_text() for p in sorted((out / "tables").glob("*")) if p.suffix in (".tex", ".csv")}
    for name, text in surfaces.items():
        found = RAW.search(text)
        assert found is None, f"{name}: ...{text[max(0, found.start() - 80):found.end() + 80]}..."
    md = surfaces["report.md"]
    assert "[-79.3, +79.3]" in md and "[20.7, 100.0]" in md and "[+0.0, +0.0]" not in md and "[100.0, 100.0]" not in md
    assert "Power: with 1 problem no difference can be detected; about 97 problems would detect a 20 pp difference" \
        in md
    assert "| — |" in md  # a missing number in a Markdown table
    assert "[-79.3, +79.3]" in surfaces["report.html"] and "—" in surfaces["report.html"]
    data = json.loads((out / "reproduce.json").read_text())
    (comparison,) = data["families"][0]["comparisons"]
    for vset in ("published", "standalone", "with-prompt"):
        values = comparison[vset]
        assert values["ci_hi"] - values["ci_lo"] > 150 and values["delta_pp"] == 0.0
