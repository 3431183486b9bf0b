"""Verdict sets, re-grading and the one comparison engine over them.

A trial can be judged several ways: as run (or as published), rescored under a grading
protocol, under stronger tests. This package owns all of it:
- `rescore` (`rescore_run(store, run_id, pool=...)` -> `report.RescoreReport`): rerun a run's
  programs into a child run, every flip (`report.Flip`) with its causes and their words (`flip_reasons`);
- `verdict_sets`: a run's trials under each set, the rescore children behind them, which
  protocol each run was graded under;
- `compare`: one family's deltas, CIs, exact p and Holm under every set, and the conclusion
  rule (one ALPHA, one direction, one "survives"); `sensitivity`: that for stored runs, as the
  Statistics page, `stats --json` and an export's summary.json show it; `suite_sensitivity`: the
  same as run vs under amplified tests (`rescore --suite amplified`), in `stats --json`;
- `problems`: which tests a stored trial is re-graded on; `windows`: every comparison again on the
  problems released in a date window (contamination), with the conclusion rule of `compare`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execugraph.domain.lazy_names import lazy_names

if TYPE_CHECKING:  # at run time `__getattr__` imports each: `rescore` loads LangGraph, `windows` (a batch's dates) not
    from execugraph.verdicts.report import Flip, RescoreReport, UnresolvedProblem
    from execugraph.verdicts.rescore import RescoreOutcome, rescore_run

__all__ = ["Flip", "RescoreOutcome", "RescoreReport", "UnresolvedProblem", "rescore_run"]

# The submodules other packages import (tests/layout/test_package_interfaces.py).
__all__ += [
    "compare",
    "facet_breakdowns",
    "flip_reasons",
    "plus_suite",
    "problems",
    "sensitivity",
    "suite_sensitivity",
    "verdict_sets",
    "windows",
]

_HOME = {"Flip": "report", "RescoreReport": "report", "UnresolvedProblem": "report", "RescoreOutcome": "rescore",
         "rescore_run": "rescore"}

__getattr__, __dir__ = lazy_names(__name__, _HOME, __all__)
