"""Cancel: the trials in flight are shown as finishing (with how long), and `cancel now` abandons them cleanly."""

from __future__ import annotations

import json
import threading
from collections import Counter

import pytest

from execugraph.batch.control import enqueue_batch, request_cancel, resume
from execugraph.batch.progress import progress
from execugraph.batch.runner import Worker
from execugraph.cli import main
from execugraph.store import Store
from execugraph.workflow.trial import TrialDeps
from standins.ollama_server import OllamaStandIn
from tests.batch.test_leased_run import gated_responder
from tests.batch.test_runner import MODEL, assert_complete_and_unique, problems, spec
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration


def orphans_alive(run_id: int) -> bool:
    return any(t.name.startswith(f"run{run_id}_") and t.is_alive() for t in threading.enumerate())


def test_cancel_shows_the_trials_finishing_and_cancel_now_abandons_them(sqlite_store: Store, tmp_path, capsys):
    from sandbox import SandboxPool

    store = sqlite_store
    run_id = enqueue_batch(store, spec(conditions=["single-oneshot"], seeds=[0], concurrency=2), problems(6))
    gate, calls = threading.Event(), []
    with (
        SandboxPool(workers=1) as pool,
        OllamaStandIn(responder=gated_responder(2, gate, calls), models=[MODEL]) as server,
    ):
        worker = Worker(store, deps_factory=lambda: TrialDeps(pool=pool, ollama_host=server.url))
        thread = threading.Thread(target=worker.run_forever, kwargs={"poll_s": 0.05, "exit_when_idle": True})
        thread.start()
        try:
            # two trials answered and finished, two more held at the server
            wait_until(lambda: progress(store, run_id).done >= 2 and len(calls) >= 4, 300, "two trials held")
            request_cancel(store, run_id)
            p = progress(store, run_id)
            assert p.cancelling and p.eta is None and p.running == 2
            assert p.eta_text().startswith("finishing 2 trials in progress (about ")
            db = str(tmp_path / "sqlite-store.db")
            assert main(["--db", db, "status", str(run_id), "--json"]) == 0
            (row,) = json.loads(capsys.readouterr().out)
            assert row["cancelling"] and row["eta"] is None and row["finishing"]["trials"] == 2
            assert thread.is_alive()  # a plain cancel waits for them
            assert main(["--db", db, "cancel", "--now", str(run_id)]) == 0
            assert "2 trials in progress abandoned" in capsys.readouterr().out
            thread.join(timeout=120)  # the worker does not wait for the held calls
            assert not thread.is_alive(), "cancel now still waited for the trials in flight"
            assert len(worker.local.abandoned) == 2
            assert orphans_alive(run_id)  # their threads are still held at the server, left to end on their own
        finally:
            gate.set()  # the abandoned attempts get their answers now: nothing they write may land
        wait_until(lambda: not orphans_alive(run_id), 300, "the abandoned attempts to end")
        run = store.get_run(run_id)
        statuses = Counter(t.status for t in store.trials_for_run(run_id))
        assert run.status == "cancelled" and run.worker_id is None
        assert statuses == {"done": 2, "cancelled": 4}
        for trial_id in worker.local.abandoned:
            trial = store.get_trial(trial_id)
            assert trial.status == "cancelled" and not store.steps_for_trial(trial_id)
            assert not store.llm_calls_for_trial(trial_id)
        assert resume(store, run_id) == 4
        worker.run_forever(poll_s=0.05, exit_when_idle=True)
    assert store.get_run(run_id).status == "done"
    assert_complete_and_unique(store, run_id, 6)
