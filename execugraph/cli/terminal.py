"""What every command writes to the terminal, with no control sequence from the data in it.

Each command escapes the data it prints (`safety.inert_text.terminal_text`: a line
break in a run title cannot fake a line); this guard, around every command, is
the second line: whatever reaches stdout or stderr has its escape sequences,
other control characters and bidirectional controls shown as `<U+001B>`, only
line breaks, carriage returns (progress lines) and tabs kept.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from execugraph.safety.inert_text import visible_controls

KEPT = "\n\r\t"


class InertStream:
    """A text stream that writes through to `stream`, controls shown rather than sent."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(visible_controls(text, keep=KEPT))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def inert_output() -> Iterator[None]:
    """sys.stdout and sys.stderr guarded for the duration (restored after, also on error)."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = InertStream(saved[0]), InertStream(saved[1])  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
