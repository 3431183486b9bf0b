"""One progress fraction across a reproduction's phases, for a terminal line or a dashboard bar.

Each phase owns a slice of [0, 1] sized by what it usually costs (rescoring runs
every program twice, so it gets most of it); a phase reports its own fraction and
a short text, and the listener hears the overall fraction, never going back.
"""

from __future__ import annotations

from collections.abc import Callable

from execugraph.text_safety import terminal_text

Listener = Callable[[float, str], None]
PHASES: dict[str, tuple[float, float]] = {
    "import": (0.0, 0.08),
    "rescore": (0.08, 0.82),
    "statistics": (0.82, 0.9),
    "figures": (0.9, 0.97),
    "write": (0.97, 1.0),
}


class Progress:
    """Maps (phase, fraction within it, text) to the overall fraction for `listener`."""

    def __init__(self, listener: Listener | None = None) -> None:
        self.listener = listener
        self.fraction = 0.0

    def update(self, phase: str, within: float, text: str) -> None:
        """Report progress `within` (0..1) of `phase`."""
        lo, hi = PHASES[phase]
        self.fraction = max(self.fraction, lo + (hi - lo) * min(1.0, max(0.0, within)))
        if self.listener is not None:
            self.listener(self.fraction, text)


def terminal_line(stream: object) -> Listener:
    """A listener that redraws one progress line (`[#####     ]  48% rescoring ...`) on `stream` (stderr)."""
    width = 24
    last: list[tuple[int, str]] = []

    def draw(fraction: float, text: str) -> None:
        shown = (int(fraction * 100), text)
        if last and last[0] == shown:
            return  # nothing new to say: do not flood a log that keeps every carriage return
        last[:] = [shown]
        filled = int(round(fraction * width))
        line = f"\r[{'#' * filled}{' ' * (width - filled)}] {fraction:4.0%} {terminal_text(text)}"[:160]
        stream.write(line.ljust(100))  # type: ignore[attr-defined]
        stream.flush()  # type: ignore[attr-defined]

    return draw
