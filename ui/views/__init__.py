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

The names below are imported on first use (PEP 562): `from ui.views import duration` loads `formatting` alone,
so the router and the Synthesize page never pay for SciPy (statistics) or LangGraph (the trace's agent nodes).
"""

from __future__ import annotations

import importlib
from typing import Any

# Where each re-exported name lives; a name is imported from there the first time it is asked for.
_SOURCES: dict[str, tuple[str, ...]] = {
    "execugraph.configuration.validation_errors": ("readable_error",),
    "execugraph.stats.report_rows": (
        "REFERENCE_CONDITION", "arm_rate_rows", "category_rows", "deltas_against", "error_rows", "excluded_rows",
        "family_rows", "method_lines", "pairs_table", "pass_at_k_rows", "ungraded_flags",
    ),
    "ui.views.batch_plan": ("BatchPlan", "plan_batch", "sequential_plan_text"),
    "ui.views.form_input": (
        "CONDITION_DEFAULT", "TEST_MODES", "SynthesisRequest", "adhoc_tests_from_assert", "adhoc_tests_from_rows",
        "parse_aliases",
    ),
    "ui.views.formatting": ("bounded_explanation", "duration", "map_traceback", "model_label"),
    "ui.views.model_preflight": ("ModelProblem", "model_choices", "model_problems", "models_needed"),
    "ui.views.retrieval": ("hit_matrix", "library_caption", "trial_library"),
    "ui.views.run_groups": ("RunGroup", "group_runs", "listed_rows"),
    "ui.views.runs": (
        "active_batch_ids", "active_batches", "filter_choices", "names_of_runs", "run_choices", "run_rows",
        "trial_counts",
    ),
    "ui.views.trace": (
        "OUTCOMES", "Divergence", "StepRow", "code_attempts", "code_diff", "first_divergence", "raw_reply",
        "sibling_trials", "step_rows", "test_result_rows", "time_limits_note", "trial_filter_choices",
        "trial_findings", "trial_time_limits", "unparsed_reply",
    ),
    "ui.views.uploads": ("keep_upload", "parse_upload", "prune_uploads"),
}
_HOME = {name: module for module, names in _SOURCES.items() for name in names}


def __getattr__(name: str) -> Any:
    """Import a re-exported name's module on first use and keep the name here (later lookups are plain)."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME})


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
