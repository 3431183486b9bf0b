"""Which stored amplified version grades a run: `rescore --suite amplified[:<digest>]` resolved in the store.

Why: the stronger tests live in the run's own store (`amplify` wrote them there), named
`<benchmark>+amplified:<digest[:12]>`; with several versions the caller must pick one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from execugraph.amplify.build import SUFFIX
from execugraph.domain.json_types import JsonObject

if TYPE_CHECKING:
    from execugraph.store import Store


class NoAmplifiedSuite(LookupError):
    """No amplified version of the run's benchmark is stored (one can be built: `amplify --benchmark`)."""


def _base_name(benchmark: str) -> str:
    from execugraph.benchmarks import UnknownBenchmarkError, canonical_name

    try:
        return canonical_name(benchmark)
    except UnknownBenchmarkError:
        return benchmark


def resolve_suite(store: Store, run_id: int, choice: str) -> tuple[JsonObject, str]:
    """(benchmark_file for `rescore_run`, as its config records it, its `tests` value "amplified:<digest>");
    ValueError/LookupError saying why (`NoAmplifiedSuite` when none is stored, so a caller may build one)."""
    from execugraph.store.amplified_reads import benchmarks_with_prefix

    kind, _, digest = choice.partition(":")
    if kind != "amplified":
        raise ValueError(f"--suite must be amplified or amplified:<digest>, got {choice!r}")
    run = store.get_run(run_id)
    if run is None:
        raise LookupError(f"run {run_id} does not exist")
    prefix = f"{_base_name(run.benchmark or '')}{SUFFIX}:"
    found = {name: n for name, n in benchmarks_with_prefix(store, prefix).items()
             if name[len(prefix):].startswith(digest)}
    if not found:
        raise NoAmplifiedSuite(f"no amplified version of {run.benchmark!r}{' matching ' + digest if digest else ''} in this "
                          f"store; run: python -m execugraph amplify --benchmark {_base_name(run.benchmark or '')}")
    if len(found) > 1:
        raise LookupError("several amplified versions; pick one with --suite amplified:<digest>: "
                          + ", ".join(found))
    (name, count), = found.items()
    return {"benchmark": name, "file": "amplified", "problems": count}, f"amplified:{name[len(prefix):]}"


def amplified_suites(store: Store) -> dict[str, int]:
    """Every stored amplified benchmark version (name -> problem count), for the dashboard's Tests view."""
    from execugraph.store.amplified_reads import benchmarks_with_prefix

    return {name: n for name, n in benchmarks_with_prefix(store, "").items() if f"{SUFFIX}:" in name}


def suite_problems(store: Store, name: str) -> list[Any]:
    """The stored problems of one benchmark version, by id."""
    from execugraph.store.amplified_reads import problem_ids

    ids = problem_ids(store, name)
    found = (store.get_problem(name, pid) for pid in ids)
    return [p for p in found if p is not None]
