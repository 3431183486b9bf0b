"""What a sequential batch keeps in its run config under `sequential_state`: the looks taken and the decisions.

TypedDicts rather than classes: the state is JSON stored on the run, updated in place look
by look (`monitor`) and read back by `summary`, `status`, the report and the Batch page,
which read it defensively (`.get`) because runs stored by older versions may lack a key.
"""

from __future__ import annotations

from typing import TypedDict


class LookRecord(TypedDict, total=False):
    """One look at one comparison (`rule.LookResult.as_dict()`)."""

    look: int  # 1-based
    looks: int  # planned looks
    problems: int  # finished problems this look used
    planned: int  # problems in the batch
    delta: float  # mean per-problem difference (arm - baseline), a pass-rate fraction
    z: float  # the look's statistic
    bound: float  # |z| needed to stop for efficacy at this look
    conditional_power: float | None  # the futility statistic (predictive power under hsd-trend); None at the end
    decision: str  # efficacy, futility, continue, or not significant
    ci_low: float  # repeated confidence interval of `delta`
    ci_high: float
    p_repeated: float | None  # adjusted p, once stopped
    fraction: float  # problems / planned


class ArmState(TypedDict, total=False):
    """One comparison (an arm against the baseline): its looks so far and what they decided."""

    looks: list[LookRecord]  # every look taken, in order
    decision: str  # "continue" while open, else the stopping look's decision
    stopped_at_look: int  # the look that decided it
    saved_trials: int  # queued trials of the arm cancelled when it stopped


class SequentialState(TypedDict, total=False):
    """A sequential batch's state: the plan it was started with and every comparison's looks."""

    baseline: str  # the condition every other arm is compared with
    planned_problems: int  # problems in the recorded order
    trials_per_arm: int  # trials of one arm on one problem (seeds x trials)
    look_sizes: list[int]  # problems each planned look uses
    mdd: float  # the minimum detectable difference (obf-mdd judges futility at it), a fraction
    rule: str  # the design's rule (hsd-trend or obf-mdd); absent in states stored before rules had names: obf-mdd
    looks_asked: int  # the looks the plan asked for (look_sizes has fewer when there are fewer problems)
    comparisons: int  # arms compared with the baseline (the Bonferroni divisor)
    arms: dict[str, ArmState]  # arm -> its comparison's state
    saved_trials: int  # trials cancelled by stopping, in all
    stopped: bool  # every comparison decided (the baseline stopped too)
