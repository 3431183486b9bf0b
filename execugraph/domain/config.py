"""RunConfig: everything that defines one experimental condition, parsed once with types."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from execugraph.domain.vocabulary import EMBEDDED_MODEL as EMBEDDED_MODEL  # written in the light vocabulary (settings)
from execugraph.domain.vocabulary import ROLES as ROLES  # re-exported: the forms and drivers read them here
from execugraph.domain.vocabulary import FeedbackSource as FeedbackSource
from execugraph.domain.vocabulary import GradingProtocol as GradingProtocol
from execugraph.domain.vocabulary import Role as Role

# The explainer writes prose for people, and small models loop: its replies are capped and, where the
# provider supports it (llama.cpp, Ollama), repetition is penalised.
EXPLAINER_MAX_TOKENS = 320
EXPLAINER_REPEAT_PENALTY = 1.15


class TechniqueLibraryRef(BaseModel):
    """Which technique library a retrieving condition searched: its content digest, size and origin.

    `digest` is the sha256 of the canonical JSONL of the techniques in order
    (`execugraph.retrieval.library.library_digest`); the store keeps those
    techniques under it, so the run can be searched again exactly.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    digest: str = Field(pattern=r"^[0-9a-f]{64}$")
    techniques: int = Field(ge=1)
    source: Literal["store", "file"] = "store"  # store: the shipped seed plus this database's edits
    path: str = ""  # the seed (source store) or the whole-library file (source file)
    edits: int = Field(default=0, ge=0)  # the database's edits applied on top of the seed

    def describe(self) -> str:
        """One line for people: size, short digest and where the techniques came from."""
        origin = self.path or "?"
        if self.source == "store":
            origin += f" + {self.edits} edit{'s' if self.edits != 1 else ''} in the database" if self.edits else ""
        return f"{self.techniques} techniques, sha256 {self.digest[:12]} ({origin})"


class RunConfig(BaseModel):
    """One condition's full configuration; stored verbatim with every run so it can be rerun."""

    model_config = ConfigDict(extra="forbid")

    condition: str = "multi-full"
    mode: Literal["single", "multi"] = "multi"
    planner: bool = True
    reviewer: bool = True
    optimizer: bool = True
    explainer: bool = True
    retrieval: bool = False
    retrieval_k: int = Field(default=3, ge=1, le=20)
    retry_budget: int = Field(default=3, ge=0, le=50)
    reviewer_gates: bool = False
    best_of_n: int = Field(default=1, ge=1, le=100)
    feedback_tests: FeedbackSource = "grading"
    grading_protocol: GradingProtocol = "standalone"
    models: dict[str, str] = Field(default_factory=dict)
    default_model: str = EMBEDDED_MODEL
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    seed: int = 0
    max_tokens: int = Field(default=768, ge=16, le=32768)
    # Read timeout of one LLM call: long enough for a server to load a large model cold (a timeout is retried).
    llm_timeout_s: float = Field(default=900.0, gt=0, le=86400)
    # How long an endpoint may stay unreachable (errors waited out with backoff) before its trials end.
    outage_budget_s: float = Field(default=600.0, ge=0, le=7 * 86400)
    # CPU seconds per test before calibration (the sandbox's wall-clock backstop is 10x + 10 s; see README).
    test_timeout_s: float = Field(default=5.0, gt=0, le=600)
    memory_mb: int = Field(default=512, ge=32, le=65536)
    cache: bool | None = None
    # The library a retrieving condition searches, pinned when its run is created (None: not retrieving).
    technique_library: TechniqueLibraryRef | None = None
    # An external loop a plugin registered (`register_loops`): it writes the program, our sandbox grades it.
    loop: str | None = None
    # Extra agent nodes a plugin registered (`register_agents`) that this condition runs, each after its node.
    nodes: list[str] = Field(default_factory=list)

    @field_validator("models")
    @classmethod
    def _known_roles(cls, value: dict[str, str]) -> dict[str, str]:
        unknown = sorted(set(value) - set(ROLES))
        if unknown:
            raise ValueError(f"unknown role(s) in models: {', '.join(unknown)}; roles are {', '.join(ROLES)}")
        return value

    @model_validator(mode="after")
    def _single_has_no_agents(self) -> RunConfig:
        if self.mode == "single" and (self.planner or self.reviewer or self.optimizer or self.retrieval):
            raise ValueError("mode 'single' cannot enable planner, reviewer, optimizer or retrieval")
        if self.retrieval and not self.planner:
            raise ValueError("retrieval feeds the planner, so it needs planner=true")
        return self

    def decoding_for(self, role: str) -> tuple[int, float | None]:
        """(max tokens, repetition penalty or None) for one role's calls."""
        if role == "explainer":
            return min(self.max_tokens, EXPLAINER_MAX_TOKENS), EXPLAINER_REPEAT_PENALTY
        return self.max_tokens, None

    def model_for(self, role: str) -> str:
        """The provider spec for a role (falls back to the default model)."""
        return self.models.get(role) or self.default_model

    @classmethod
    def from_stored(cls, data: Mapping[str, Any]) -> tuple[RunConfig, list[str]]:
        """A config as stored with a run (perhaps by an older version, or imported), and what was not kept.

        Keys this version does not know are dropped and fields whose stored value no longer validates
        fall back to their defaults; each is named in the notes, so a caller can say so (nothing is
        changed silently). A record that is not a mapping raises ValueError.
        """
        if not isinstance(data, Mapping):
            raise ValueError(f"a stored run config must be an object, got {type(data).__name__}")
        notes = [f"unknown field {key!r} dropped" for key in data if key not in cls.model_fields]
        values = {k: v for k, v in data.items() if k in cls.model_fields}
        try:
            return cls.model_validate(values), notes
        except ValidationError as exc:
            bad = {str(err["loc"][0]) for err in exc.errors() if err.get("loc")}
            if not bad:  # the fields disagree with each other: no default can be picked for one of them
                raise ValueError(f"stored run config is not valid: {exc.errors()[0]['msg']}") from None
            kept = {k: v for k, v in values.items() if k not in bad}
            notes += [f"field {name!r}: stored value {values[name]!r} is not valid here, default used"
                      for name in sorted(bad) if name in values]
            return cls.model_validate(kept), notes

    @property
    def cache_enabled(self) -> bool:
        """Cache responses by default only when they are reproducible (greedy decoding)."""
        return self.temperature == 0.0 if self.cache is None else self.cache
