"""Reproduce's report states the accuracy-cost findings of each family: on arms shaped like the paper's HumanEval
arms, multi-agent dominated by retry with the paired token difference and its interval, and one-shot's pass@k at
the multi-agent budget; names stay inert in Markdown and HTML."""

from __future__ import annotations

import pytest

from execugraph.reproduce import writing
from execugraph.reproduce.document import to_html_text, to_markdown_text
from execugraph.reproduce.study import Study
from execugraph.stats import build_report_from_records
from execugraph.stats.cost_text import cost_findings
from tests.stats.paper_arms import META, MULTI, ONE_SHOT, RETRY, paper_records

HOSTILE = "<script>x</script>|$&_"


def _study(section_cost: dict) -> Study:
    section = {"name": "humaneval", "slug": "humaneval", "source": "default", "mode": "all pairs", "runs": ["paper"],
               "holm_family_size": {"published": 3}, "excluded": [], "cost": section_cost,
               "comparisons": [{"sentence": "retry vs one-shot: as published ..."}]}
    data = {"input": {"results": "r"}, "warnings": [], "runs": [], "families": [section], "protocols": {},
            "method": {"tests": "", "kept_verdicts": "", "conclusion": "", "bootstrap": {"resamples": 1, "seed": 0}},
            "sandbox": {"policy_version": "1", "default_timeout_s": 1.0, "default_memory_mb": 1, "note": ""},
            "versions": {}}
    return Study(data, [], [[]], [{}])


def _document(monkeypatch: pytest.MonkeyPatch, names: dict[str, str] | None = None) -> tuple[str, str]:
    report = build_report_from_records(paper_records(names), ["1"], runs_meta=META)
    monkeypatch.setattr(writing, "_summary", lambda study: "summary")  # they read runs this study does not have
    monkeypatch.setattr(writing, "_run_lines", lambda study: [])
    doc = writing.build_document(_study(cost_findings(report)), {})
    return to_markdown_text(doc), to_html_text(doc)


def test_the_report_names_the_dominated_arm_and_the_matched_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    md, page = _document(monkeypatch)
    assert "### Accuracy and cost" in md
    plain = md.replace("\\", "")
    assert (f"{RETRY} dominates {MULTI}: +1.2 pp accuracy (95% CI -1.2 to +3.8, Holm p = 0.5), 3,029.4 fewer tokens "
            "per problem (95% CI 3,011.1 to 3,047.7") in plain
    assert f"{ONE_SHOT} at the budget of {MULTI} (3,727.4 tokens per trial = 9.4 samples of 396.0): pass@5 57.9%" in plain
    assert f"On the frontier: {ONE_SHOT}, {RETRY}." in plain
    assert "3,029.4 fewer tokens per problem" in page and "pass@5 57.9%" in page


def test_hostile_names_stay_inert_in_the_report(monkeypatch: pytest.MonkeyPatch) -> None:
    md, page = _document(monkeypatch, {MULTI: HOSTILE})
    assert "<script>" not in page and "&lt;script&gt;x&lt;/script&gt;" in page
    assert "&lt;script>x&lt;/script>\\|\\$&\\_" in md and "<script>" not in md
