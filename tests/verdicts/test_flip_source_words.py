"""The lead of a flip in the source's own words (`flip_reasons.source_lead`): which side failed, the words quoted
on one bounded line, our time or our failure; nothing when the source said nothing."""

from __future__ import annotations

from execugraph.verdicts.flip_reasons import SOURCE_QUOTE_CHARS, Recorded, Regraded, quote, source_lead


def _then(passed: bool, error_class: str | None, words: str | None) -> Recorded:
    return Recorded(passed, error_class, 0, None, "with-prompt", "reference", words or "", "problem",
                    source_words=words)


def _now(passed: bool, error_class: str | None, results: list[dict]) -> Regraded:
    return Regraded(passed, error_class, 1, "d", "with-prompt", True, "7", False, results=results)


def test_a_timeout_there_that_passes_here_gives_our_cpu_time() -> None:
    lead = source_lead(_then(False, "timeout", "timed out"), _now(True, None, [{"passed": True, "cpu_s": 0.2}]))
    assert lead == 'timed out in the original environment ("timed out"); passes here in 0.2 s CPU'


def test_a_pass_there_that_fails_here_gives_our_failure_in_our_words() -> None:
    failing = {"name": "check", "passed": False, "status": "wrong_answer", "detail": "AssertionError\n  at line 3"}
    lead = source_lead(_then(True, None, "passed"), _now(False, "wrong_answer", [failing]))
    assert lead == "passed in the original (\"passed\"); fails here: wrong_answer (test 'check': wrong_answer, " \
                   "AssertionError at line 3)"


def test_the_quote_is_one_bounded_line_and_silence_gives_nothing() -> None:
    said = quote("failed: " + "x\n" * 1000)
    assert len(said) == SOURCE_QUOTE_CHARS + 2 and "\n" not in said and said.endswith('..."')
    assert source_lead(_then(False, "failed", None), _now(True, None, [])) is None
    assert source_lead(_then(False, "failed", "failed: x"), _now(False, "failed", [])) is None  # no flip
    assert source_lead(_then(False, "failed", "failed: x"), _now(True, None, [])) == \
        'failed in the original ("failed: x"); passes here'
