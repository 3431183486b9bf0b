"""What each node writes as its step output (Step.output in the store), defined once for writers and readers.

The agents build these; the trace view, the UI's step renderer and the CLI read them. Stored
JSON is read back as written, so two rules hold for every reader: a step that raised holds
what was written before the error plus `error` (so even required keys may be missing there),
and a key marked NotRequired may be missing (written only in some cases, or absent in steps
recorded before it existed). Readers use `.get()` for that reason; the types say which keys
exist at all and what they hold.
"""

from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict

from execugraph.domain.json_types import JsonObject
from execugraph.domain.vocabulary import NODES as NODES  # re-exported: the trace and the graph read them here
from execugraph.domain.vocabulary import NodeName as NodeName

RECORD_NODE = "reference_record"  # the one step of a trial imported from a published results tree
Decision = Literal["evaluate", "retry", "revise", "optimize", "grade", "sample"]
Severity = Literal["low", "medium", "high"]


class Failed(TypedDict, total=False):
    """Every output may hold the error its node raised (`TrialContext.step` adds it before storing)."""

    error: str


class HitRow(TypedDict):
    """One retrieved technique, as the planner step and the RetrievalHit rows keep it."""

    technique_id: str
    technique_name: str
    score: float
    rank: int


class RetrievalHits(Failed, total=False):
    """Written before the planner asks its model, so a planner that fails still shows what it retrieved."""

    hits: list[HitRow]


class PlannerOutput(RetrievalHits):
    plan: str
    repairs: list[str]


class GeneratorOutput(Failed):
    code: str
    repairs: list[str]
    parsed_ok: bool  # False: no usable code in the reply (the UI then shows the reply itself)
    reason: str  # what asked for this attempt: initial | retry | revise | sample
    unchanged: NotRequired[bool]  # a retry that returned the previous attempt's program unchanged (no progress)


class Review(TypedDict):
    """The reviewer's critique as parsed (severity is always one of low/medium/high)."""

    invariants: list[str]
    potential_failures: list[str]
    severity: Severity


class ReviewerOutput(Failed):
    review: Review  # severity lives here, not at the top level
    repairs: list[str]
    gated: bool  # the review sent the code back to the generator
    parsed_ok: NotRequired[bool]  # absent in steps recorded before unparsed replies were marked


class TestWriting(Failed, total=False):
    """Written by the evaluator the one time per trial it asks its model for tests."""

    generated_tests: int  # how many tests were kept (the tests themselves live in the graph state)
    generated_dropped: int
    repairs: list[str]


class EvaluatorOutput(TestWriting):
    verdict: str
    passed: bool
    decision: Decision
    test_source: str  # problem | generated | smoke
    feedback: str  # '' unless the decision is retry
    tests_passed: int
    tests_total: int
    first_failure: JsonObject | None  # the sandbox's record of the first failing test
    no_progress: NotRequired[bool]  # the program run is a retry's unchanged copy of the previous attempt


class OptimizerOutcome(TypedDict):
    """Whether the optimizer's candidate replaced the program (also kept in the graph state)."""

    accepted: bool
    reason: str
    verdict: str | None  # None: no usable candidate, nothing was run
    candidate: NotRequired[str]  # present when a candidate was run


class OptimizerOutput(OptimizerOutcome, Failed):
    repairs: list[str]


class GradeOutput(Failed):
    passed: bool
    verdict: str
    tests_passed: int
    tests_total: int
    test_source: str
    grading_protocol: NotRequired[str]  # absent in steps recorded before grading protocols
    suite_digest: NotRequired[str]  # likewise
    protocol_note: NotRequired[str]  # when the protocol made no difference for this problem
    reused_execution: NotRequired[bool]  # the evaluator's last run was on the same program and tests
    samples_total: NotRequired[int]  # best-of-N sampling only
    samples_passed: NotRequired[int]
    time_limits: NotRequired[JsonObject]  # CPU limit per test, its floor and calibration (execugraph.grading.calibration)


class ExplainerOutput(Failed):
    explanation: str


class RecordOutput(TypedDict, total=False):
    """The step of an imported published trial: where it came from and what the record said."""

    line: int
    source: str
    model_planner: str
    model_generator: str
    passed_original: bool
    error_class_original: str
    rescore_status: str
    error_class_raw: Any
    test_source_raw: Any
    timestamp_raw: Any
    extra: JsonObject  # the record's fields this schema does not name, as read


StepOutput = (
    PlannerOutput | GeneratorOutput | ReviewerOutput | EvaluatorOutput | OptimizerOutput | GradeOutput
    | ExplainerOutput | RecordOutput
)

OUTPUT_TYPES: Mapping[str, type] = {
    "planner": PlannerOutput,
    "generator": GeneratorOutput,
    "reviewer": ReviewerOutput,
    "evaluator": EvaluatorOutput,
    "optimizer": OptimizerOutput,
    "grade": GradeOutput,
    "explainer": ExplainerOutput,
    RECORD_NODE: RecordOutput,
}


def severity_of(output: Mapping[str, Any]) -> str | None:
    """The severity a reviewer step recorded (nested under `review`), or None."""
    review = output.get("review")
    return review.get("severity") if isinstance(review, Mapping) else None


def brief(node: str, output: Mapping[str, Any]) -> dict[str, object]:
    """The few values that say how a step went (verdict, decision, passed, accepted, severity), for one CLI line."""
    found = {k: v for k, v in output.items() if k in ("verdict", "decision", "passed", "accepted")}
    if node == "reviewer" and severity_of(output) is not None:
        found["severity"] = severity_of(output)
    return found
