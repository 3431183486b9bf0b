"""EndpointBalancer against real loopback Ollama stand-ins: limits, balancing, draining, re-admission."""

from __future__ import annotations

import time
from collections import Counter

import pytest

from execugraph.scaleout.endpoints import EndpointBalancer
from standins.ollama_server import OllamaStandIn
from tests.support.postgres import free_port

pytestmark = pytest.mark.integration

MODEL = "standin:latest"


def test_trials_are_spread_and_per_endpoint_limits_hold():
    with OllamaStandIn(models=[MODEL]) as a, OllamaStandIn(models=[MODEL]) as b:
        balancer = EndpointBalancer([a.url, b.url], 2, required_models=[MODEL])
        balancer.check_all()
        taken = [balancer.acquire() for _ in range(4)]
        assert Counter(e.url for e in taken) == {a.url: 2, b.url: 2}
        assert balancer.acquire() is None  # both at their limit
        balancer.release(taken[0])
        again = balancer.acquire()
        assert again is not None and again.url == taken[0].url
        assert balancer.capacity() == 4


@pytest.mark.parametrize(
    ("mode", "cause"),
    [("reset", "Connection"), ("503", "HTTP 503"), ("refuse", "Connection refused")],
)
def test_a_failing_endpoint_is_drained_with_its_reason_and_readmitted(mode, cause):
    with OllamaStandIn(models=[MODEL]) as a, OllamaStandIn(models=[MODEL]) as b:
        balancer = EndpointBalancer([a.url, b.url], 3, required_models=[MODEL], probe_timeout_s=1.0)
        endpoint_a = balancer.endpoints[0]
        a.set_down(True, mode=mode)
        reason = balancer.check(endpoint_a)
        assert reason is not None and f"GET {a.url}/api/tags failed" in reason and cause in reason, reason
        assert not endpoint_a.healthy and endpoint_a.reason == reason and endpoint_a.drains == 1
        assert {balancer.acquire().url for _ in range(3)} == {b.url}  # all load goes to b
        assert balancer.acquire() is None
        assert a.url in balancer.describe()
        a.set_down(False, mode=mode)
        assert balancer.check(endpoint_a) is None
        assert endpoint_a.healthy and endpoint_a.reason is None
        assert balancer.acquire().url == a.url


def test_an_endpoint_without_the_batch_model_is_drained():
    with OllamaStandIn(models=["other:7b"]) as a:
        balancer = EndpointBalancer([a.url], 1, required_models=["qwen2.5-coder", MODEL])
        balancer.check_all()
        endpoint = balancer.endpoints[0]
        assert not endpoint.healthy
        assert endpoint.reason == f"health check: model(s) qwen2.5-coder:latest, {MODEL} not pulled on {a.url}"
        assert balancer.acquire() is None


def test_background_checks_drain_a_dying_endpoint_within_a_few_intervals():
    with OllamaStandIn(models=[MODEL]) as a:
        balancer = EndpointBalancer([a.url], 1, required_models=[MODEL], check_every_s=0.1, probe_timeout_s=0.5)
        balancer.start()
        try:
            a.set_down(True, mode="503")
            deadline = time.monotonic() + 5
            while balancer.endpoints[0].healthy and time.monotonic() < deadline:
                time.sleep(0.02)
            assert not balancer.endpoints[0].healthy
            a.set_down(False)
            deadline = time.monotonic() + 5
            while not balancer.endpoints[0].healthy and time.monotonic() < deadline:
                time.sleep(0.02)
            assert balancer.endpoints[0].healthy
        finally:
            balancer.stop()
        assert balancer._thread is None


def test_unchecked_endpoints_only_bound_concurrency():
    nowhere = f"http://127.0.0.1:{free_port()}"  # nothing listens: a batch with no Ollama model never asks
    balancer = EndpointBalancer([nowhere], 2, checked=False)
    balancer.check_all()
    balancer.start()
    assert balancer.endpoints[0].healthy and balancer._thread is None
    assert balancer.acquire() is not None and balancer.acquire() is not None and balancer.acquire() is None


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="at least one LLM endpoint"):
        EndpointBalancer([], 1)
    with pytest.raises(ValueError, match="at least 1"):
        EndpointBalancer(["http://a:1"], 0)
