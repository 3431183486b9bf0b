"""A reproduction's progress: one fraction that never goes back, and a stop that is honoured only where it is safe."""

from __future__ import annotations

import pytest

from execugraph.reproduce.progress import Cancelled, Progress


def test_progress_is_one_fraction_across_phases_that_never_goes_back() -> None:
    heard: list[tuple[float, str]] = []
    progress = Progress(lambda fraction, text: heard.append((round(fraction, 3), text)))
    progress.update("import", 1.0, "imported")
    progress.update("rescore", 0.5, "half")
    progress.update("rescore", 0.1, "late news")
    assert heard == [(0.08, "imported"), (0.45, "half"), (0.45, "late news")]


def test_a_stop_is_honoured_from_rescoring_on_but_never_while_importing() -> None:
    stop = [False]
    heard: list[str] = []
    progress = Progress(lambda _, text: heard.append(text), stop=lambda: stop[0])
    progress.update("rescore", 0.2, "rescoring a")
    stop[0] = True
    progress.update("import", 1.0, "an import runs to its end")
    for phase in ("rescore", "statistics", "figures", "write"):
        with pytest.raises(Cancelled, match="next"):
            progress.update(phase, 0.5, "next")
    assert heard == ["rescoring a", "an import runs to its end"]
    assert progress.fraction == pytest.approx(0.08 + 0.74 * 0.2)
