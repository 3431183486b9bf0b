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
    # browsers: a Streamlit server, chromium and Playwright's driver per file or per test
    "tests/ui/test_browser.py": 120,
    "tests/ui/test_url_links_browser.py": 220,
    "tests/ui/test_browser_back_and_narrow.py": 260,
    "tests/ui/test_idle.py": 110,
    "tests/ui/test_browser_daily.py": 130,
    "tests/ui/test_browser_openai.py": 120,
    "tests/ui/test_browser_trace_runs_layout.py": 110,
    "tests/ui/test_serve_shared.py": 90,
    "tests/ui/test_browser_analysis.py": 160,
    "tests/ui/test_browser_reproduce.py": 80,
    "tests/ui/test_runs_manage_browser.py": 75,
    "tests/ui/test_browser_hostile_report.py": 70,
    "tests/ui/test_first_hour_browser.py": 70,
    "tests/ui/test_import_dataset_browser.py": 65,
    "tests/ui/test_sign_in_keeps_link_browser.py": 65,
    "tests/ui/test_synthesize_picker_browser.py": 65,
    # real worker processes, CLI subprocesses, venvs, Ray, the sandbox under time limits
    "tests/publication/test_harness_formats.py": 150,  # 300 before the loop sample was graded only where checked
    "tests/workflow/test_openai_provider.py": 200,
    "tests/batch/test_batch_stored_config.py": 35,
    "tests/stats/test_stats_cli.py": 100,
    "tests/stats/test_facet_breakdowns.py": 75,
    "tests/stats/test_cost_frontier.py": 60,
    "tests/store/test_store_concurrency.py": 85,
    "tests/plugins/test_example_plugin.py": 130,
    "tests/scaleout/test_scaleout_ray.py": 80,
    "tests/ui/test_batch_page.py": 60,
    "tests/batch/test_orphaned_cancel.py": 50,
    "tests/batch/test_disk_full.py": 45,
    "tests/amplify/test_amplify.py": 45,
    "tests/batch/test_run_outcome.py": 40,
    "tests/store/test_store_opening.py": 40,
    "tests/cli/test_cli.py": 35,
    "tests/providers/test_endpoint_outages.py": 35,
    "tests/sandbox/test_sandbox_cpu_limits.py": 35,
    "tests/sandbox/test_sandbox_blocked_time.py": 30,
    "tests/amplify/test_amplify_parallel.py": 30,
    "tests/sequential/test_sequential_batch.py": 50,
    "tests/publication/test_publication_limits.py": 30,
    "tests/cli/test_batch_release_window.py": 90,
    "tests/batch/test_matched_budget_plan.py": 110,
    "tests/ui/test_access.py": 25,
    "tests/stats/test_signed_rank.py": 25,
    "tests/layout/test_layers.py": 25,
    "tests/agents/test_agent_providers.py": 20,
    "tests/ui/test_batch_sequential_page.py": 15,
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
