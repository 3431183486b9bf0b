"""Endpoint lists and fault settings of a batch: parsed, validated, and carried into every condition."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from execugraph.batch.spec import BatchSpec, parse_endpoint
from execugraph.cli import build_parser
from execugraph.cli.batch import _spec_from_args


def test_endpoint_kinds_are_inferred_or_stated() -> None:
    assert parse_endpoint("gpu1:11434") == ("ollama", "http://gpu1:11434")
    assert parse_endpoint("http://gpu1:8000/v1/") == ("openai", "http://gpu1:8000/v1")
    assert parse_endpoint("openai=http://lm:1234") == ("openai", "http://lm:1234")
    assert parse_endpoint("ollama=http://gpu1:11434/v1") == ("ollama", "http://gpu1:11434/v1")
    for bad in ("ftp://a", "", "openai="):
        with pytest.raises(ValueError, match="bad endpoint"):
            parse_endpoint(bad)


def test_a_batch_balances_over_one_kind_of_endpoint_and_only_on_ray() -> None:
    spec = BatchSpec(executor="ray", endpoints=["http://a:8000/v1", "b:8000/v1"])
    assert spec.endpoint_list() == [("openai", "http://a:8000/v1"), ("openai", "http://b:8000/v1")]
    old = BatchSpec(executor="ray", ollama_hosts=["a:11434"], endpoints=["http://b:11434"])
    assert old.endpoint_list() == [("ollama", "http://a:11434"), ("ollama", "http://b:11434")]
    with pytest.raises(ValidationError, match="mix Ollama and OpenAI-compatible"):
        BatchSpec(executor="ray", endpoints=["http://a:11434", "http://b:8000/v1"])
    with pytest.raises(ValidationError, match="listed twice"):
        BatchSpec(executor="ray", endpoints=["http://a:8000/v1", "a:8000/v1"])
    with pytest.raises(ValidationError, match="only apply to executor 'ray'"):
        BatchSpec(endpoints=["http://a:8000/v1"])


def test_fault_settings_reach_every_condition_and_overrides_still_win() -> None:
    spec = BatchSpec(conditions=["single-oneshot", "multi-full"], outage_budget_s=30, llm_timeout_s=45)
    assert {c: (spec.run_config(c).outage_budget_s, spec.run_config(c).llm_timeout_s) for c in spec.conditions} == {
        "single-oneshot": (30, 45), "multi-full": (30, 45)}
    assert BatchSpec(outage_budget_s=30, overrides={"outage_budget_s": 5}).run_config("multi-full").outage_budget_s == 5
    defaults = BatchSpec().run_config("multi-full")
    assert defaults.outage_budget_s == 600 and defaults.llm_timeout_s == 900
    with pytest.raises(ValidationError):
        BatchSpec(outage_budget_s=-1)


def test_cli_flags_build_the_spec() -> None:
    args = build_parser().parse_args(
        ["batch", "--executor", "ray", "--endpoints", "http://a:8000/v1,http://b:8000/v1", "--outage-budget-s", "90",
         "--llm-timeout-s", "60"])
    spec = _spec_from_args(args)
    assert spec.endpoints == ["openai=http://a:8000/v1", "openai=http://b:8000/v1"]
    assert (spec.outage_budget_s, spec.llm_timeout_s) == (90, 60)
    old = _spec_from_args(build_parser().parse_args(["batch", "--executor", "ray", "--ollama-hosts", "a:11434"]))
    assert old.endpoint_list() == [("ollama", "http://a:11434")]
    run = build_parser().parse_args(["run", "--statement", "x", "--outage-budget-s", "5"])
    assert (run.outage_budget_s, run.llm_timeout_s) == (5, None)
