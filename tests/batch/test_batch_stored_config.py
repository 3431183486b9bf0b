"""What a batch runs is what it recorded: executors run each condition's RunConfig as stored when it was queued."""

from __future__ import annotations

import logging

import pytest

from execugraph.batch.control import enqueue_batch
from execugraph.batch.runner import Worker
from execugraph.batch.spec import batch_spec_of, condition_configs
from execugraph.domain.config import RunConfig
from execugraph.store import Store
from execugraph.workflow.trial import TrialDeps
from standins.ollama_server import OllamaStandIn
from standins.scripted import fenced
from tests.batch.test_runner import MODEL, problems, spec

pytestmark = pytest.mark.integration

BAD = fenced("def double(x):\n    return x + 2\n")


def always_wrong(model: str, messages: list, options: dict) -> str:
    return BAD


def test_a_queued_batch_runs_its_stored_configs_not_ones_rebuilt_from_its_spec(sqlite_store: Store) -> None:
    from sandbox import SandboxPool

    store = sqlite_store
    run_id = enqueue_batch(store, spec(conditions=["single-retry"], seeds=[0]), problems(2))
    config = store.get_run(run_id).config
    assert config["conditions"]["single-retry"]["retry_budget"] == 3  # what the condition builds today
    config["conditions"]["single-retry"]["retry_budget"] = 1  # as if recorded by a version with another default
    store.update_run(run_id, config=config)
    with SandboxPool(workers=1) as pool, OllamaStandIn(responder=always_wrong, models=[MODEL]) as server:
        Worker(store, deps_factory=lambda: TrialDeps(pool=pool, ollama_host=server.url)).run_forever(
            poll_s=0.05, exit_when_idle=True)
    trials = store.trials_for_run(run_id)
    assert [t.status for t in trials] == ["done", "done"] and not any(t.passed for t in trials)
    assert [t.retries_used for t in trials] == [1, 1]  # the stored budget, not the spec's 3


def test_a_stored_config_from_another_version_is_read_tolerantly_and_says_what_it_defaulted(
        sqlite_store: Store, caplog: pytest.LogCaptureFixture) -> None:
    run_id = enqueue_batch(sqlite_store, spec(conditions=["single-oneshot"], seeds=[0]), problems(1))
    config = sqlite_store.get_run(run_id).config
    config["conditions"]["single-oneshot"] |= {"legacy_knob": 7, "max_tokens": 5}
    sqlite_store.update_run(run_id, config=config)
    run = sqlite_store.get_run(run_id)
    with caplog.at_level(logging.WARNING, logger="execugraph.batch"):
        got = condition_configs(run, batch_spec_of(run))["single-oneshot"]
    assert got.max_tokens == RunConfig().max_tokens and got.condition == "single-oneshot"
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "unknown field 'legacy_knob' dropped" in said and "field 'max_tokens': stored value 5" in said
    legacy = {k: v for k, v in config.items() if k != "conditions"}  # queued before configs were stored
    sqlite_store.update_run(run_id, config=legacy)
    run = sqlite_store.get_run(run_id)
    assert condition_configs(run, batch_spec_of(run))["single-oneshot"] == batch_spec_of(run).run_config(
        "single-oneshot")
    with pytest.raises(ValueError, match="must be an object"):
        RunConfig.from_stored(["not", "a", "config"])
