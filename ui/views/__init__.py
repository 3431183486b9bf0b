"""What the dashboard pages show and what their forms take in, testable without Streamlit.

Pages stay thin by asking these functions for ready-to-draw rows, built on the store's
query modules (which aggregate in the database, so a store with tens of thousands of
trials renders quickly), and by handing what a user typed to the form checks here.
Nothing here imports streamlit (or the Streamlit-side `ui` modules), writes to the store, or builds a
graph (`tests/layout/test_presentation_boundary.py` checks). The statistics report's rows, which the
report files share, are the core's: `execugraph.stats.report_rows`.

- `runs` (and `run_groups`: rescores under their run), `trace`, `retrieval`, `grading`, `health`: view models of the pages;
- `formatting`: durations, model labels, tracebacks mapped to the program shown;
- `form_input`: the Synthesize and Batch form fields, validated (test rows, asserts, aliases);
- `model_preflight`: which models can be picked, and whether the chosen ones can answer;
- `uploads`: uploaded suite files, parsed and kept by content hash;
- `batch_plan`: a batch's size and the smallest difference it can detect.
"""

from execugraph.configuration.validation_errors import readable_error
from execugraph.stats.report_rows import (
    REFERENCE_CONDITION,
    arm_rate_rows,
    category_rows,
    deltas_against,
    error_rows,
    excluded_rows,
    family_rows,
    method_lines,
    pairs_table,
    pass_at_k_rows,
    ungraded_flags,
)
from ui.views.batch_plan import BatchPlan, plan_batch, sequential_plan_text
from ui.views.form_input import (
    CONDITION_DEFAULT,
    TEST_MODES,
    SynthesisRequest,
    adhoc_tests_from_assert,
    adhoc_tests_from_rows,
    parse_aliases,
)
from ui.views.formatting import bounded_explanation, duration, map_traceback, model_label
from ui.views.model_preflight import ModelProblem, model_choices, model_problems, models_needed
from ui.views.retrieval import hit_matrix, library_caption, trial_library
from ui.views.run_groups import RunGroup, group_runs, listed_rows
from ui.views.runs import (
    active_batch_ids,
    active_batches,
    filter_choices,
    names_of_runs,
    run_choices,
    run_rows,
    trial_counts,
)
from ui.views.trace import (
    OUTCOMES,
    Divergence,
    StepRow,
    code_attempts,
    code_diff,
    first_divergence,
    raw_reply,
    sibling_trials,
    step_rows,
    test_result_rows,
    time_limits_note,
    trial_filter_choices,
    trial_findings,
    trial_time_limits,
    unparsed_reply,
)
from ui.views.uploads import keep_upload, parse_upload, prune_uploads

__all__ = [
    "REFERENCE_CONDITION",
    "BatchPlan",
    "keep_upload",
    "prune_uploads",
    "parse_upload",
    "plan_batch",
    "sequential_plan_text",
    "readable_error",
    "OUTCOMES",
    "CONDITION_DEFAULT",
    "TEST_MODES",
    "SynthesisRequest",
    "Divergence",
    "StepRow",
    "ModelProblem",
    "active_batch_ids",
    "active_batches",
    "bounded_explanation",
    "duration",
    "map_traceback",
    "model_label",
    "raw_reply",
    "unparsed_reply",
    "adhoc_tests_from_assert",
    "adhoc_tests_from_rows",
    "arm_rate_rows",
    "category_rows",
    "code_attempts",
    "code_diff",
    "deltas_against",
    "error_rows",
    "excluded_rows",
    "family_rows",
    "method_lines",
    "filter_choices",
    "names_of_runs",
    "first_divergence",
    "hit_matrix",
    "library_caption",
    "model_choices",
    "model_problems",
    "models_needed",
    "pairs_table",
    "parse_aliases",
    "pass_at_k_rows",
    "run_choices",
    "run_rows",
    "RunGroup",
    "group_runs",
    "listed_rows",
    "trial_library",
    "sibling_trials",
    "step_rows",
    "test_result_rows",
    "time_limits_note",
    "trial_findings",
    "trial_time_limits",
    "trial_counts",
    "trial_filter_choices",
    "ungraded_flags",
]
