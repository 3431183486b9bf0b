"""Read-only view models for the dashboard pages (and anything else that shows runs to people).

Pages stay thin by asking these functions for ready-to-draw rows: every query
aggregates in the database (GROUP BY over indexed columns, LIMITed listings),
so a store with tens of thousands of trials renders quickly. Nothing here
imports streamlit, writes to the store, or builds a graph.
"""

from execugraph.views.inputs import (
    CONDITION_DEFAULT,
    TEST_MODES,
    BatchPlan,
    ModelProblem,
    SynthesisRequest,
    adhoc_tests_from_assert,
    adhoc_tests_from_rows,
    keep_upload,
    model_choices,
    model_problems,
    models_needed,
    parse_aliases,
    parse_upload,
    plan_batch,
    readable_error,
)
from execugraph.views.report import (
    arm_rate_rows,
    category_rows,
    deltas_against,
    error_rows,
    pairs_table,
    pass_at_k_rows,
)
from execugraph.views.retrieval import hit_matrix, runs_with_hits
from execugraph.views.runs import (
    active_batches,
    conditions_in_runs,
    filter_choices,
    latest_finished_run,
    run_choices,
    run_rows,
    trial_counts,
)
from execugraph.views.trace import (
    OUTCOMES,
    Divergence,
    code_attempts,
    code_diff,
    first_divergence,
    sibling_trials,
    step_rows,
    test_result_rows,
    trial_filter_choices,
    trial_rows,
)

__all__ = [
    "BatchPlan",
    "keep_upload",
    "parse_upload",
    "plan_batch",
    "readable_error",
    "OUTCOMES",
    "CONDITION_DEFAULT",
    "TEST_MODES",
    "SynthesisRequest",
    "Divergence",
    "ModelProblem",
    "active_batches",
    "adhoc_tests_from_assert",
    "adhoc_tests_from_rows",
    "arm_rate_rows",
    "category_rows",
    "code_attempts",
    "code_diff",
    "conditions_in_runs",
    "deltas_against",
    "error_rows",
    "filter_choices",
    "latest_finished_run",
    "first_divergence",
    "hit_matrix",
    "model_choices",
    "model_problems",
    "models_needed",
    "pairs_table",
    "parse_aliases",
    "pass_at_k_rows",
    "run_choices",
    "run_rows",
    "runs_with_hits",
    "sibling_trials",
    "step_rows",
    "test_result_rows",
    "trial_counts",
    "trial_filter_choices",
    "trial_rows",
]
