"""What one typed on Synthesize is still there after a visit to another page in the same session."""

from __future__ import annotations

from tests.ui.conftest import no_exception
from ui.keys import Synthesize


def test_synthesize_inputs_survive_a_page_switch(app):
    at = app("synthesize")
    at.text_area(key=Synthesize.STATEMENT).input("Return the sum of a and b.").run()
    at.text_input(key=Synthesize.ENTRY_POINT).input("add").run()
    at.text_input(key=Synthesize.TITLE).input("my sum").run()
    at.selectbox(key=Synthesize.CONDITION).set_value("single-oneshot").run()
    at.number_input(key=Synthesize.TIMEOUT).set_value(7.0).run()
    at.radio(key=Synthesize.TESTS_MODE).set_value(at.radio(key=Synthesize.TESTS_MODE).options[1]).run()
    at.text_area(key=Synthesize.ASSERT_SOURCE).input("def check(c):\n    assert c(1, 2) == 3").run()
    at.switch_page("pages/runs.py").run()
    at.switch_page("pages/statistics.py").run()
    at.switch_page("pages/synthesize.py").run()
    no_exception(at)
    assert at.text_area(key=Synthesize.STATEMENT).value == "Return the sum of a and b."
    assert at.text_input(key=Synthesize.ENTRY_POINT).value == "add"
    assert at.text_input(key=Synthesize.TITLE).value == "my sum"
    assert at.selectbox(key=Synthesize.CONDITION).value == "single-oneshot"
    assert at.number_input(key=Synthesize.TIMEOUT).value == 7.0
    assert at.radio(key=Synthesize.TESTS_MODE).value == at.radio(key=Synthesize.TESTS_MODE).options[1]
    assert at.text_area(key=Synthesize.ASSERT_SOURCE).value == "def check(c):\n    assert c(1, 2) == 3"



def test_the_edited_test_table_comes_back_too(app):
    from ui import keys

    at = app("synthesize")
    at.switch_page("pages/runs.py").run()
    edited = [{"call": "add(1, 2)", "expected": "3", "visible": True}]
    at.session_state[keys.SYN_TEST_ROWS_KEPT] = edited  # what the editor last returned on Synthesize
    at.switch_page("pages/synthesize.py").run()
    no_exception(at)
    assert at.session_state[Synthesize.TEST_ROWS_DATA] == edited
