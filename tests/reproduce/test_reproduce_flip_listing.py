"""The report's list of flipped verdicts: every flip with its reason, capped, and hostile text kept inert."""

from __future__ import annotations

import re

from execugraph.grading.rules import PROTOCOLS
from execugraph.reproduce import writing
from execugraph.reproduce.document import Bullets, Document, to_html_text, to_markdown_text

PAYLOAD = "<script>alert(1)</script> | pipe | *bold* **strong**"


def _runs(n: int) -> list[dict]:
    flips = [{"problem_id": f"p{i}{PAYLOAD if i == 0 else ''}", "condition": "c", "seed": 0, "trial_index": i,
              "from": "passed", "to": "wrong_answer", "reason": PAYLOAD} for i in range(n)]
    return [{"name": "run", **{p: {"flip_list": flips if p == PROTOCOLS[0] else []} for p in PROTOCOLS}}]


def test_every_flip_is_listed_with_its_reason() -> None:
    lines = writing.flip_lines(_runs(3))
    assert len(lines) == 3 and all(PAYLOAD in line for line in lines)
    assert lines[1].startswith(f"run · {PROTOCOLS[0]} · p1 [c seed 0 trial 1]: passed -> wrong_answer")


def test_flip_listing_escapes_markdown_and_html() -> None:
    doc = Document("t", [Bullets(writing.flip_lines(_runs(1)), plain=True)])
    md, page = to_markdown_text(doc), to_html_text(doc)
    assert "&lt;script>" in md and "<script>" not in md and "\\| pipe \\|" in md and "\\*\\*strong\\*\\*" in md
    assert not re.search(r"(?<!\\)[<|*]", md.split("\n", 2)[2]), md  # every <, | and * escaped
    assert "<script>" not in page and "&lt;script&gt;" in page and "<strong>" not in page


def test_the_listing_is_capped(monkeypatch) -> None:
    from execugraph.reproduce.study import Study

    monkeypatch.setattr(writing, "MAX_FLIPS_LISTED", 2)
    data = {"input": {"results": "r"}, "warnings": [], "runs": _runs(5), "families": [],
            "protocols": {}, "method": {"tests": "", "kept_verdicts": "", "conclusion": "",
                                        "bootstrap": {"resamples": 1, "seed": 0}},
            "sandbox": {"policy_version": "1", "default_timeout_s": 1.0, "default_memory_mb": 1, "note": ""},
            "versions": {}}
    monkeypatch.setattr(writing, "_summary", lambda study: "summary")
    monkeypatch.setattr(writing, "_run_lines", lambda study: [])
    md = to_markdown_text(writing.build_document(Study(data, [], [], []), {}))
    assert md.count("wrong\\_answer") + md.count("wrong_answer") >= 2 and "3 more in reproduce.json." in md
