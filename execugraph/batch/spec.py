"""BatchSpec: what a user asks for when launching a comparison grid, validated and expanded."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from execugraph.batch.matched_budget_spec import MatchedBudgetPlan
from execugraph.configuration.conditions import resolve_condition
from execugraph.configuration.settings import EMBEDDED_MODEL
from execugraph.domain.config import FeedbackSource, GradingProtocol, RunConfig, TechniqueLibraryRef
from execugraph.domain.json_types import JsonObject
from execugraph.domain.vocabulary import TrialOrder
from execugraph.sequential.design import SequentialDesign

if TYPE_CHECKING:
    from execugraph.domain.problem import Problem
    from execugraph.store import Run

DEFAULT_OUTAGE_BUDGET_S = RunConfig.model_fields["outage_budget_s"].default
DEFAULT_LLM_TIMEOUT_S = RunConfig.model_fields["llm_timeout_s"].default
ENDPOINT_KINDS = ("ollama", "openai")
# TrialOrder: paired (problem by problem in a seeded random order, every arm of a problem before the next, so
# the finished part of a batch is always a paired sample) or condition-major (every trial of one condition first)


def parse_endpoint(text: str) -> tuple[str, str]:
    """`http://h:11434` -> ("ollama", url); `http://h:8000/v1` -> ("openai", url); `openai=URL` / `ollama=URL` say so.

    A bare URL whose path ends in /v1 is an OpenAI-compatible server (vLLM, llama.cpp, LM Studio,
    Ollama's /v1), anything else an Ollama server; `host:port` gets http://.
    """
    from execugraph.configuration.settings import normalise_host

    raw = text.strip()
    kind, sep, rest = raw.partition("=")
    if sep and kind.strip() in ENDPOINT_KINDS:
        kind, raw = kind.strip(), rest.strip()
    else:
        kind = ""
    url = normalise_host(raw) if raw else ""
    scheme, _, where = url.partition("://")
    if scheme not in ("http", "https") or not where or " " in where:
        raise ValueError(f"bad endpoint {text!r}: use http://HOST:PORT (Ollama) or http://HOST:PORT/v1 (OpenAI-compatible)")
    if not kind:
        kind = "openai" if url.endswith("/v1") else "ollama"
    return kind, url


MAX_SEEDS = 1_000  # per batch: far beyond any published grid, small enough to hold and show
MAX_TRIALS = 100_000  # per batch: about 70 days of multi-agent trials at a minute each


def parse_seeds(text: str) -> list[int]:
    """`0-4`, `1,3,7` or `0-2,9` -> sorted unique ints; a clear ValueError otherwise.

    The count is checked against MAX_SEEDS before any range is expanded, so `0-20000000` costs nothing.
    """
    ranges: list[tuple[int, int]] = []
    for part in (p.strip() for p in str(text).split(",")):
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        try:
            a, b = (int(lo), int(hi)) if sep else (int(part), int(part))
            if b < a:
                raise ValueError
        except ValueError:
            raise ValueError(f"bad seed range {part!r}: use N, A-B or a comma list such as 0-4,9") from None
        if b - a + 1 > MAX_SEEDS or sum(y - x + 1 for x, y in ranges) + (b - a + 1) > MAX_SEEDS:
            raise ValueError(f"seeds {text!r} name more than {MAX_SEEDS:,} seeds, the most one batch may have")
        ranges.append((a, b))
    if not ranges:
        raise ValueError("no seeds given: use e.g. 0 or 0-4")
    return sorted({seed for a, b in ranges for seed in range(a, b + 1)})


def check_grid(problems: int, conditions: int, seeds: int, trials: int) -> int:
    """The grid's number of trials; ValueError naming the sizes when it is over MAX_TRIALS."""
    total = problems * conditions * seeds * trials
    if total > MAX_TRIALS:
        raise ValueError(
            f"{problems:,} problems x {conditions:,} conditions x {seeds:,} seeds x {trials:,} trials = {total:,} "
            f"trials, more than the {MAX_TRIALS:,} one batch may hold; split it into several batches"
        )
    return total


class TrialKey(TypedDict):
    """One cell of a batch grid, as `Store.ensure_trials` queues it (a trial row's key columns)."""

    problem_id: str  # the problem the trial solves
    category: str  # the problem's category
    benchmark: str  # the benchmark the problem belongs to
    condition: str  # the named condition (arm) it runs under
    seed: int  # the batch seed
    trial_index: int  # 0-based repeat within (problem, condition, seed)
    feedback_source: str  # which tests the loop sees (`BatchSpec.feedback_tests`)


class BatchSpec(BaseModel):
    """A grid of problems x conditions x seeds x trials; stored verbatim as the batch Run's config."""

    model_config = ConfigDict(extra="forbid")

    benchmark: str = "internal30"
    benchmark_options: JsonObject = Field(default_factory=dict)  # e.g. {"path": ...} for user suites
    problem_ids: list[str] = Field(default_factory=list)  # explicit subset; empty = all
    categories: list[str] = Field(default_factory=list)  # category filter; empty = all
    subset: int | None = Field(default=None, ge=1)  # n problems chosen by subset_seed
    subset_seed: int = 0
    conditions: list[str] = Field(default_factory=lambda: ["single-oneshot", "single-retry", "multi-full"])
    seeds: list[int] = Field(default_factory=lambda: [0])
    trials: int = Field(default=1, ge=1, le=100)
    models: dict[str, str] = Field(default_factory=dict)
    default_model: str = EMBEDDED_MODEL
    # Model axis (two or more): label -> model spec; every condition runs on each, as arm `<condition>@<label>`
    # (execugraph.configuration.model_axis). Empty: one model, `default_model`, and arms named as the conditions.
    model_axis: dict[str, str] = Field(default_factory=dict)
    # Training cutoffs, model spec -> YYYY-MM-DD (`--cutoff MODEL=DATE`): kept so `stats` shows each comparison
    # also on the problems released after the later cutoff of its two models (execugraph.verdicts.windows)
    model_cutoffs: dict[str, str] = Field(default_factory=dict)
    # Release window (`--released-after/--released-before`, YYYY-MM-DD, strict): only the problems released in it
    # run; undated problems are left out and counted (execugraph.batch.release_window)
    released_after: str | None = None
    released_before: str | None = None
    concurrency: int = Field(default=1, ge=1, le=64)
    feedback_tests: FeedbackSource = "grading"
    grading_protocol: GradingProtocol = "standalone"  # how programs meet the tests (execugraph.grading.rules)
    executor: str = "local"
    # Scale-out (executor "ray" only; see docs/scale-out.md)
    ray_address: str | None = None  # None: RAY_ADDRESS, a cluster started on this machine, or a new local one
    ray_workers: int | None = Field(default=None, ge=1, le=1024)  # trial-running actors; None: one per node
    ollama_hosts: list[str] = Field(default_factory=list)  # Ollama endpoints to balance over (older name)
    # LLM servers to balance over, Ollama or OpenAI-compatible (see parse_endpoint); empty: OLLAMA_HOST or
    # EXECUGRAPH_OPENAI_BASE_URL, whichever the batch's models use
    endpoints: list[str] = Field(default_factory=list)
    endpoint_concurrency: int | None = Field(default=None, ge=1, le=256)  # trials in flight per endpoint
    # Endpoint faults: how long an LLM endpoint may stay unreachable before its trials end, and the read
    # timeout of one call (both copied into every condition's RunConfig)
    outage_budget_s: float = Field(default=DEFAULT_OUTAGE_BUDGET_S, ge=0, le=7 * 86400)
    llm_timeout_s: float = Field(default=DEFAULT_LLM_TIMEOUT_S, gt=0, le=86400)
    overrides: JsonObject = Field(default_factory=dict)  # extra RunConfig fields for every condition
    # The technique library every retrieving condition searches: pinned when the batch is queued
    technique_library: TechniqueLibraryRef | None = None
    title: str = ""
    # The order trials are queued (and so claimed) in; see `trial_order`. order_seed None: the first seed
    order: TrialOrder = "paired"
    order_seed: int | None = None
    # Sequential (opt-in): interim looks that stop each comparison once it is decided (execugraph.sequential)
    sequential: SequentialDesign | None = None
    # Matched budget (opt-in, `--match-budget`): extra seeds of a cheaper arm, planned from stored costs
    matched_budget: MatchedBudgetPlan | None = None

    @field_validator("conditions")
    @classmethod
    def _conditions_exist(cls, value: list[str]) -> list[str]:
        if not value:
            raise ValueError("at least one condition is needed")
        for name in value:
            resolve_condition(name)  # raises a clear UnknownConditionName
        return value

    @field_validator("model_cutoffs")
    @classmethod
    def _cutoffs_are_dates(cls, value: dict[str, str]) -> dict[str, str]:
        from execugraph.verdicts.windows import parse_date

        return {m: parse_date(d, f"model_cutoffs[{m!r}]") for m, d in value.items()}

    @field_validator("released_after", "released_before")
    @classmethod
    def _window_dates(cls, value: str | None, info: ValidationInfo) -> str | None:
        from execugraph.verdicts.windows import parse_date

        return None if value is None else parse_date(value, info.field_name or "released")

    @model_validator(mode="after")
    def _window_not_empty(self) -> BatchSpec:
        from execugraph.verdicts.windows import Window

        Window(self.released_after, self.released_before)  # raises on an empty window
        return self

    @field_validator("model_axis")
    @classmethod
    def _axis_models(cls, value: dict[str, str]) -> dict[str, str]:
        from execugraph.configuration.model_axis import check_axis

        if len(value) == 1:
            raise ValueError("a model axis needs at least two models (one model is default_model)")
        return check_axis(value)

    @property
    def arms(self) -> list[str]:
        """The arms every problem runs under: the conditions, or each condition on each model of the axis."""
        from execugraph.configuration.model_axis import arm_name

        if not self.model_axis:
            return list(self.conditions)
        return [arm_name(c, label) for label in self.model_axis for c in self.conditions]

    @field_validator("seeds")
    @classmethod
    def _seeds_capped(cls, value: list[int]) -> list[int]:
        if not value:
            raise ValueError("at least one seed is needed")
        if len(value) > MAX_SEEDS:
            raise ValueError(f"{len(value):,} seeds; one batch may have at most {MAX_SEEDS:,}")
        return value

    @field_validator("executor")
    @classmethod
    def _known_executor(cls, value: str) -> str:
        if value not in ("local", "ray"):
            raise ValueError(f"unknown executor {value!r}; use local or ray")
        return value

    @field_validator("ollama_hosts")
    @classmethod
    def _hosts_are_urls(cls, value: list[str]) -> list[str]:
        from execugraph.configuration.settings import normalise_host

        hosts: list[str] = []
        for raw in value:
            host = normalise_host(str(raw)) if str(raw).strip() else ""
            scheme, _, rest = host.partition("://")
            if scheme not in ("http", "https") or not rest or " " in rest:
                raise ValueError(f"bad Ollama host {raw!r}: use http://HOST:PORT")
            if host in hosts:
                raise ValueError(f"Ollama host {host} is listed twice")
            hosts.append(host)
        return hosts

    @field_validator("endpoints")
    @classmethod
    def _endpoints_are_urls(cls, value: list[str]) -> list[str]:
        seen: list[str] = []
        for raw in value:
            kind, url = parse_endpoint(str(raw))
            entry = f"{kind}={url}"
            if entry in seen:
                raise ValueError(f"endpoint {url} is listed twice")
            seen.append(entry)
        return seen

    def endpoint_list(self) -> list[tuple[str, str]]:
        """(kind, url) of every endpoint to balance over, `ollama_hosts` included; kind is ollama or openai."""
        return [("ollama", h) for h in self.ollama_hosts] + [parse_endpoint(e) for e in self.endpoints]

    @model_validator(mode="after")
    def _one_kind_of_endpoint(self) -> BatchSpec:
        kinds = {kind for kind, _ in self.endpoint_list()}
        if len(kinds) > 1:
            raise ValueError("endpoints mix Ollama and OpenAI-compatible servers; list servers of one kind")
        urls = [url for _, url in self.endpoint_list()]
        if len(set(urls)) != len(urls):
            raise ValueError("an endpoint is listed both in ollama_hosts and in endpoints")
        return self

    @model_validator(mode="after")
    def _scale_out_needs_ray(self) -> BatchSpec:
        used = [name for name, value in (("ray_address", self.ray_address), ("ray_workers", self.ray_workers),
                                         ("ollama_hosts", self.ollama_hosts), ("endpoints", self.endpoints),
                                         ("endpoint_concurrency", self.endpoint_concurrency)) if value]
        if used and self.executor != "ray":
            raise ValueError(f"{', '.join(used)} only apply to executor 'ray' (got executor {self.executor!r})")
        return self

    @model_validator(mode="after")
    def _sequential_is_paired(self) -> BatchSpec:
        if self.sequential is None:
            return self
        if self.order != "paired":
            raise ValueError("a sequential batch runs in paired order (got order 'condition-major')")
        if len(self.arms) < 2:
            raise ValueError("a sequential batch compares conditions: list at least two")
        if self.sequential.baseline and self.sequential.baseline not in self.arms:
            raise ValueError(f"sequential baseline {self.sequential.baseline!r} is not one of the batch's conditions "
                             f"({', '.join(self.arms)})")
        return self

    @model_validator(mode="after")
    def _matched_budget_arms(self) -> BatchSpec:
        if self.matched_budget is None:
            return self
        from execugraph.batch.matched_budget_spec import check_plan

        check_plan(self.matched_budget, self.arms)
        if self.sequential is not None:
            raise ValueError("match_budget: a sequential batch stops arms early, so it cannot plan a matched budget")
        return self

    def seeds_of(self, arm: str) -> list[int]:
        """The seeds one arm runs: the batch's, and for a matched budget's cheaper arm its extra ones."""
        plan = self.matched_budget
        return self.seeds + plan.extra_seeds if plan is not None and arm == plan.cheap else list(self.seeds)

    def run_config(self, condition: str) -> RunConfig:
        """The exact RunConfig of one condition (an arm `<condition>@<label>` with a model axis) in this batch."""
        faults = {"outage_budget_s": self.outage_budget_s, "llm_timeout_s": self.llm_timeout_s}
        if self.model_axis:
            from execugraph.configuration.model_axis import split_arm

            loop, label = split_arm(condition)
            if label not in self.model_axis:
                raise ValueError(f"arm {condition!r} names no model of this batch's axis ({', '.join(self.model_axis)})")
            arm = self.model_copy(update={"model_axis": {}, "default_model": self.model_axis[label]})
            return arm.run_config(loop).model_copy(update={"condition": condition})
        config = resolve_condition(
            condition,
            models=self.models,
            default_model=self.default_model,
            feedback_tests=self.feedback_tests,
            grading_protocol=self.grading_protocol,
            **(faults | self.overrides),
        )
        if config.retrieval and self.technique_library is not None:
            config = config.model_copy(update={"technique_library": self.technique_library})
        return config

    def select(self, problems: list[Problem]) -> list[Problem]:
        """Apply the id list, category filter, release window and seeded subset, in that order."""
        from execugraph.batch.release_window import in_window
        from execugraph.benchmarks import select_problems

        try:
            chosen = select_problems(problems, ids=self.problem_ids or None, categories=self.categories or None)
        except KeyError as exc:
            raise ValueError(f"{self.benchmark}: {exc.args[0]}") from None
        chosen = in_window(chosen, self.released_after, self.released_before, self.benchmark)
        chosen = select_problems(chosen, n=self.subset, seed=self.subset_seed)
        if not chosen:
            raise ValueError("the filters leave no problems to run")
        return chosen

    def resolved_order_seed(self) -> int:
        """The seed that shuffles the problems: `order_seed`, else the batch's first seed."""
        return self.seeds[0] if self.order_seed is None else self.order_seed

    def problem_order(self, problems: list[Problem]) -> list[Problem]:
        """The problems in the order they run: shuffled by the order seed (paired), or as given."""
        if self.order == "condition-major":
            return list(problems)
        from execugraph.batch.order import shuffled

        return shuffled(problems, self.resolved_order_seed())

    def trial_keys(self, problems: list[Problem]) -> list[TrialKey]:
        """Every (problem, condition, seed, trial) of the grid, in the order they are to run.

        Paired: problem by problem (in `problem_order`), every arm of a problem together, the
        conditions of one seed and trial side by side in the order listed; condition-major: one
        condition after another.
        """
        def key(p: Problem, c: str, s: int, t: int) -> TrialKey:
            return {"problem_id": p.id, "category": p.category, "benchmark": p.benchmark,
                    "condition": c, "seed": s, "trial_index": t, "feedback_source": self.feedback_tests}

        if self.order == "condition-major":
            return [key(p, c, s, t) for c in self.arms for s in self.seeds_of(c) for p in problems
                    for t in range(self.trials)]
        extra = self.matched_budget.extra_seeds if self.matched_budget is not None else []
        return [key(p, c, s, t) for p in self.problem_order(problems)
                for s, arms in [(s, self.arms) for s in self.seeds] + [(s, [self.matched_budget.cheap]) for s in extra]
                for t in range(self.trials) for c in arms]


def batch_spec_of(run: Run) -> BatchSpec:
    """The BatchSpec a stored batch run was launched with.

    Runs stored before trial orders existed were queued condition by condition, and say so; sequential plans
    stored before rules had names used `obf-mdd`, and keep it.
    """
    stored = dict(run.config["batch"])
    stored.setdefault("order", "condition-major")
    if isinstance(stored.get("sequential"), dict) and "rule" not in stored["sequential"]:
        stored["sequential"] = stored["sequential"] | {"rule": "obf-mdd"}  # planned before rules had names
    return BatchSpec(**stored)


def condition_configs(run: Run | None, spec: BatchSpec) -> dict[str, RunConfig]:
    """Each condition's RunConfig as stored when the batch was queued: what runs is what was recorded.

    Code that changed while the batch waited (a condition's defaults, say) does not change what it
    runs. Runs queued before configs were stored per condition take them from the spec; a stored
    config this version cannot read exactly is read tolerantly and the differences are logged.
    """
    import logging

    stored = (getattr(run, "config", None) or {}).get("conditions") or {}
    configs: dict[str, RunConfig] = {}
    for condition in spec.arms:
        if condition not in stored:
            configs[condition] = spec.run_config(condition)
            continue
        configs[condition], notes = RunConfig.from_stored(stored[condition])
        for note in notes:
            logging.getLogger("execugraph.batch").warning("run %s, condition %s: %s", getattr(run, "id", "?"),
                                                          condition, note)
    return configs
