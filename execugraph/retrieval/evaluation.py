"""Recall@k of the retriever on a labelled set of problem statements.

The `multi-rag` ablation only means something if retrieval brings back the
right techniques, so quality is measured, not assumed: each statement in
data/retrieval_eval.jsonl names the technique id(s) that would be a correct
reminder, and a case counts as a hit at k when any of them is in the top k.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from execugraph.configuration.settings import DATA_DIR
from execugraph.retrieval.library import LibraryFormatError, Technique

DEFAULT_EVAL_PATH = DATA_DIR / "retrieval_eval.jsonl"


class EvalCase(BaseModel):
    """A problem statement and the technique ids that should be retrieved for it."""

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)

    id: str = Field(min_length=1)
    statement: str = Field(min_length=1)
    expected: tuple[str, ...] = Field(min_length=1)


class _Searcher(Protocol):
    def retrieve(self, text: str, k: int = ...) -> list: ...


def load_eval_set(path: Path | str | None = None, library: Iterable[Technique] | None = None) -> list[EvalCase]:
    """Read and validate the evaluation JSONL; with `library`, every expected id must exist in it."""
    path = Path(path) if path is not None else DEFAULT_EVAL_PATH
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise LibraryFormatError(path, None, None, "evaluation set not found") from None
    known = {t.id for t in library} if library is not None else None
    cases: list[EvalCase] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise LibraryFormatError(path, number, None, f"invalid JSON ({exc.msg})") from None
        if not isinstance(data, dict):
            raise LibraryFormatError(path, number, None, "expected a JSON object")
        try:
            case = EvalCase.model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err.get("loc", ())) or None
            raise LibraryFormatError(path, number, loc, err.get("msg", "invalid value")) from None
        if case.id in seen:
            raise LibraryFormatError(path, number, "id", f"duplicate id '{case.id}' (first on line {seen[case.id]})")
        seen[case.id] = number
        if known is not None:
            unknown = [e for e in case.expected if e not in known]
            if unknown:
                raise LibraryFormatError(path, number, "expected", f"unknown technique id(s): {', '.join(unknown)}")
        cases.append(case)
    if not cases:
        raise LibraryFormatError(path, None, None, "the evaluation set is empty")
    return cases


@dataclass(frozen=True)
class CaseResult:
    """What came back for one case and where the first correct technique ranked (None: not in the list)."""

    case_id: str
    expected: tuple[str, ...]
    retrieved: tuple[str, ...]
    scores: tuple[float, ...]
    first_relevant_rank: int | None

    def hit_at(self, k: int) -> bool:
        """True if a labelled technique is within the top k."""
        return self.first_relevant_rank is not None and self.first_relevant_rank <= k


@dataclass(frozen=True)
class EvalReport:
    """Recall@k for several k, plus the per-case detail behind the numbers."""

    ks: tuple[int, ...]
    cases: tuple[CaseResult, ...] = field(repr=False)

    def recall(self, k: int) -> float:
        """Fraction of cases with a labelled technique in the top k."""
        if not self.cases:
            return 0.0
        return sum(c.hit_at(k) for c in self.cases) / len(self.cases)

    def mrr(self) -> float:
        """Mean reciprocal rank of the first correct technique within the retrieved depth."""
        if not self.cases:
            return 0.0
        return sum(1 / c.first_relevant_rank for c in self.cases if c.first_relevant_rank) / len(self.cases)

    def misses(self, k: int) -> list[CaseResult]:
        """Cases with nothing correct in the top k."""
        return [c for c in self.cases if not c.hit_at(k)]

    def to_dict(self) -> dict[str, object]:
        """JSON-ready summary with per-case rows (for `--json` and the Retrieval page)."""
        return {
            "n": len(self.cases),
            "recall": {f"@{k}": round(self.recall(k), 4) for k in self.ks},
            "mrr": round(self.mrr(), 4),
            "cases": [
                {
                    "id": c.case_id,
                    "expected": list(c.expected),
                    "retrieved": list(c.retrieved),
                    "scores": [round(s, 4) for s in c.scores],
                    "first_relevant_rank": c.first_relevant_rank,
                }
                for c in self.cases
            ],
        }


def evaluate(retriever: _Searcher, cases: Sequence[EvalCase], ks: Sequence[int] = (1, 3)) -> EvalReport:
    """Run every case once at depth max(ks) and score recall at each k."""
    ks = tuple(sorted({int(k) for k in ks}))
    if not ks or ks[0] < 1:
        raise ValueError("ks must be positive integers")
    depth = ks[-1]
    results = []
    for case in cases:
        hits = retriever.retrieve(case.statement, k=depth)
        ids = tuple(h.technique.id for h in hits)
        first = next((i for i, tid in enumerate(ids, start=1) if tid in case.expected), None)
        results.append(
            CaseResult(
                case_id=case.id,
                expected=case.expected,
                retrieved=ids,
                scores=tuple(h.score for h in hits),
                first_relevant_rank=first,
            )
        )
    return EvalReport(ks=ks, cases=tuple(results))
