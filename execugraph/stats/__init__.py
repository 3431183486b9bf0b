"""Statistics engine: paired significance, effect sizes, pass@k and the paper's breakdowns.

Pure functions over plain records and per-arm aggregates live in the small modules
below (`paired`, `intervals` (Wilson, Newcombe), `bootstrap`, `passk`, `power`, `rates`, `costs`, `retries`, `sampling`,
`taxonomy`, `category_pairs`, `budgets`); `arms` and `records` define the arms and their
aggregates; `loading` fills them from the store's report reads (aggregated in SQL, so
large stores stay fast) and `from_records` from plain records; `report` assembles the one
report (`report_model.StatsReport`) that the CLI, the dashboard and the export all show; `family` says which comparisons
it tests; `protocols` sets them side by side under both grading protocols; `tables` and
`table_format` turn it into the tables of a paper (LaTeX, CSV, Markdown).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execugraph.domain.lazy_names import lazy_names

if TYPE_CHECKING:  # the names as type checkers and readers see them; at run time `__getattr__` imports each
    from execugraph.stats.arms import UnknownConditionError, UnknownRunError
    from execugraph.stats.bootstrap import bootstrap_mean_ci
    from execugraph.stats.family import Family
    from execugraph.stats.from_records import build_report_from_records
    from execugraph.stats.paired import (
        PairedComparison,
        compare_paired,
        holm,
        majority_passed,
        mcnemar_exact_p,
        wilcoxon_p,
    )
    from execugraph.stats.passk import mean_pass_at_k, pass_at_k, pass_at_k_table
    from execugraph.stats.power import DetectableDifference, minimum_detectable_difference, simulated_power
    from execugraph.stats.records import ArmData, ProblemTally, TrialRecord, arm_from_records, to_record, to_records
    from execugraph.stats.report import build_report, report_from_arms
    from execugraph.stats.report_model import StatsReport

# Where each name below lives. Imported on first use (PEP 562): importing one submodule (`family`, `report_model`,
# `table_format`...) no longer runs this file's imports of every other one (SciPy with `paired` and `power`).
_SOURCES: dict[str, tuple[str, ...]] = {
    "arms": ("UnknownConditionError", "UnknownRunError"),
    "bootstrap": ("bootstrap_mean_ci",),
    "family": ("Family",),
    "from_records": ("build_report_from_records",),
    "paired": ("PairedComparison", "compare_paired", "holm", "majority_passed", "mcnemar_exact_p", "wilcoxon_p"),
    "passk": ("mean_pass_at_k", "pass_at_k", "pass_at_k_table"),
    "power": ("DetectableDifference", "minimum_detectable_difference", "simulated_power"),
    "records": ("ArmData", "ProblemTally", "TrialRecord", "arm_from_records", "to_record", "to_records"),
    "report": ("build_report", "report_from_arms"),
    "report_model": ("StatsReport",),
}
_HOME = {name: module for module, names in _SOURCES.items() for name in names}

__all__ = [
    "ArmData",
    "DetectableDifference",
    "Family",
    "PairedComparison",
    "ProblemTally",
    "StatsReport",
    "TrialRecord",
    "UnknownConditionError",
    "UnknownRunError",
    "arm_from_records",
    "bootstrap_mean_ci",
    "build_report",
    "build_report_from_records",
    "compare_paired",
    "holm",
    "majority_passed",
    "mcnemar_exact_p",
    "mean_pass_at_k",
    "minimum_detectable_difference",
    "pass_at_k",
    "pass_at_k_table",
    "report_from_arms",
    "simulated_power",
    "to_record",
    "to_records",
    "wilcoxon_p",
]

# The submodules other packages import (tests/layout/test_package_interfaces.py).
__all__ += [
    "all_tables",
    "bootstrap",
    "cost_compare",
    "cost_sections",
    "cost_tables",
    "cost_text",
    "facets",
    "family",
    "from_records",
    "group_sequential",
    "loading",
    "near_limit",
    "paired",
    "passk",
    "planned_budget",
    "power",
    "records",
    "report",
    "report_model",
    "report_rows",
    "report_sections",
    "sensitivity_sections",
    "table_format",
    "tables",
]


__getattr__, __dir__ = lazy_names(__name__, _HOME, __all__)
