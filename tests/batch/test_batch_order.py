"""Paired order: a batch runs problem by problem in a seeded random order, recorded and kept on resume,
so what a cancel leaves is a paired sample; and its ETA, from per-condition costs, while it runs."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from execugraph.batch.control import enqueue_batch, request_cancel, resume
from execugraph.batch.order import pairing, shuffled
from execugraph.batch.progress import BatchProgress, progress
from execugraph.batch.runner import Worker
from execugraph.batch.spec import batch_spec_of
from execugraph.store import Store, leases, run_reads
from execugraph.workflow.trial import TrialDeps
from standins.ollama_server import OllamaStandIn, scripted_responder
from tests.batch.test_runner import GOOD, MODEL, assert_complete_and_unique, problems, spec
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

ARMS = 2 * 2  # two conditions x two seeds


def blocks(trials: list[Any]) -> list[str]:
    """The problems in the order their trials come, each once (a problem's trials must be contiguous)."""
    seen: list[str] = []
    for trial in trials:
        if not seen or seen[-1] != trial.problem_id:
            assert trial.problem_id not in seen, f"{trial.problem_id} comes back after another problem"
            seen.append(trial.problem_id)
    return seen


def test_a_batch_is_queued_problem_by_problem_in_a_recorded_seeded_order(store: Store) -> None:
    grid = problems(8)
    run_id = enqueue_batch(store, spec(seeds=[3, 4]), grid)
    run = store.get_run(run_id)
    trials = store.trials_for_run(run_id)  # in id order: the order they are claimed in
    order = blocks(trials)
    assert order == run.config["order"]["problems"] == [p.id for p in shuffled(grid, 3)]
    assert order != [p.id for p in grid]  # really shuffled (seed 3 happens to move things)
    assert run.config["order"]["kind"] == "paired" and run.config["order"]["seed"] == 3
    assert run.config["batch"]["order_seed"] is None  # the spec as given; the seed it resolves to is recorded
    for start in range(0, len(trials), ARMS):  # a problem's arms: each seed with both conditions side by side
        arms = [(t.seed, t.condition) for t in trials[start:start + ARMS]]
        assert arms == [(3, "single-oneshot"), (3, "single-retry"), (4, "single-oneshot"), (4, "single-retry")]
    # listings that order conditions by their first trial still show the launch order
    assert run_reads.conditions_in_order(store, [run_id]) == ["single-oneshot", "single-retry"]
    again = enqueue_batch(store, spec(seeds=[3, 4]), grid)
    assert blocks(store.trials_for_run(again)) == order  # same seed, same order
    other = enqueue_batch(store, spec(seeds=[3, 4], order_seed=99), grid)
    assert blocks(store.trials_for_run(other)) == [p.id for p in shuffled(grid, 99)] != order
    major = enqueue_batch(store, spec(order="condition-major"), grid)
    assert [t.condition for t in store.trials_for_run(major)][:16] == ["single-oneshot"] * 16


def test_a_run_stored_before_orders_reads_as_condition_major(sqlite_store: Store) -> None:
    run_id = enqueue_batch(sqlite_store, spec(), problems(2))
    stored = sqlite_store.get_run(run_id).config
    legacy = {k: v for k, v in stored["batch"].items() if k not in ("order", "order_seed")}
    sqlite_store.update_run(run_id, config=stored | {"batch": legacy})
    assert batch_spec_of(sqlite_store.get_run(run_id)).order == "condition-major"


def claim_order(store: Store, run_id: int, since: Any = None) -> list[int]:
    """Trial ids in the order their (last) attempts were claimed."""
    trials = [t for t in store.trials_for_run(run_id) if t.started_at is not None
              and (since is None or t.started_at > since)]
    return [t.id for t in sorted(trials, key=lambda t: t.started_at)]


def test_a_worker_runs_in_paired_order_a_cancel_leaves_a_paired_sample_and_resume_keeps_the_order(sqlite_store):
    from sandbox import SandboxPool

    store = sqlite_store
    grid = problems(8)
    run_id = enqueue_batch(store, spec(concurrency=2), grid)
    order = store.get_run(run_id).config["order"]["problems"]
    seen: list[BatchProgress] = []
    with (
        SandboxPool(workers=1) as pool,
        OllamaStandIn(responder=scripted_responder([GOOD], cycle=True), models=[MODEL], latency_s=0.1) as server,
    ):
        worker = Worker(store, deps_factory=lambda: TrialDeps(pool=pool, ollama_host=server.url))
        thread = threading.Thread(target=worker.run_forever, kwargs={"poll_s": 0.05, "exit_when_idle": True})
        thread.start()
        wait_until(lambda: progress(store, run_id).done >= 2 * ARMS + 1, 300, "two problems and a bit done")
        seen.append(progress(store, run_id))
        request_cancel(store, run_id)
        thread.join(timeout=300)
        assert not thread.is_alive()
        assert store.get_run(run_id).status == "cancelled"
        trials = store.trials_for_run(run_id)
        assert claim_order(store, run_id) == sorted(claim_order(store, run_id))  # claimed in the queued order
        complete, partial = pairing(trials, ARMS)
        assert complete >= 2 and partial <= 1  # at most the problem open at the cancel is unpaired
        finished = [p for p in order if any(t.problem_id == p and t.status == "done" for t in trials)]
        assert finished == order[: len(finished)]  # the finished problems are a prefix of the random order
        resumed_at = max(t.finished_at for t in trials if t.finished_at is not None)
        assert resume(store, run_id) > 0
        worker.run_forever(poll_s=0.05, exit_when_idle=True)
    after = claim_order(store, run_id, since=resumed_at)
    assert after and after == sorted(after)  # the rest runs in the recorded order too
    assert blocks(store.trials_for_run(run_id)) == order
    assert_complete_and_unique(store, run_id, len(grid) * ARMS)
    assert pairing(store.trials_for_run(run_id), ARMS) == (len(grid), 0)
    mid = seen[0]  # the ETA mid-run rests on this run's own trials, per condition
    assert mid.eta is not None and mid.eta.basis == "this run" and mid.eta.low <= mid.eta.seconds <= mid.eta.high


def test_a_new_run_of_the_same_models_has_an_eta_from_earlier_runs_before_its_first_trial(sqlite_store):
    store = sqlite_store
    earlier = enqueue_batch(store, spec(seeds=[0]), problems(2))
    for trial in store.trials_for_run(earlier):  # as if run: the one-shot trials cost 5 s, the retrying 20 s
        store.finish_trial(trial.id, status="done", passed=True, wallclock_s=5.0 if "oneshot" in trial.condition
                           else 20.0)
    store.update_run(earlier, status="done")
    run_id = enqueue_batch(store, spec(seeds=[0]), problems(3))
    assert progress(store, run_id).eta is None  # queued: nothing to tell yet
    assert leases.claim_run(store, "w", 30.0, only=run_id) == run_id
    p = progress(store, run_id)
    assert p.eta is not None and p.eta.basis == "earlier runs"
    assert abs(p.eta.seconds - 3 * (5 + 20)) < 1e-6
    assert p.eta_text().startswith("ETA about 1 min 15 s")
    store.update_run(run_id, cancel_requested=True)
    cancelling = progress(store, run_id)
    assert cancelling.eta is None and cancelling.eta_text() == "cancelling"
