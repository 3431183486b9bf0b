"""Wait for a state, never for a guess: poll a condition until it holds or a generous deadline passes."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(condition: Callable[[], object], timeout_s: float = 120.0, what: str = "condition") -> None:
    """Poll `condition` every 20 ms; AssertionError naming `what` if it is still false after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(0.02)
