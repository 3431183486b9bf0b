"""One progress fraction across a reproduction's phases, for a terminal line or a dashboard bar.

Each phase owns a slice of [0, 1] sized by what it usually costs (rescoring runs
every program twice, so it gets most of it); a phase reports its own fraction and
a short text, and the listener hears the overall fraction, never going back.
A caller that may stop the work (the dashboard's Cancel) passes `stop`: from the
rescoring phase on, an update raises `Cancelled` once it returns True. Updates come
between batches of sandbox jobs and after each stored rescore, so what was rescored
stays stored (and is reused next time); the import phase is never interrupted, but
grading samples on import (`grading`) is, since nothing is written until every sample
is graded. An input whose samples carry no verdicts (bigcode generations) is graded
on import, a sandbox run per sample: that is no longer a sliver of the import, so the
first `grading` update switches to `GRADED_PHASES`, where grading owns its own share
(the bar used to crawl within the import's 8% for minutes). `throttled` and
`grading_printer` keep a terminal from being flooded while thousands of samples are graded.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from execugraph.safety.inert_text import terminal_text

Listener = Callable[[float, str], None]
StopCheck = Callable[[], bool]
CountFn = Callable[[int, int], None]
PHASES: dict[str, tuple[float, float]] = {
    "import": (0.0, 0.08),
    "rescore": (0.08, 0.82),
    "amplify": (0.82, 0.86),  # only with --amplify: build missing amplified suites, rescore on them
    "statistics": (0.86, 0.9),
    "figures": (0.9, 0.97),
    "write": (0.97, 1.0),
}
# With samples graded on import: one sandbox run per sample there against the rescore's two (one per protocol,
# less the jobs the grading's memo already ran), so grading takes about a third of the sandbox work's share.
GRADED_PHASES: dict[str, tuple[float, float]] = {
    **PHASES,
    "import": (0.0, 0.04),  # reading and writing the runs; grading happens before the write, in its own share
    "grading": (0.04, 0.36),
    "rescore": (0.36, 0.82),
}


class Cancelled(Exception):
    """The caller's `stop` asked the reproduction to end; raised from `Progress.update` at a safe point."""


class Progress:
    """Maps (phase, fraction within it, text) to the overall fraction for `listener`; raises `Cancelled` on `stop`."""

    def __init__(self, listener: Listener | None = None, stop: StopCheck | None = None) -> None:
        self.listener = listener
        self.stop = stop
        self.fraction = 0.0
        self.phases = PHASES  # GRADED_PHASES from the first grading update on

    def update(self, phase: str, within: float, text: str) -> None:
        """Report progress `within` (0..1) of `phase`; raises Cancelled if asked to stop (not while importing)."""
        if self.stop is not None and phase != "import" and self.stop():
            raise Cancelled(text)
        if phase == "grading":
            self.phases = GRADED_PHASES
        lo, hi = self.phases[phase]
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


def throttled(callback: CountFn, every_s: float = 1.0, clock: Callable[[], float] = time.monotonic) -> CountFn:
    """`callback(done, total)` at most once per `every_s`, always for the first count and for the last
    (done == total), so a caller can report every sample without flooding a log or a bar."""
    last: list[float] = []

    def report(done: int, total: int) -> None:
        now = clock()
        if last and done < total and now - last[0] < every_s:
            return
        last[:] = [now]
        callback(done, total)

    return report


def grading_text(done: int, total: int) -> str:
    """The words of a grading update: `grading 1,200/4,347 samples`."""
    return f"grading {done:,}/{total:,} samples"


def grading_printer(stream: TextIO, every_s: float = 1.0) -> CountFn:
    """A line on `stream` (stderr) at most every `every_s` while samples are graded on import, and a final
    line when the last one is graded (`graded 4,347 samples in 3m12s`)."""
    started: list[float] = []

    def show(done: int, total: int) -> None:
        if not started:
            started.append(time.monotonic())
        if done < total:
            stream.write(f"{grading_text(done, total)}...\n")
        else:
            seconds = time.monotonic() - started[0]
            took = f"{seconds:.1f} s" if seconds < 60 else f"{int(seconds // 60)}m{int(seconds % 60):02d}s"
            stream.write(f"graded {total:,} samples in {took}\n")
        stream.flush()

    return throttled(show, every_s)
