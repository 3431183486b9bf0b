"""A worker's warm-up before its first claim: the imports a batch's first trials would otherwise queue on.

Done synchronously, on the worker's own thread, before it claims anything: a background import
racing the trial threads' imports can end in Python's module-lock deadlock error, and a batch
claimed meanwhile would wait on those imports anyway. What is imported: the trial's graph and
agents (LangGraph), what reading a stored batch spec needs, and every installed provider's
client modules (`providers.clients.preload`, which also builds one throwaway OpenAI client for
the modules it imports lazily).
"""

from __future__ import annotations

import importlib
import logging
import time
from collections.abc import Sequence

log = logging.getLogger("execugraph.batch")

TRIAL_MODULES = ("execugraph.workflow.trial", "execugraph.workflow.graph", "execugraph.stats.windows")


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
