"""Breakdowns of one arm's trials: why they failed, and what graded them.

The test-source audit matters because a trial graded by model-written tests or a
bare smoke run is weaker evidence than one graded by the problem's own tests;
the error taxonomy shows where each condition loses its trials.
"""

from __future__ import annotations

from collections.abc import Mapping

from execugraph.stats.records import Tally


def error_shares(errors: Mapping[str, int]) -> list[dict]:
    """Share of FAILED trials per error class, largest first (ties by name).

    Failed trials without a recorded class are counted as "unknown" by the loaders,
    so the shares always sum to 1 when there is any failure.
    """
    failed = sum(errors.values())
    rows = sorted(errors.items(), key=lambda kv: (-kv[1], kv[0]))
    return [{"error_class": k, "count": v, "share": v / failed if failed else 0.0} for k, v in rows]


def source_audit(sources: Mapping[str, Tally]) -> list[dict]:
    """Trials, share of all trials and pass rate per source (test source or feedback source)."""
    total = sum(t.trials for t in sources.values())
    rows = sorted(sources.items(), key=lambda kv: (-kv[1].trials, kv[0]))
    return [
        {
            "source": k,
            "trials": t.trials,
            "share": t.trials / total if total else 0.0,
            "passed": t.passed,
            "pass_rate": t.rate,
        }
        for k, t in rows
    ]
