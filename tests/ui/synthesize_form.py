"""The Synthesize form filled with the same small ad-hoc problem (add two numbers), for AppTest tests that look
at what one scripted trial leaves behind."""

from __future__ import annotations

from typing import Any

from standins.scripted import fenced, scripted
from ui.keys import TEST_CHAT_MODELS, Synthesize


def fill_add_problem(at: Any, condition: str) -> None:
    """Script a generator that answers `add` correctly, run the page, and fill statement, entry point, one visible
    test and `condition`; the caller sets anything else and submits."""
    at.session_state[TEST_CHAT_MODELS] = scripted(generator=[fenced("def add(a, b):\n    return a + b\n")])
    at.session_state[Synthesize.TEST_ROWS_DATA] = [{"call": "add(1, 2)", "expected": "3", "visible": True}]
    at.run()
    at.text_area(key=Synthesize.STATEMENT).input("Return the sum of a and b.")
    at.text_input(key=Synthesize.ENTRY_POINT).input("add")
    at.selectbox(key=Synthesize.CONDITION).set_value(condition)
