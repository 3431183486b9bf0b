"""Where a problem's reference solution comes from: a given file, the problem's own, HumanEval's canonical one,
or ours for internal-30.

Why: only a trusted program may answer new inputs. Our internal-30 references live in
data/references/ (outside data/internal30/, which the loader reads, and never part of a
prompt); `tests/amplify/test_amplify.py` checks each one passes its problem's tests.
A `--reference FILE` is JSONL (`{"id": ..., "reference": "<program>"}` per line) or JSON
(an object id -> program); it wins over every other source.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

from execugraph.configuration.settings import DATA_DIR
from execugraph.domain.problem import Problem

REFERENCES_DIR = DATA_DIR / "references"


def _is_record(value: object) -> bool:
    return isinstance(value, dict) and isinstance(value.get("id"), str) and isinstance(value.get("reference"), str)


def read_reference_file(path: Path) -> dict[str, str]:
    """id -> program from a JSONL file of {id, reference} records or a JSON object id -> program;
    raises ValueError naming the line that is wrong."""
    text = Path(path).read_text(encoding="utf-8")
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    try:
        first = json.loads(lines[0][1]) if lines else None
    except ValueError:
        first = None
    if not _is_record(first):
        data = json.loads(text)
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise ValueError(f"{path}: expected JSONL of {{\"id\", \"reference\"}} records or a JSON object "
                             "mapping problem ids to programs")
        return {str(k): v for k, v in data.items()}
    out: dict[str, str] = {}
    for number, line in lines:
        record = json.loads(line)
        if not _is_record(record):
            raise ValueError(f"{path}:{number}: expected {{\"id\": ..., \"reference\": \"<program>\"}}")
        out[record["id"]] = record["reference"]
    return out


@lru_cache(maxsize=8)
def _bundled(benchmark: str) -> dict[str, str]:
    path = REFERENCES_DIR / f"{benchmark}.jsonl"
    return read_reference_file(path) if path.is_file() else {}


def reference_for(problem: Problem, given: dict[str, str] | None = None) -> str | None:
    """The reference program for `problem`, or None (then only differential checks are possible)."""
    if given and problem.id in given:
        return given[problem.id]
    from execugraph.grading.calibration import reference_program

    own = reference_program(problem)
    if own:
        return own
    return _bundled(problem.benchmark).get(problem.id)


def reference_digest(programs: dict[str, str]) -> str:
    """SHA-256 over the references used (id -> program), recorded in the provenance."""
    text = json.dumps(programs, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
