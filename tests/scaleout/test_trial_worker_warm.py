"""A Ray worker actor warms as a batch worker does: providers imported and the batch's clients built in
`ready()`, one per endpoint, so its trials build none. Tested without Ray, on a real store and stand-ins."""

from __future__ import annotations

import pytest

from execugraph.batch.spec import condition_configs
from execugraph.providers import clients
from execugraph.scaleout.messages import WarmRequest
from execugraph.scaleout.trial_worker import TrialWorker
from execugraph.store import Store
from standins.ollama_server import OllamaStandIn, scripted_responder
from tests.batch.test_runner import GOOD, MODEL, spec
from tests.scaleout.test_scaleout_workers import queued_trial, task_for

pytestmark = pytest.mark.integration


def test_ready_builds_each_endpoints_clients_and_trials_then_build_none(tmp_path) -> None:
    db_url = f"sqlite:///{tmp_path / 'worker.db'}"
    store = Store.open(db_url)
    run_id, (trial,) = queued_trial(store)
    configs = condition_configs(store.get_run(run_id), spec(conditions=["single-oneshot"], seeds=[0]))
    worker = TrialWorker(db_url, sandbox_workers=1)
    responder = scripted_responder([GOOD], cycle=True)
    try:
        with OllamaStandIn(responder=responder, models=[MODEL]) as one, \
                OllamaStandIn(responder=responder, models=[MODEL]) as two:
            before = clients.constructions()
            worker.ready(WarmRequest(tuple(configs.values()), (one.url, two.url), "ollama"))
            built = clients.constructions() - before
            assert built >= 2  # at least one client per endpoint (fresh ports: no other test built them)
            worker.ready(WarmRequest(tuple(configs.values()), (one.url, two.url), "ollama"))  # after a restart
            assert clients.constructions() - before == built
            outcome = worker.run(task_for(store, run_id, trial, trial.started_at, two.url))
            assert outcome.status == "done" and outcome.passed
            assert clients.constructions() - before == built  # the trial used the warm client
    finally:
        worker.close()
        store.close()


def test_a_worker_preloads_only_the_providers_its_batch_names(tmp_path, monkeypatch) -> None:
    from execugraph.scaleout import trial_worker

    store = Store.open(f"sqlite:///{tmp_path / 'providers.db'}")
    run_id, _ = queued_trial(store)
    configs = condition_configs(store.get_run(run_id), spec(conditions=["single-oneshot"], seeds=[0]))
    store.close()
    asked: list[list[str]] = []
    monkeypatch.setattr(clients, "preload", lambda providers: asked.append(list(providers)) or list(providers))
    trial_worker._warm_imports(WarmRequest(tuple(configs.values()), ("http://127.0.0.1:9",), "ollama"))
    assert asked == [["ollama"]]  # an Ollama-only batch: the OpenAI SDK and llama.cpp stay unimported
