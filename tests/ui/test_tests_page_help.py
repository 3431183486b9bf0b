"""Tests page with no amplified suite yet (issue 41): it says what a suite is, how to make one (a command per
benchmark that can be amplified) and what to do with it, not only an empty state."""

from __future__ import annotations

from tests.ui.conftest import no_exception, texts
from ui.views import tests_help


def test_an_empty_tests_page_says_how_to_make_a_suite_and_what_it_is_for(app):
    at = app("tests")
    no_exception(at)
    assert any("No amplified suites in this database yet" in i for i in texts(at, "info"))
    code = "\n".join(c.value for c in at.code)
    assert code.splitlines() == tests_help.commands()
    assert "python -m execugraph amplify --benchmark internal30 --seed 0" in code
    prose = " ".join(texts(at, "markdown"))
    assert "Hypothesis" in prose and "rescore --run R --suite amplified" in prose
