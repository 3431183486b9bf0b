"""Expected outputs of HumanEval+/MBPP+ inputs: each canonical solution run once in our sandbox, cached by digest.

EvalPlus does not publish expected outputs; its evaluator computes them by calling the canonical solution on
every input (`get_groundtruth`). We do the same inside the sandbox (never in this process), one stdio job per
task whose driver prints each output in the sandbox codec's tagged JSON, and keep the result under
`settings.cache_dir/evalplus/<digest>.json`, keyed by (release file sha256, task id, canonical solution,
sandbox policy, driver version), so a changed file, solution or sandbox computes afresh.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from execugraph.benchmarks.errors import BenchmarkError
from execugraph.domain.json_types import JsonObject

DRIVER_VERSION = "2"
MBPP_OUTPUT_NOT_NONE = ("check_str", "text_match_three", "text_starta_endb")  # EvalPlus keeps only `out is not None`
COMPUTE_CPU_S = 120.0  # CPU seconds per task for the canonical solution on all its inputs
FOLD_CHARS = 20_000  # an output whose text is longer travels and is kept as its digest
DIGEST_TAG = "__evalplus_digest__"
# Shared by the driver (on the reference's outputs) and the plus tests' judge (on the program's): a long string,
# or a long list/tuple of plain values (str, int, float, bool, None, nested lists/tuples), becomes
# (DIGEST_TAG, type name, sha256 of its text), so huge outputs (HumanEval/15, Mbpp/630) stay small.
FOLD_SOURCE = '''
import hashlib as _eg_hashlib


def _eg_plain(v, depth=0):
    t = type(v)
    if v is None or t is str or t is int or t is float or t is bool:
        return True
    if (t is list or t is tuple) and depth < 50:
        return all(_eg_plain(x, depth + 1) for x in v)
    return False


def _eg_fold(v, force=False):
    t = type(v)
    if t is str and (force or len(v) > @CHARS@):
        return ("@TAG@", "str", _eg_hashlib.sha256(v.encode("utf-8", "surrogatepass")).hexdigest())
    if (t is list or t is tuple) and (force or len(v) > 8) and _eg_plain(v):
        text = repr(v)
        if force or len(text) > @CHARS@:
            return ("@TAG@", t.__name__, _eg_hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest())
    return v
'''.replace("@CHARS@", str(FOLD_CHARS)).replace("@TAG@", DIGEST_TAG)

_DRIVER = FOLD_SOURCE.replace("%", "%%") + """

def __eg_outputs(inputs):
    return [_eg_fold(%(wrap)s) for args in inputs]
"""


# -- Python source for values ------------------------------------------------------


def to_source(value: Any) -> str:
    """A Python expression that rebuilds `value` (plain data: numbers, strings, bytes, containers)."""
    t = type(value)
    if value is None or t is bool or t is str or t is bytes:
        return repr(value)
    if t is int:
        return repr(value) if value.bit_length() <= 10000 else (("-" if value < 0 else "") + hex(abs(value)))
    if t is float:
        if math.isnan(value):
            return "float('nan')"
        if math.isinf(value):
            return "float('inf')" if value > 0 else "float('-inf')"
        return repr(value)
    if t is complex:
        return f"complex({to_source(value.real)}, {to_source(value.imag)})"
    if t is list:
        return "[" + ", ".join(to_source(v) for v in value) + "]"
    if t is tuple:
        inner = ", ".join(to_source(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if t is set:
        return "{" + ", ".join(to_source(v) for v in value) + "}" if value else "set()"
    if t is frozenset:
        return "frozenset([" + ", ".join(to_source(v) for v in value) + "])"
    if t is dict:
        return "{" + ", ".join(f"{to_source(k)}: {to_source(v)}" for k, v in value.items()) + "}"
    raise BenchmarkError(f"cannot write a {t.__name__} as test data")


# -- the cache ---------------------------------------------------------------------------


def expected_digest(file_sha256: str, task_id: str, canonical: str, entry_point: str) -> str:
    """The cache key of a task's expected outputs."""
    from sandbox import POLICY_VERSION

    text = json.dumps([file_sha256, task_id, canonical, entry_point, POLICY_VERSION, DRIVER_VERSION])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cache_dir() -> Path:
    """Where expected outputs are kept: `<settings.cache_dir>/evalplus` (EXECUGRAPH_CACHE_DIR)."""
    from execugraph.configuration.settings import load_settings

    return Path(load_settings().cache_dir) / "evalplus"


def read_cached(digest: str) -> dict[str, list[Any]] | None:
    """The cached {"base": [...], "plus": [...]} outputs (decoded Python values), or None."""
    from sandbox import codec

    path = cache_dir() / f"{digest}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {"base": codec.decode(data["base"]), "plus": codec.decode(data["plus"])}
    except (OSError, ValueError, KeyError, TypeError):
        return None  # missing or damaged: computed again


def _write_cached(digest: str, encoded: JsonObject) -> None:
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{digest}.tmp"
    tmp.write_text(json.dumps(encoded), encoding="utf-8")
    tmp.replace(folder / f"{digest}.json")


# -- computing -----------------------------------------------------------------------------


class Task:
    """What computing one task's expected outputs needs (a plain holder, built by the loader)."""

    def __init__(self, task_id: str, program: str, entry_point: str, base: Sequence[Any], plus: Sequence[Any],
                 digest: str) -> None:
        self.task_id, self.program, self.entry_point = task_id, program, entry_point
        self.base, self.plus, self.digest = list(base), list(plus), digest


def _job(task: Task) -> tuple[str, JsonObject, Any]:
    from sandbox import Limits

    call = f"{task.entry_point}(*args)"
    wrap = f"({call}) is not None" if task.entry_point in MBPP_OUTPUT_NOT_NONE else call
    tests = [{"kind": "call", "name": name, "expr": f"__eg_outputs({to_source(inputs)})", "expected": None,
              "keep_result": True} for name, inputs in (("base", task.base), ("plus", task.plus))]
    limits = Limits(timeout_s=COMPUTE_CPU_S, memory_mb=4096, result_bytes=64 * 1024 * 1024)  # EvalPlus: 4 GB
    return task.program + _DRIVER % {"wrap": wrap}, {"entry_point": None, "tests": tests}, limits


def compute(tasks: Iterable[Task], pool: Any | None = None) -> dict[str, dict[str, list[Any]]]:
    """{task id: {"base": outputs, "plus": outputs}}: cached ones read, the others run in the sandbox and cached.

    A canonical solution that fails on one of its own inputs is the release's fault, not a verdict: it raises
    BenchmarkError naming the task.
    """
    from sandbox import SandboxPool, codec

    out: dict[str, dict[str, list[Any]]] = {}
    todo: list[Task] = []
    for task in tasks:
        cached = read_cached(task.digest)
        if cached is not None:
            out[task.task_id] = cached
        else:
            todo.append(task)
    if not todo:
        return out
    own = pool is None
    runner = SandboxPool() if own else pool
    try:
        results = runner.run_many([_job(t) for t in todo])
    finally:
        if own:
            runner.close()
    for task, result in zip(todo, results, strict=True):
        encoded: JsonObject = {}
        by_name = {t.name: t for t in result.tests}
        for key in ("base", "plus"):
            test = by_name.get(key)
            if test is None or test.result is None:
                why = f"{test.verdict}: {test.got[:300]}" if test is not None else f"{result.verdict}: {result.error}"
                raise BenchmarkError(f"{task.task_id}: the canonical solution gave no outputs for its {key} inputs "
                                     f"in the sandbox ({why})")
            try:
                decoded = codec.decode(test.result)
            except codec.CodecError as exc:
                raise BenchmarkError(f"{task.task_id}: unreadable canonical outputs for its {key} inputs ({exc})") \
                    from None
            want = len(task.base if key == "base" else task.plus)
            if not isinstance(decoded, list) or len(decoded) != want:
                raise BenchmarkError(f"{task.task_id}: {key}: expected {want} canonical outputs")
            encoded[key] = test.result
        _write_cached(task.digest, encoded)
        out[task.task_id] = {"base": codec.decode(encoded["base"]), "plus": codec.decode(encoded["plus"])}
    return out


def timed(fn: Any, *args: Any) -> tuple[Any, float]:
    """(fn(*args), wall seconds): for the warm command's report."""
    start = time.perf_counter()
    value = fn(*args)
    return value, time.perf_counter() - start
