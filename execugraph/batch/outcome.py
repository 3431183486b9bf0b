"""How a run's result is told: passed / graded / errors / total, and the word for its status.

The one rule every surface uses (`status` line and JSON, `batch --wait` and its
exit code, the Batch and Runs pages):

- graded: trials that ran to the end and were judged by their tests (status `done`);
- errors: trials that ended in an error (status `error`: an endpoint that stayed
  down, a harness failure); they are never graded and never counted as passed;
- pass rate: passed / graded, always shown with that denominator;
- a run that finished with errors is `done with errors`, never plain `done`:
  only a run whose every trial was graded is `done`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

DONE = "done"
DONE_WITH_ERRORS = "done with errors"


@dataclass(frozen=True)
class Counts:
    """A run's (or a condition's) trial counts."""

    total: int
    graded: int
    passed: int
    errors: int
    running: int = 0
    queued: int = 0
    cancelled: int = 0

    @classmethod
    def from_progress(cls, progress: Mapping[str, int]) -> Counts:
        """From `Store.run_progress` (counts by trial status, plus `passed` and `total`)."""
        return cls(
            total=int(progress.get("total", 0)),
            graded=int(progress.get("done", 0)),
            passed=int(progress.get("passed", 0)),
            errors=int(progress.get("error", 0)),
            running=int(progress.get("running", 0)),
            queued=int(progress.get("queued", 0)),
            cancelled=int(progress.get("cancelled", 0)),
        )

    @property
    def finished(self) -> int:
        """Trials that will not run again unless resumed: graded plus errors."""
        return self.graded + self.errors

    @property
    def pass_rate(self) -> float | None:
        """passed / graded; None while nothing is graded."""
        return self.passed / self.graded if self.graded else None

    def rate_text(self) -> str:
        """`passed 5/6 graded (83%)`: the rate with its denominator."""
        rate = "-" if self.pass_rate is None else f"{self.pass_rate:.0%}"
        return f"passed {self.passed}/{self.graded} graded ({rate})"

    def describe(self) -> str:
        """`passed 5/6 graded (83%), 2 errors, 8 total`."""
        errors = f"{self.errors} error" + ("" if self.errors == 1 else "s")
        return f"{self.rate_text()}, {errors}, {self.total} total"


def status_word(status: str, counts: Counts) -> str:
    """The run's status as shown: a finished run with any errored trial is `done with errors`."""
    return DONE_WITH_ERRORS if status == DONE and counts.errors else status


def is_clean(word: str) -> bool:
    """True only for a run that finished with every trial graded (`batch --wait` exits 0)."""
    return word == DONE
