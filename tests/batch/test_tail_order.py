"""The tail rule (`execugraph.batch.order.tail_order`): a batch's last queued trials are claimed heaviest first,
while trial ids, keys and per-problem results stay as they were; sequential and condition-major batches keep id order."""

from __future__ import annotations

import threading

import pytest

from execugraph.batch import order as order_module
from execugraph.batch.control import enqueue_batch
from execugraph.batch.order import TAIL_WAVES, attempt_calls, tail_order
from execugraph.batch.runner import Worker
from execugraph.batch.spec import BatchSpec, batch_spec_of, condition_configs
from execugraph.configuration.conditions import resolve_condition
from execugraph.sequential.design import SequentialDesign
from execugraph.store import Store, leases
from execugraph.workflow.trial import TrialDeps
from standins.ollama_server import OllamaStandIn
from standins.role_responder import role_responder
from standins.workload import REPLIES
from tests.batch.test_runner import MODEL, problems

CONDITIONS = ["single-oneshot", "multi-full"]  # 1 and 5 model calls per attempt


def spec(**overrides) -> BatchSpec:
    values = {"benchmark": "toy", "conditions": CONDITIONS, "seeds": [0, 1], "default_model": f"ollama:{MODEL}",
              "concurrency": 2, "overrides": {"cache": False}}
    return BatchSpec(**(values | overrides))


def rule_of(store: Store, run_id: int):
    batch = batch_spec_of(store.get_run(run_id))
    return tail_order(batch, condition_configs(store.get_run(run_id), batch), batch.concurrency)


def expected_claims(store: Store, run_id: int, tail: int) -> list[int]:
    """Id order up to the tail; in the tail the multi-agent trials (by id), then the one-shot ones (by id)."""
    trials = sorted(store.trials_for_run(run_id), key=lambda t: t.id)
    head, rest = trials[: len(trials) - tail], trials[len(trials) - tail:]
    heavy = [t.id for t in rest if t.condition == "multi-full"]
    return [t.id for t in head] + heavy + [t.id for t in rest if t.condition != "multi-full"]


def test_calls_per_attempt_come_from_the_config() -> None:
    calls = {name: attempt_calls(resolve_condition(name)) for name in
             ("single-oneshot", "single-retry", "multi-full", "multi-no-planner", "multi-no-retry", "best-of-n")}
    assert calls == {"single-oneshot": 1, "single-retry": 1, "multi-full": 5, "multi-no-planner": 4,
                     "multi-no-retry": 5, "best-of-n": 4}


def test_the_rule_applies_only_to_paired_batches_with_conditions_of_different_weight() -> None:
    configs = {c: resolve_condition(c) for c in CONDITIONS}
    rule = tail_order(spec(), configs, 16)
    assert rule is not None and rule.tail == TAIL_WAVES * 16 and dict(rule.weights) == {"single-oneshot": 1,
                                                                                          "multi-full": 5}
    assert tail_order(spec(order="condition-major"), configs, 16) is None
    assert tail_order(spec(sequential=SequentialDesign(baseline="single-oneshot")), configs, 16) is None
    same = {c: resolve_condition(c) for c in ("single-oneshot", "single-retry")}
    assert tail_order(spec(conditions=list(same)), same, 16) is None  # equal weights: id order throughout


def test_the_last_queued_trials_are_claimed_heaviest_first(store: Store) -> None:
    run_id = enqueue_batch(store, spec(), problems(5))  # 5 problems x 2 conditions x 2 seeds = 20 trials
    rule = rule_of(store, run_id)
    assert rule is not None and rule.tail == TAIL_WAVES * 2 == 8
    claimed = []
    while (trial := leases.claim_trial(store, run_id, order=rule)) is not None:
        claimed.append(trial.id)
    assert claimed == expected_claims(store, run_id, rule.tail) != sorted(claimed)
    plain = enqueue_batch(store, spec(), problems(5))
    ids = []
    while (trial := leases.claim_trial(store, plain)) is not None:
        ids.append(trial.id)
    assert ids == sorted(ids)  # without a rule: id order, as before


def run_batch(store: Store, pool, url: str) -> int:
    run_id = enqueue_batch(store, spec(), problems(5))
    worker = Worker(store, deps_factory=lambda: TrialDeps(pool=pool, ollama_host=url))
    thread = threading.Thread(target=worker.run_forever, kwargs={"poll_s": 0.05, "exit_when_idle": True})
    thread.start()
    thread.join(timeout=600)
    assert not thread.is_alive(), "the batch did not finish within 600 s"
    return run_id


@pytest.mark.integration
def test_a_worker_claims_the_tail_heaviest_first_and_trial_ids_and_results_do_not_change(tmp_path, monkeypatch):
    from sandbox import SandboxPool

    with SandboxPool(workers=1) as pool, OllamaStandIn(responder=role_responder(REPLIES), models=[MODEL],
                                                        latency_s=0.01) as server:
        with Store.open(str(tmp_path / "rule.db")) as ruled:
            ruled_run = run_batch(ruled, pool, server.url)
            ruled_trials = ruled.trials_for_run(ruled_run)
            expected = expected_claims(ruled, ruled_run, TAIL_WAVES * 2)
        monkeypatch.setattr(order_module, "TAIL_WAVES", 0)  # the rule off: claims in id order, as before it
        with Store.open(str(tmp_path / "plain.db")) as plain:
            plain_run = run_batch(plain, pool, server.url)
            plain_trials = plain.trials_for_run(plain_run)

    def claims(trials) -> list[int]:
        return [t.id for t in sorted(trials, key=lambda t: (t.started_at, t.id))]

    assert [t.status for t in ruled_trials + plain_trials] == ["done"] * 40
    assert claims(ruled_trials) == expected  # one executor thread claims, so the order is exactly the rule's
    assert claims(plain_trials) == sorted(claims(plain_trials))

    def keys(trials) -> list[tuple]:  # ids relative to the run's first, with what each trial is
        first = min(t.id for t in trials)
        return sorted((t.id - first, t.problem_id, t.condition, t.seed, t.trial_index) for t in trials)

    def results(trials) -> dict[tuple, tuple]:
        return {(t.problem_id, t.condition, t.seed): (t.passed, t.tests_passed, t.tests_total, t.llm_calls)
                for t in trials}

    assert keys(ruled_trials) == keys(plain_trials)
    assert results(ruled_trials) == results(plain_trials)
    assert {calls for *_, calls in results(ruled_trials).values()} == {1, 5}
