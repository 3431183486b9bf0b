"""The columns a step's child rows are written with: what an agent buffers while its step runs.

An LLM call, a sandbox execution and a retrieval hit are collected by the node that makes them
(`agents.context.StepRecord`) and written with their step in one transaction
(`Store.record_step`), which adds the trial and step ids. These say which columns each may set,
so a misspelt column is a type error where the row is built, not a failure in the transaction.
"""

from __future__ import annotations

from datetime import datetime
from typing import TypedDict

from execugraph.domain.json_types import JsonObject


class LLMCallFields(TypedDict, total=False):
    """An `LLMCall` row without its ids: one chat completion as the model router records it."""

    role: str  # the agent role that asked (planner, generator, ...)
    provider: str  # the provider part of the model spec (ollama, openai, scripted, replay)
    model: str  # the whole model spec
    messages: list[dict[str, str]]  # the chat sent: role and content of each message
    response: str  # the model's reply text
    tokens_in: int
    tokens_out: int
    latency_s: float  # seconds the call took (0 for a cache hit)
    seed: int | None
    temperature: float | None
    cache_hit: bool  # the reply came from the LLM cache
    prompt_hash: str  # digest of `messages`, to find the same prompt across trials
    created_at: datetime


class ExecutionFields(TypedDict, total=False):
    """An `Execution` row without its ids: one sandbox run of a candidate against a suite."""

    purpose: str  # grading | feedback | optimizer | smoke
    code: str  # the program as it ran (preamble included)
    verdict: str
    tests_passed: int
    tests_total: int
    results: list[JsonObject]  # per-test results as the sandbox reported them (a JSON column)
    stdout: str
    stderr: str
    policy_version: str  # the sandbox policy that ran it
    isolation: JsonObject  # how the sandbox isolated the run (a JSON column)
    duration_s: float
    created_at: datetime


class HitFields(TypedDict, total=False):
    """A `RetrievalHit` row without its ids: one technique offered to the planner."""

    technique_id: str
    technique_name: str
    score: float
    rank: int  # 1 for the best hit
    query: str  # the text the retriever searched with (the problem statement)
