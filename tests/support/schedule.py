"""Slowest test files first, so `make test`'s parallel processes never end waiting on one long file started last.

`make test` runs pytest-xdist with `--dist loadfile --no-loadscope-reorder`: each process takes whole files in the
order collected. Left to itself xdist orders files by their number of tests, which puts the browser files (one to
four tests, a minute each) last, and the run ends with one process busy and the others idle. The root conftest
sorts the collection with `slowest_first`: the files named in FILE_SECONDS by their measured time, longest first,
then every other file in collection order. Each file's tests stay together and in their own order.

FILE_SECONDS holds each file's seconds on a loaded 2-core machine (relative costs only: measured per test with
`pytest -n 0 --durations`, or estimated from what the file starts); refresh it from the slowest durations that
`make test` prints when a file grows or a new slow one appears, or from a whole run's JUnit XML with
`python -m tests.support.junit_times` (per-file seconds, the simulated processes, a block to paste).
A file named here that no longer exists fails tests/layout/test_test_schedule.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

FILE_SECONDS: dict[str, float] = {
    # `make test`'s files on 2 quiet cores (fresh clone, 3 processes, the default tier), longest first
    "tests/ui/test_url_links_browser.py": 140,
    "tests/scaleout/test_scaleout_ray.py": 97,
    "tests/ui/test_browser_hostile_report.py": 86,
    "tests/retrieval/test_retrieval_model.py": 81,
    "tests/workflow/test_openai_provider.py": 78,
    "tests/batch/test_runner_faults.py": 74,
    "tests/amplify/test_amplify.py": 73,
    "tests/publication/test_harness_formats.py": 67,
    "tests/ui/test_browser_back_and_narrow.py": 65,
    "tests/sandbox/test_sandbox_cpu_limits.py": 57,
    "tests/ui/test_browser_openai.py": 57,
    "tests/ui/test_browser_reproduce.py": 56,
    "tests/batch/test_disk_full.py": 52,
    "tests/ui/test_browser_daily.py": 51,
    "tests/store/test_store_opening.py": 49,
    "tests/ui/test_browser_analysis.py": 48,
    "tests/ui/test_browser.py": 47,
    "tests/batch/test_orphaned_cancel.py": 47,
    "tests/providers/test_endpoint_outages.py": 46,
    "tests/batch/test_runner.py": 41,
    "tests/ui/test_runs_manage_browser.py": 39,
    "tests/ui/test_browser_trace_runs_layout.py": 38,
    "tests/store/test_store_concurrency.py": 38,
    "tests/ui/test_batch_page.py": 36,
    "tests/grading/test_grading_humaneval_agreement.py": 36,
    "tests/amplify/test_amplify_parallel.py": 36,
    "tests/plugins/test_example_plugin.py": 34,
    "tests/cli/test_batch_release_window.py": 33,
    "tests/ui/test_sign_in_keeps_link_browser.py": 32,
    "tests/ui/test_one_comparison_engine.py": 31,
    "tests/sandbox/test_sandbox_blocked_time.py": 30,
    "tests/ui/test_import_dataset_browser.py": 29,
    "tests/sequential/test_sequential_replay.py": 29,
    "tests/ui/test_synthesize_picker_browser.py": 29,
    "tests/batch/test_matched_budget_plan.py": 27,
    "tests/reproduce/test_reproduce.py": 26,
    "tests/sequential/test_sequential_rule.py": 26,
    "tests/ui/test_first_hour_browser.py": 25,
    "tests/reproduce/test_reproduce_portable.py": 24,
    "tests/cli/test_evalplus_cli.py": 23,
    "tests/agents/test_agent_rag.py": 23,
    "tests/publication/test_windows_livecodebench.py": 22,
    "tests/safety/test_published_text_inert.py": 22,
    "tests/cli/test_cli.py": 21,
    "tests/layout/test_layers.py": 21,
    "tests/ui/test_first_page_imports.py": 21,
    "tests/ui/test_dashboard_lost_writes.py": 20,
    "tests/reproduce/test_reproduce_amplify.py": 20,
    "tests/cli/test_report_cli.py": 20,
    "tests/ui/test_serve_shared.py": 19,
    "tests/ui/test_pages_smoke.py": 19,
    "tests/ui/test_batch_eta_browser.py": 19,
    "tests/stats/test_stats_cli.py": 18,
    "tests/publication/test_harness_livecodebench_reproduce.py": 18,
    "tests/sandbox/test_sandbox_hostile.py": 18,
    "tests/batch/test_run_outcome.py": 17,
    "tests/ui/test_runs_dash_browser.py": 17,
    "tests/ui/test_figure_export.py": 16,
    "tests/workflow/test_step_types.py": 16,
    "tests/ui/test_retrieval_page.py": 15,
    "tests/ui/test_database_modes.py": 15,
}


class _Item(Protocol):
    nodeid: str


def file_of(nodeid: str) -> str:
    """The test file a node id belongs to (`tests/ui/test_x.py::test_y[a]` -> `tests/ui/test_x.py`)."""
    return nodeid.split("::", 1)[0]


def slowest_first(nodeids: Sequence[str], seconds: Mapping[str, float] = FILE_SECONDS) -> list[int]:
    """Indexes of `nodeids` in run order: measured files longest first, the rest after them as collected.

    A stable sort on a per-file key, so each file's tests stay contiguous and in their collected order."""
    first_seen: dict[str, int] = {}
    for index, nodeid in enumerate(nodeids):
        first_seen.setdefault(file_of(nodeid), index)

    def key(index: int) -> tuple[float, int]:
        path = file_of(nodeids[index])
        return -seconds.get(path, 0.0), first_seen[path]

    return sorted(range(len(nodeids)), key=key)


def order_items(items: list[_Item]) -> None:
    """Reorder pytest's collected items in place (the root conftest's `pytest_collection_modifyitems`)."""
    order = slowest_first([item.nodeid for item in items])
    items[:] = [items[index] for index in order]
