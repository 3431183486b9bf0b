"""SQLModel tables of the run store.

Column names here are a contract: the runner, the CLI and the dashboard read
and write them by name. Every change to a table must come with a migration in
`migrations.py`; `tests/store/test_store_migrations.py` fails when the
migrated schema and these models disagree.

Timestamps are timezone-aware UTC datetimes (`utcnow()`): SQLModel maps
`datetime` fields to its UTCDateTime type, `timestamptz` on PostgreSQL and
offset-free UTC text on SQLite, and returns aware UTC values from both. Naive
datetimes are refused on write.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, Index, Text, UniqueConstraint
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field, SQLModel

from execugraph.domain.json_types import JsonObject
from execugraph.domain.problem import Problem
from execugraph.domain.vocabulary import (
    FEEDBACK_SOURCES as FEEDBACK_SOURCES,  # re-exported for the store's checks
)
from execugraph.domain.vocabulary import GRADING_PROTOCOLS as GRADING_PROTOCOLS
from execugraph.safety import redaction

RUN_KINDS = ("single", "batch", "import", "rescore")
RUN_STATUSES = ("queued", "running", "done", "failed", "cancelled")
TRIAL_STATUSES = ("queued", "running", "done", "error", "cancelled")
TEST_SOURCES = ("problem", "generated", "smoke")
EXECUTION_PURPOSES = ("grading", "feedback", "optimizer", "smoke")


# Trial columns that queries.run_summary aggregates (after run_id, condition).
SUMMARY_COLUMNS = (
    "category",
    "status",
    "passed",
    "wallclock_s",
    "retries_used",
    "tokens_in",
    "tokens_out",
    "llm_calls",
)


def utcnow() -> datetime:
    """Current time, aware, in UTC: what every timestamp column stores."""
    return datetime.now(UTC)


class CleanTextColumn(TypeDecorator[str]):
    """Unbounded text that any backend accepts.

    Program output is hostile input: PostgreSQL refuses NUL characters and no
    driver can encode lone surrogates. Both are replaced by U+FFFD on the way
    in, so persisting a trace never fails because of what a program printed.
    Any secret the process holds (an API key a server echoed) is scrubbed too.
    """

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Any) -> str | None:
        if value is None:
            return None
        text = value if isinstance(value, str) else str(value)
        if "\x00" in text:
            text = text.replace("\x00", "\ufffd")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = _fix_surrogates(text)
        return redaction.scrub(text) if redaction.holds_secrets() else text


class MessageText(CleanTextColumn):
    """An error message: also scrubbed of the database password (see `redaction`)."""

    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Any) -> str | None:
        text = super().process_bind_param(value, dialect)
        return None if text is None else redaction.scrub_message(text)


def _fix_surrogates(text: str) -> str:
    """Replace code points UTF-8 cannot encode (lone surrogates) with U+FFFD."""
    return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in text)


NONFINITE_TAG = "__float__"


def tag_nonfinite(value: Any) -> Any:
    """Replace inf/-inf/nan with {"__float__": "inf"} so test expectations survive JSON columns exactly.

    Expected values such as Dijkstra's `inf` for unreachable nodes must come back as
    floats, or a stored problem would grade a correct program as a wrong answer.
    """
    if isinstance(value, float) and not math.isfinite(value):
        return {NONFINITE_TAG: repr(value)}
    if isinstance(value, dict):
        return {k: tag_nonfinite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [tag_nonfinite(v) for v in value]
    return value


def untag_nonfinite(value: Any) -> Any:
    """Inverse of tag_nonfinite."""
    if isinstance(value, dict):
        if set(value) == {NONFINITE_TAG}:
            return float(value[NONFINITE_TAG])
        return {k: untag_nonfinite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [untag_nonfinite(v) for v in value]
    return value


class Run(SQLModel, table=True):
    """One invocation: a single trial, a batch, an import or a rescore of another run."""

    __tablename__ = "run"

    id: int | None = Field(default=None, primary_key=True)
    kind: str
    title: str = ""
    status: str = "queued"
    config: JsonObject = Field(default_factory=dict, sa_type=JSON)
    benchmark: str | None = None
    host: str = ""
    versions: JsonObject = Field(default_factory=dict, sa_type=JSON)
    models: JsonObject = Field(default_factory=dict, sa_type=JSON)
    tags: list[str] = Field(default_factory=list, sa_type=JSON)
    created_at: datetime = Field(default_factory=utcnow)
    started_at: datetime | None = None
    finished_at: datetime | None = None
    parent_run_id: int | None = Field(default=None, foreign_key="run.id", index=True)
    progress_total: int = 0
    progress_done: int = 0
    progress_passed: int = 0
    error: str | None = Field(default=None, sa_type=MessageText)
    worker_id: str | None = None
    heartbeat_at: datetime | None = None
    # Until when the worker in `worker_id` holds the run: written with every renewal from the
    # holder's own lease length; another worker may take the run over only after it.
    lease_expires_at: datetime | None = None
    cancel_requested: bool = False


class Trial(SQLModel, table=True):
    """One attempt of one problem under one condition and seed; the unit the statistics count."""

    __tablename__ = "trial"
    __table_args__ = (
        UniqueConstraint("run_id", "problem_id", "condition", "seed", "trial_index", name="uq_trial_key"),
        # Both indexes also carry the columns the progress and summary queries
        # aggregate, so those are index-only scans that never touch the wide
        # rows (final code, explanations): 7x faster on a 50,000-trial run.
        Index("ix_trial_run_status", "run_id", "status", "passed"),
        Index("ix_trial_run_condition", "run_id", "condition", *SUMMARY_COLUMNS),
    )

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="run.id")
    problem_id: str
    benchmark: str = ""
    category: str = ""
    condition: str
    seed: int
    trial_index: int = 0
    status: str = "queued"
    passed: bool | None = None
    tests_passed: int = 0
    tests_total: int = 0
    retries_used: int = 0
    error_class: str | None = None
    test_source: str | None = None
    feedback_source: str | None = None
    # How the program met its tests (None: not recorded, e.g. a published log) and which tests they were.
    grading_protocol: str | None = None
    suite_digest: str | None = None
    final_code: str | None = Field(default=None, sa_type=CleanTextColumn)
    explanation: str | None = Field(default=None, sa_type=CleanTextColumn)
    message: str | None = Field(default=None, sa_type=MessageText)
    wallclock_s: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    llm_calls: int = 0
    started_at: datetime | None = None
    finished_at: datetime | None = None


class Step(SQLModel, table=True):
    """One graph node execution inside a trial, numbered by `seq` in the order it started."""

    __tablename__ = "step"
    __table_args__ = (UniqueConstraint("trial_id", "seq", name="uq_step_trial_seq"),)

    id: int | None = Field(default=None, primary_key=True)
    trial_id: int = Field(foreign_key="trial.id")
    seq: int
    node: str
    attempt: int = 0
    started_at: datetime = Field(default_factory=utcnow)
    ended_at: datetime | None = None
    output: JsonObject | None = Field(default=None, sa_type=JSON)


class LLMCall(SQLModel, table=True):
    """One chat completion: full prompt and response, so a trial can be replayed offline."""

    __tablename__ = "llm_call"

    id: int | None = Field(default=None, primary_key=True)
    trial_id: int = Field(foreign_key="trial.id", index=True)
    step_id: int | None = Field(default=None, foreign_key="step.id", index=True)
    role: str = ""
    provider: str = ""
    model: str = ""
    messages: list[JsonObject] = Field(default_factory=list, sa_type=JSON)
    response: str = Field(default="", sa_type=CleanTextColumn)
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0
    seed: int | None = None
    temperature: float | None = None
    cache_hit: bool = False
    prompt_hash: str = ""
    created_at: datetime = Field(default_factory=utcnow)


class Execution(SQLModel, table=True):
    """One sandbox run of a candidate program against a test suite, with per-test results."""

    __tablename__ = "execution"

    id: int | None = Field(default=None, primary_key=True)
    trial_id: int = Field(foreign_key="trial.id", index=True)
    step_id: int | None = Field(default=None, foreign_key="step.id", index=True)
    purpose: str = "grading"
    code: str = Field(default="", sa_type=CleanTextColumn)
    verdict: str = ""
    tests_passed: int = 0
    tests_total: int = 0
    results: list[JsonObject] = Field(default_factory=list, sa_type=JSON)
    stdout: str = Field(default="", sa_type=CleanTextColumn)
    stderr: str = Field(default="", sa_type=CleanTextColumn)
    policy_version: str = ""
    isolation: JsonObject = Field(default_factory=dict, sa_type=JSON)
    duration_s: float = 0.0
    created_at: datetime = Field(default_factory=utcnow)


class RetrievalHit(SQLModel, table=True):
    """One technique the retriever offered the planner, with its score and rank."""

    __tablename__ = "retrieval_hit"

    id: int | None = Field(default=None, primary_key=True)
    trial_id: int = Field(foreign_key="trial.id", index=True)
    technique_id: str
    technique_name: str = ""
    score: float = 0.0
    rank: int = 0
    query: str = Field(default="", sa_type=CleanTextColumn)


class ProblemRecord(SQLModel, table=True):
    """A stored copy of a Problem, so ad-hoc and imported problems stay reviewable."""

    __tablename__ = "problem"

    benchmark: str = Field(primary_key=True)
    problem_id: str = Field(primary_key=True)
    category: str = ""
    statement: str = Field(default="", sa_type=CleanTextColumn)
    entry_point: str | None = None
    aliases: list[str] = Field(default_factory=list, sa_type=JSON)
    signature: str = Field(default="", sa_type=CleanTextColumn)
    tests: list[JsonObject] = Field(default_factory=list, sa_type=JSON)
    source: str = ""
    difficulty: str = ""
    rationale: str = Field(default="", sa_type=CleanTextColumn)
    preamble: str = Field(default="", sa_type=CleanTextColumn)
    timeout_s: float | None = None
    release_date: str = ""  # YYYY-MM-DD the problem was published ("" unknown): contamination windows read it

    @classmethod
    def from_problem(cls, problem: Problem) -> ProblemRecord:
        """The row that stores `problem`."""
        return cls(
            benchmark=problem.benchmark,
            problem_id=problem.id,
            category=problem.category,
            statement=problem.statement,
            entry_point=problem.entry_point,
            aliases=list(problem.aliases),
            signature=problem.signature,
            tests=tag_nonfinite(list(problem.tests)),
            source=problem.source,
            difficulty=problem.difficulty,
            rationale=problem.rationale,
            preamble=problem.preamble,
            timeout_s=problem.timeout_s,
            release_date=problem.release_date,
        )

    def to_problem(self) -> Problem:
        """The Problem this row stores."""
        return Problem(
            id=self.problem_id,
            benchmark=self.benchmark,
            category=self.category,
            statement=self.statement,
            entry_point=self.entry_point,
            aliases=list(self.aliases or []),
            signature=self.signature,
            tests=untag_nonfinite(list(self.tests or [])),
            source=self.source,
            difficulty=self.difficulty,
            rationale=self.rationale,
            preamble=self.preamble or "",
            timeout_s=self.timeout_s,
            release_date=self.release_date or "",
        )


class LLMCacheEntry(SQLModel, table=True):
    """A cached completion keyed by the hash of everything that determines it."""

    __tablename__ = "llm_cache"

    key: str = Field(primary_key=True)
    provider: str = ""
    model: str = ""
    response: str = Field(default="", sa_type=CleanTextColumn)
    tokens_in: int = 0
    tokens_out: int = 0
    created_at: datetime = Field(default_factory=utcnow)


class EndpointWait(SQLModel, table=True):
    """An LLM endpoint a run's trials are waiting on (it stopped answering); removed when it answers again.

    Written by whichever process runs the trials, read by `status` and the dashboard in others.
    """

    __tablename__ = "endpoint_wait"
    __table_args__ = (UniqueConstraint("run_id", "endpoint", name="uq_endpoint_wait_run_endpoint"),)

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="run.id", index=True)
    endpoint: str
    since: datetime  # when the outage started (first failed call)
    last_error: str = Field(default="", sa_type=MessageText)
    updated_at: datetime = Field(default_factory=utcnow)  # last failed call: a wait not renewed is stale


class TechniqueEdit(SQLModel, table=True):
    """One technique a user added or updated in this database's library (appended, never overwritten).

    The database's library is the shipped seed with its edits applied in id order
    (`execugraph.store.technique_library`); keeping every version means no edit is lost.
    """

    __tablename__ = "technique_edit"

    id: int | None = Field(default=None, primary_key=True)
    technique_id: str = Field(index=True)
    action: str  # add | update
    technique: JsonObject = Field(default_factory=dict, sa_type=JSON)  # the whole Technique
    created_at: datetime = Field(default_factory=utcnow)


class TechniqueLibrarySnapshot(SQLModel, table=True):
    """The exact techniques of a library some run searched, under its content digest (written once)."""

    __tablename__ = "technique_library"

    digest: str = Field(primary_key=True)  # sha256 of the canonical JSONL (retrieval.library.library_digest)
    techniques: list[JsonObject] = Field(default_factory=list, sa_type=JSON)
    size: int = 0
    created_at: datetime = Field(default_factory=utcnow)


class ModelCutoff(SQLModel, table=True):
    """A model's training cutoff (YYYY-MM-DD), edited in the dashboard: the default window of its runs' comparisons."""

    __tablename__ = "model_cutoff"

    model: str = Field(primary_key=True)  # the model spec as runs record it, e.g. ollama:qwen2.5-coder:7b
    cutoff: str
    updated_at: datetime = Field(default_factory=utcnow)


class SchemaMigration(SQLModel, table=True):
    """One applied migration; the newest name is the schema version."""

    __tablename__ = "schema_migration"

    name: str = Field(primary_key=True)
    applied_at: datetime = Field(default_factory=utcnow)


STORE_TABLES = (
    Run, Trial, Step, LLMCall, Execution, RetrievalHit, ProblemRecord, LLMCacheEntry, EndpointWait, SchemaMigration,
    TechniqueEdit, TechniqueLibrarySnapshot, ModelCutoff,
)
