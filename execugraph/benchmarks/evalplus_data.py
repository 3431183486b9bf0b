"""EvalPlus's vendored release files (HumanEval+, MBPP+), read after a sha256 check so graded tests are the published ones.

The files live in data/evalplus/ (see its PROVENANCE.md). Records are returned as read, except that MBPP+
inputs are rebuilt into the Python values EvalPlus's own loader gives the function (`deserialize_mbpp_inputs`:
tuples, sets, complex numbers where the JSON can only hold lists and strings).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from execugraph.benchmarks.errors import BenchmarkError, BenchmarkUnavailableError
from execugraph.domain.json_types import JsonObject

DATA_DIR = Path(__file__).resolve().parents[2] / "data" / "evalplus"
HUMANEVAL_PLUS = "HumanEvalPlus.jsonl.gz"
MBPP_PLUS = "MbppPlus.jsonl.gz"
# file -> (sha256, record count), as PROVENANCE.md lists them
RELEASES: dict[str, tuple[str, int]] = {
    HUMANEVAL_PLUS: ("272720b90ac375502c8ed23cd791c2a93dfb22a911641a494da74a426c09f101", 164),
    MBPP_PLUS: ("af43697e8791c4c149bdfd6b489d8b5412507551ac20e28a439f650b8225db63", 378),
}
FIELDS = {
    HUMANEVAL_PLUS: ("task_id", "prompt", "entry_point", "canonical_solution", "test", "base_input", "plus_input",
                     "atol"),
    MBPP_PLUS: ("task_id", "prompt", "entry_point", "canonical_solution", "assertion", "base_input", "plus_input",
                "atol"),
}
_TASK_ID = {HUMANEVAL_PLUS: re.compile(r"^HumanEval/(\d+)$"), MBPP_PLUS: re.compile(r"^Mbpp/(\d+)$")}

# MBPP+ tasks whose JSON inputs EvalPlus turns back into Python values before calling the function
# (evalplus/data/mbpp.py, `mbpp_deserialize_inputs`, MBPP+ v0.2.0); grouped by the conversion applied.
_ARGS_TO_TUPLES = frozenset({2, 116, 132, 143, 222, 261, 273, 394, 399, 421, 424, 429, 470, 560, 579, 596, 616, 630,
                             726, 740, 744, 809})
_NESTED_TO_TUPLES = frozenset({63, 64, 70, 94, 120, 237, 272, 299, 400, 409, 417, 438, 473, 614, 780})
_FIRST_ROWS_TO_TUPLES = frozenset({75, 413, 444, 753})
_SECOND_TO_TUPLE = frozenset({106, 750})
_FIRST_TO_TUPLE = frozenset({250, 405, 446, 617, 720, 763, 808})
_NESTED_THEN_ARGS_TO_TUPLES = frozenset({259, 401, 445})
_ALL_TO_TUPLES = frozenset({580, 615, 791})


def release_path(name: str, directory: Path | None = None) -> Path:
    """The vendored file `name` (in `directory`, default data/evalplus), checked against its recorded sha256."""
    path = (directory or DATA_DIR) / name
    if name not in RELEASES:
        raise BenchmarkError(f"{name}: not an EvalPlus release file this project vendors")
    if not path.is_file():
        raise BenchmarkUnavailableError(f"{path}: missing; the EvalPlus release files ship in data/evalplus/")
    digest = file_sha256(path)
    if digest != RELEASES[name][0]:
        raise BenchmarkError(f"{path}: sha256 {digest} is not the recorded {RELEASES[name][0]} "
                             "(see data/evalplus/PROVENANCE.md); refusing to grade against a changed copy")
    return path


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes (about 2 ms for both files)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


@lru_cache(maxsize=2)
def records(name: str) -> tuple[JsonObject, ...]:
    """Every record of a release file, in task-number order, each checked for its fields (read once per process)."""
    path = release_path(name)
    out: list[JsonObject] = []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise BenchmarkError(f"{path}: line {lineno}: not JSON ({exc.msg})") from None
            missing = [f for f in FIELDS[name] if not isinstance(rec, dict) or f not in rec]
            if missing:
                raise BenchmarkError(f"{path}: line {lineno}: field {missing[0]!r} missing")
            if not _TASK_ID[name].match(str(rec["task_id"])):
                raise BenchmarkError(f"{path}: line {lineno}: field 'task_id': unexpected id {rec['task_id']!r}")
            out.append(rec)
    out.sort(key=lambda r: task_number(str(r["task_id"])))
    if len(out) != RELEASES[name][1]:
        raise BenchmarkError(f"{path}: expected {RELEASES[name][1]} tasks, found {len(out)}")
    return tuple(out)


def task_number(task_id: str) -> int:
    """`HumanEval/7` or `Mbpp/7` -> 7."""
    return int(task_id.rsplit("/", 1)[-1])


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def deserialize_mbpp_inputs(task_id: str, inputs: list[Any]) -> list[Any]:
    """The argument lists EvalPlus calls an MBPP+ function with, rebuilt from the file's JSON inputs."""
    n = task_number(task_id)
    if n in _ARGS_TO_TUPLES:
        return [[tuple(a) for a in inp] for inp in inputs]
    if n in _NESTED_TO_TUPLES:
        return [[[tuple(row) for row in a] for a in inp] for inp in inputs]
    if n in _FIRST_ROWS_TO_TUPLES:
        return [[[tuple(row) for row in inp[0]], inp[1]] for inp in inputs]
    if n in _SECOND_TO_TUPLE:
        return [[inp[0], tuple(inp[1])] for inp in inputs]
    if n == 115:  # an empty list becomes {} (a dict), as EvalPlus has it
        return [[[set(item) if isinstance(item, list) and item else {} for item in inp[0]]] for inp in inputs]
    if n == 124:
        return [(float(inp[0]), complex(inp[1])) for inp in inputs]
    if n in _FIRST_TO_TUPLE:
        return [[tuple(inp[0]), inp[1]] for inp in inputs]
    if n in _NESTED_THEN_ARGS_TO_TUPLES:
        return [[tuple(tuple(row) for row in a) for a in inp] for inp in inputs]
    if n == 278:
        return [[tuple(tuple(item) if isinstance(item, list) else item for item in inp[0])] for inp in inputs]
    if n == 307:
        return [[tuple(inp[0]), inp[1], inp[2]] for inp in inputs]
    if n == 722:
        return [[{k: tuple(v) for k, v in inp[0].items()}, *inp[1:]] for inp in inputs]
    if n == 252:
        return [[complex(inp[0])] for inp in inputs]
    if n in _ALL_TO_TUPLES:
        return [_tuples(inp) for inp in inputs]
    return inputs


def task_inputs(name: str, record: JsonObject) -> tuple[list[Any], list[Any]]:
    """(base inputs, plus inputs) of a record as the function receives them."""
    base, plus = list(record["base_input"]), list(record["plus_input"])
    if name == MBPP_PLUS:
        task_id = str(record["task_id"])
        return deserialize_mbpp_inputs(task_id, base), deserialize_mbpp_inputs(task_id, plus)
    return base, plus
