"""A reproduction's progress: one fraction that never goes back, and a stop that is honoured only where it is safe."""

from __future__ import annotations

import pytest

from execugraph.reproduce.progress import GRADED_PHASES, PHASES, Cancelled, Progress, grading_text


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


def test_grading_on_import_gets_its_own_share_of_the_bar() -> None:
    heard: list[tuple[float, str]] = []
    progress = Progress(lambda fraction, text: heard.append((round(fraction, 3), text)))
    progress.update("import", 0.0, "importing")
    progress.update("grading", 0.0, grading_text(0, 40))
    progress.update("grading", 0.5, grading_text(20, 40))
    progress.update("grading", 1.0, grading_text(40, 40))
    progress.update("import", 1.0, "imported")  # the import's write after grading: no step back
    progress.update("rescore", 0.5, "half")
    lo, hi = GRADED_PHASES["grading"]
    assert 0 < lo < hi < GRADED_PHASES["rescore"][1] and hi - lo >= 0.25  # a real share, not a sliver
    assert heard == [(0.0, "importing"), (round(lo, 3), "grading 0/40 samples"),
                     (round((lo + hi) / 2, 3), "grading 20/40 samples"), (hi, "grading 40/40 samples"),
                     (hi, "imported"), (round(hi + (0.82 - hi) / 2, 3), "half")]


def test_without_grading_the_import_keeps_its_slice_and_grading_can_be_cancelled() -> None:
    quiet = Progress()
    quiet.update("import", 1.0, "imported")
    assert quiet.fraction == pytest.approx(PHASES["import"][1]) and "grading" not in PHASES
    stop = [True]
    graded = Progress(stop=lambda: stop[0])
    with pytest.raises(Cancelled, match="grading 3/40"):
        graded.update("grading", 0.1, grading_text(3, 40))
