"""The one issue type and collector every importer refuses with, and the package errors built on them."""

from __future__ import annotations

import pytest

from execugraph.benchmarks.errors import BenchmarkFormatError, FormatIssue
from execugraph.inputs import MAX_REPORTED_ISSUES, InputError, Issue, IssueCollector
from execugraph.publication.formats import BundleFormatError
from execugraph.publication.formats import IssueCollector as BundleIssues
from execugraph.reproduce.inputs import ReproduceError


def test_an_issue_names_file_line_and_field_in_one_line() -> None:
    assert str(Issue("f.jsonl", 3, "tests[0].expected", "missing")) == "f.jsonl:3: field 'tests[0].expected': missing"
    assert str(Issue("f.jsonl", None, None, "empty")) == "f.jsonl: empty"
    assert Issue("f.jsonl", 3, "id", "bad").within_file() == "line 3, field id: bad"
    assert Issue("f.jsonl", None, None, "bad").within_file() == "bad"


def test_the_collector_keeps_a_bounded_list_and_raises_its_error_class() -> None:
    issues = IssueCollector()
    assert not issues
    issues.raise_if_any()  # nothing recorded: nothing raised
    for n in range(MAX_REPORTED_ISSUES + 5):
        issues.add("f", n, None, "bad")
    assert len(issues.issues) == MAX_REPORTED_ISSUES
    with pytest.raises(InputError) as caught:
        issues.raise_if_any()
    assert type(caught.value) is InputError
    assert str(caught.value).startswith(f"f:0: bad (and {MAX_REPORTED_ISSUES - 1} more: f:1: bad; f:2: bad; f:3: bad)")
    bundle = BundleIssues()
    bundle.add_issue(Issue("b.jsonl", 1, "x", "bad"))
    with pytest.raises(BundleFormatError) as caught_bundle:
        bundle.raise_if_any()
    error = caught_bundle.value
    assert isinstance(error, InputError) and (error.file, error.line, error.field) == ("b.jsonl", 1, "x")


def test_every_package_error_carries_the_common_issue_type() -> None:
    issue = Issue("families.json", 2, "families[0].name", "missing")
    for error in (BundleFormatError([issue]), ReproduceError([issue])):
        assert isinstance(error, InputError) and isinstance(error, ValueError)
        assert error.issues == [issue] and str(error) == str(issue)
    bench = BenchmarkFormatError("suite.jsonl", [FormatIssue(4, "id", "must not be empty")])
    assert isinstance(bench, InputError)
    (only,) = bench.issues
    assert isinstance(only, Issue) and (only.file, only.line, only.field) == ("suite.jsonl", 4, "id")
    assert str(only) == "line 4, field id: must not be empty"
    assert str(bench) == "suite.jsonl: refused (1 fault; nothing was imported)\n  line 4, field id: must not be empty"
    for cls in (InputError, BundleFormatError, ReproduceError):
        with pytest.raises(ValueError, match=f"{cls.__name__} needs at least one issue"):
            cls([])
