"""Retrieval hits seen per run (which techniques the planner was offered, for which problems, how strongly)
and the technique library a run searched."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from execugraph.domain.config import TechniqueLibraryRef
from execugraph.store import trace_reads

if TYPE_CHECKING:
    from execugraph.store import Store, Trial


def trial_library(store: Store, trial: Trial) -> TechniqueLibraryRef | None:
    """The technique library the trial's condition searched, as its run recorded it (None: none recorded)."""
    run = store.get_run(trial.run_id)
    conditions = (run.config or {}).get("conditions") if run is not None else None
    config = conditions.get(trial.condition) if isinstance(conditions, dict) else None
    recorded = config.get("technique_library") if isinstance(config, dict) else None
    if not isinstance(recorded, dict):
        return None
    try:
        return TechniqueLibraryRef.model_validate(recorded)
    except ValidationError:
        return None


def library_caption(ref: TechniqueLibraryRef | None) -> str:
    """The library line shown beside retrieval hits: size, origin and full digest, or why there is none."""
    if ref is None:
        return "Technique library: not recorded (the run was made before runs recorded their library)."
    origin = ref.path if ref.source == "file" else f"shipped {ref.path}"
    if ref.source == "store":
        origin += f" + {ref.edits} edit{'s' if ref.edits != 1 else ''} kept in the database" if ref.edits else ""
    return f"Technique library: {ref.techniques} techniques ({origin}), sha256 {ref.digest}"



def hit_matrix(store: Store, run_id: int, *, max_problems: int = 80, max_techniques: int = 40) -> dict[str, Any]:
    """Mean retrieval score per (problem, technique) in a run, as a dense matrix for a heatmap.

    Techniques are ordered by how often they were retrieved, problems by id; the
    matrix is cut to the first `max_problems` x `max_techniques` (`truncated` says so).
    Cells a technique was never retrieved for are None.
    """
    cells = trace_reads.hit_cells(store, run_id)
    frequency: dict[str, int] = {}
    for _, tech, _, n in cells:
        frequency[tech] = frequency.get(tech, 0) + n
    all_problems = sorted({p for p, *_ in cells})
    all_techniques = sorted(frequency, key=lambda k: (-frequency[k], k))
    problems, techniques = all_problems[:max_problems], all_techniques[:max_techniques]
    row_of = {p: i for i, p in enumerate(problems)}
    col_of = {t: j for j, t in enumerate(techniques)}
    scores: list[list[float | None]] = [[None] * len(techniques) for _ in problems]
    for p, tech, score, _ in cells:
        if p in row_of and tech in col_of:
            scores[row_of[p]][col_of[tech]] = score
    truncated = len(all_problems) > len(problems) or len(all_techniques) > len(techniques)
    return {"problems": problems, "techniques": techniques, "scores": scores, "truncated": truncated}
