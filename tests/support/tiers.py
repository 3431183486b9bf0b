"""Which tests `make test` leaves to `make test-long`: CI (`.ci/run`) runs both, one after the other.

`make test` runs every behaviour at least once (11 to 13 minutes on 2 quiet cores). The long tier holds what repeats a
scenario `make test` already runs, or what only takes long: the PostgreSQL run of a multi-process fault scenario
(its SQLite run stays), the other fault modes and viewports of a parametrised scenario (one stays), the same flow
through another model server or with more agents, a Ray run of a scenario the local executor already covers, a
cluster of several Ray nodes, a minute-long wait with a tab open, and whole-benchmark sweeps (a sample stays: see
`tests/grading/test_grading_humaneval_agreement.py`, which marks its full corpus `long` itself).

LONG maps a test (its node id, with the parameter where only some run long) to why it is long. The root conftest
marks these `long`; `--tier default` (make test) deselects every `long` test, `--tier long` (make test-long) keeps
only them, and a plain `pytest` (`--tier all`) runs whatever it is given. tests/layout/test_test_tiers.py fails when
a name here no longer matches a test.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

TIERS = ("all", "default", "long")

_PG = "the PostgreSQL run of a multi-process fault scenario whose SQLite run make test keeps"
_RAY = "a Ray run of a scenario the local executor's tests cover in make test"

LONG: dict[str, str] = {
    "tests/batch/test_runner_faults.py::test_a_write_lock_held_past_the_busy_timeout_runs_no_trial_twice[postgres]": _PG,
    "tests/batch/test_runner_faults.py::test_a_worker_frozen_past_its_lease_is_taken_over_and_abandons_its_trials"
    "[postgres]": _PG,
    "tests/batch/test_runner_faults.py::test_worker_once_after_a_sigkill_waits_for_the_dead_lease_and_finishes"
    "[postgres]": _PG,
    "tests/batch/test_orphaned_cancel.py::test_the_next_worker_finishes_a_cancel_its_killed_worker_left[postgres]": _PG,
    "tests/batch/test_orphaned_cancel.py::test_cancel_after_the_dead_lease_ran_out_ends_the_run_at_once[postgres]": _PG,
    "tests/batch/test_orphaned_cancel.py::test_worker_once_waits_for_the_dead_lease_of_a_cancelled_run[postgres]": _PG,
    "tests/scaleout/test_scaleout_ray.py::test_same_batch_with_the_store_on_postgresql": _PG,
    "tests/providers/test_endpoint_outages.py::test_a_worker_process_waits_out_an_outage_and_every_trial_passes[503]":
        "another fault mode of the outage a worker process waits out ([refuse] stays)",
    "tests/providers/test_endpoint_outages.py::test_a_worker_process_waits_out_an_outage_and_every_trial_passes"
    "[reset]": "another fault mode of the outage a worker process waits out ([refuse] stays)",
    "tests/ui/test_browser_back_and_narrow.py::test_every_page_in_chromium_fits_without_an_exception[1280x800]":
        "another viewport of the every-page sweep (the narrow 800x900 stays)",
    "tests/ui/test_browser_back_and_narrow.py::test_every_page_in_chromium_fits_without_an_exception[1400x2000]":
        "another viewport of the every-page sweep (the narrow 800x900 stays)",
    "tests/workflow/test_openai_provider.py::test_multi_full_trial_through_the_server":
        "the single-agent trial through the same server stays; multi-full over Ollama's HTTP API stays",
    "tests/agents/test_agent_providers.py::test_multi_full_end_to_end_on_the_embedded_model":
        "the embedded model answering a trial stays; multi-full over Ollama's HTTP API stays",
    "tests/ui/test_browser_openai.py::test_synthesize_with_the_openai_model":
        "Synthesize live in chromium stays (embedded model); the OpenAI server's batch form stays",
    "tests/scaleout/test_scaleout_ray.py::test_openai_compatible_endpoints_through_the_endpoints_flag":
        "the same Ray batch through another model server",
    "tests/scaleout/test_scaleout_ray.py::test_with_one_endpoint_an_outage_is_waited_out_by_the_workers": _RAY,
    "tests/scaleout/test_scaleout_ray.py::test_cancel_mid_batch_then_resume_completes_exactly": _RAY,
    "tests/scaleout/test_scaleout_ray.py::test_cli_driver_killed_mid_batch_is_resumed_without_loss_or_duplicates": _RAY,
    "tests/scaleout/test_scaleout_ray.py::test_a_trial_gives_up_after_max_attempts_with_every_attempt_recorded": _RAY,
    "tests/scaleout/test_scaleout_ray.py::test_no_healthy_endpoint_fails_the_run_with_the_reason_and_resume_completes_it":
        _RAY,
    "tests/scaleout/test_scaleout_nodes.py::test_a_node_lost_mid_batch_has_its_trials_retried_on_the_other_node":
        "a cluster of several Ray nodes (started and stopped for this one test)",
    "tests/ui/test_idle.py::test_an_open_tab_on_an_idle_dashboard_costs_almost_nothing":
        "a minute of `make run` with a tab open and nobody clicking",
}


def is_long(nodeid: str) -> bool:
    """Whether LONG names this test (by its whole id, or by its id without the parameter)."""
    return nodeid in LONG or nodeid.split("[", 1)[0] in LONG


def select(items: list[pytest.Item], tier: str) -> tuple[list[pytest.Item], list[pytest.Item]]:
    """Mark LONG's tests `long`, then split `items` into (kept, deselected) for `tier`."""
    if tier not in TIERS:
        raise pytest.UsageError(f"--tier must be one of {', '.join(TIERS)}; got {tier!r}")
    for item in items:
        if is_long(item.nodeid):
            item.add_marker(pytest.mark.long)
    if tier == "all":
        return list(items), []
    want_long = tier == "long"
    kept = [i for i in items if (i.get_closest_marker("long") is not None) == want_long]
    return kept, [i for i in items if (i.get_closest_marker("long") is not None) != want_long]


def missing(names: Sequence[str], collected: Sequence[str]) -> list[str]:
    """The names in `names` that match no collected node id."""
    have = set(collected) | {c.split("[", 1)[0] for c in collected}
    return [n for n in names if n not in have]
