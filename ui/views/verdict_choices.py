"""Which verdict sets the Statistics page can set beside "as run", and where each one's numbers come from.

Why: the same trials judged another way come from two engines' results: `protocol_sensitivity` (a rescore
under the other grading protocol, a file's second verdicts such as EvalPlus plus tests) and
`suite_sensitivity` (a rescore on the stored amplified tests). The page offers every set either has in one
select; this module only picks and names them, every number (and "holds") is the engine's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from execugraph.stats.sensitivity_sections import ProtocolSensitivity, SensitivityResult, SuiteSensitivity
from execugraph.verdicts.suite_sensitivity import AMPLIFIED, suite_sensitivity

if TYPE_CHECKING:
    from execugraph.stats.family import Family
    from execugraph.store import Store

__all__ = ["AMPLIFIED", "amplified_sensitivity", "offered_sets", "suite_note"]


def amplified_sensitivity(store: Store, run_ids: Sequence[int], conditions: Sequence[str] | None, *,
                          family: Family | None = None) -> SuiteSensitivity | None:
    """The family under the original and the amplified tests, once some run has an amplified rescore (the rule
    `stats --json` follows for its `suite_sensitivity`); None before."""
    found = suite_sensitivity(store, run_ids, conditions, family=family)
    return found if any(found.runs[AMPLIFIED]) else None


def offered_sets(protocol: ProtocolSensitivity | None, suite: SuiteSensitivity | None) -> dict[str, SensitivityResult]:
    """{verdict set beside "as run": the sensitivity result holding its numbers}, protocol sets first."""
    out: dict[str, SensitivityResult] = {}
    for found in (protocol, suite):
        if found and found.available and found.pairs:
            out |= {name: found for name in (found.sets or [])[1:]}
    return out


def suite_note(suite: SuiteSensitivity) -> str:
    """Which amplified tests and rescore runs the amplified set comes from, in a line."""
    runs = ", ".join(f"#{r}" for r in suite.runs[AMPLIFIED] if r is not None)
    tests = ", ".join(suite.suites) or "amplified"
    return f"Amplified tests {tests}; rescore run(s) {runs}."
