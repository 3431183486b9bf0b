"""A worker's warm-up before a batch's first trial: the imports its trial threads would otherwise queue on.

Done synchronously, on the worker's own thread, once a run is claimed and before its trial threads start:
a background import racing the trial threads' imports can end in Python's module-lock deadlock error.
What is imported: the trial's graph and agents (LangGraph), what reading a stored batch spec needs, and the
client modules of the providers the batch's conditions call (`providers.clients.preload`, which also builds
one throwaway OpenAI client for the modules it imports lazily). A worker that finds nothing to do, or only
runs another executor's batches, imports none of it.
"""

from __future__ import annotations

import importlib
import logging
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from execugraph.domain.config import RunConfig

log = logging.getLogger("execugraph.batch")

TRIAL_MODULES = ("execugraph.workflow.trial", "execugraph.workflow.graph", "execugraph.stats.windows")


def providers_of(configs: Iterable[RunConfig]) -> list[str]:
    """The providers any role of these conditions calls, sorted: what a worker serving them needs warm."""
    from execugraph.domain.config import ROLES
    from execugraph.providers.model_spec import parse_spec

    return sorted({parse_spec(config.model_for(role)).provider for config in configs for role in ROLES})


def warm_worker(providers: Sequence[str] | None = None) -> float:
    """Import what the first trials need, in this thread; returns the seconds it took.

    `providers`: only these providers' clients (a worker that knows its batch); None: every installed one."""
    from execugraph.providers.clients import SHARED_PROVIDERS, preload

    started = time.monotonic()
    for module in TRIAL_MODULES:
        importlib.import_module(module)
    providers = preload(SHARED_PROVIDERS if providers is None else providers)
    took = time.monotonic() - started
    log.info("worker warmed in %.2f s (providers: %s)", took, ", ".join(providers) or "none")
    return took
