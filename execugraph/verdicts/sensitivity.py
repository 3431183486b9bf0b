"""Protocol sensitivity: does the family shown say the same under every verdict set?

The family is the one the paired table shows (the same `Family`: baseline, comparable
pairs only), so the "as run" column repeats the paired table's p and Holm p exactly and
the other sets differ only by their verdicts. A run is graded under one protocol;
rescoring it under the other (`rescore --grading-protocol`) makes a child run, merged
in trial by trial (`verdicts.verdict_sets.store_verdict_sets`). The numbers and the
conclusion rule come from `verdicts.compare`. When a counterpart is missing it says
which rescore to run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from execugraph.domain.json_types import JsonObject
from execugraph.grading.rules import PROTOCOLS
from execugraph.stats.bootstrap import DEFAULT_BOOTSTRAP, DEFAULT_SEED
from execugraph.stats.family import Family
from execugraph.stats.sensitivity_sections import (
    ChangedProgram,
    ProtocolSensitivity,
    RescoreNeeded,
    SensitivityPair,
    SideBySide,
)
from execugraph.store import run_reads
from execugraph.verdicts.compare import compare_verdict_sets, runs_meta
from execugraph.verdicts.verdict_sets import (
    AS_RUN,
    changed_programs,
    protocols_can_differ,
    store_verdict_sets,
)

if TYPE_CHECKING:
    from execugraph.store import Store


def protocol_sensitivity(
    store: Store,
    run_ids: Sequence[str | int],
    conditions: Sequence[str] | None = None,
    *,
    family: Family | None = None,
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
    renumber: Mapping[int, int] | None = None,
    meta: Mapping[str, Mapping[str, Any]] | None = None,
) -> ProtocolSensitivity:
    """Each comparison of `family` (default: all comparable pairs) as run and under each protocol, side by side.

    `renumber` (database id -> bundle id) and `meta` (runs_meta keyed by bundle id) state it
    for an exported bundle's `summary.json`, whose runs carry bundle ids.
    """
    ids = [int(str(r).strip()) for r in run_ids]
    new = {r: int((renumber or {}).get(r, r)) for r in ids}
    if not protocols_can_differ(store, ids):
        return ProtocolSensitivity(
            available=False, applies=False,
            note="no problem of these runs has a prompt preamble: standalone and with-prompt grade them alike")
    found = store_verdict_sets(store, ids)
    missing = [RescoreNeeded(run=m["run"] if renumber is None else new[m["run"]], protocol=m["protocol"],
                             command=m["command"]) for m in found.missing]
    runs = {p: found.runs[p] for p in PROTOCOLS} if renumber is None else {}
    if found.missing:
        return ProtocolSensitivity(available=False, runs=runs, missing=missing)
    changes = {r: changed_programs(store, *(found.runs[p][i] for p in PROTOCOLS), *PROTOCOLS)  # type: ignore[misc]
               for i, r in enumerate(ids)}
    both = side_by_side(store, ids, found.records, changes, conditions, family=family, n_boot=n_boot, seed=seed,
                        renumber=new, meta=meta)
    pairs = [pair.model_copy(update={"by_protocol": {p: pair.by_set[p] for p in PROTOCOLS}}) for pair in both.pairs]
    return ProtocolSensitivity(available=True, runs=runs, missing=missing, pairs=pairs, sets=both.sets,
                               holm_family_size=both.holm_family_size, changed_programs=both.changed_programs)


def side_by_side(
    store: Store,
    ids: Sequence[int],
    records: Mapping[str, Sequence[Mapping[str, Any]]],
    changes: Mapping[int, list[JsonObject]],
    conditions: Sequence[str] | None = None,
    *,
    family: Family | None = None,
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
    renumber: Mapping[int, int] | None = None,
    meta: Mapping[str, Mapping[str, Any]] | None = None,
) -> SideBySide:
    """The family under every verdict set of `records` (the engine), each pair with the programs that changed.

    `changes[run]` lists a run's trials whose verdict differs between the sets; runs keep their
    ids unless `renumber` (database id -> bundle id) says otherwise.
    """
    new = {r: int((renumber or {}).get(r, r)) for r in ids}
    if renumber is not None:
        records = {name: [{**rec, "run_id": str(new[int(rec["run_id"])])} for rec in recs]
                   for name, recs in records.items()}
    compared = compare_verdict_sets(records, [new[r] for r in ids], conditions, family=family, n_boot=n_boot,
                                    seed=seed, runs_meta=meta or runs_meta(run_reads.run_headers(store, ids)))
    old = {v: k for k, v in new.items()}
    arms = {a.label: (old[int(a.run)], a.condition) for a in compared.reports[AS_RUN].arms}
    pairs = []
    for pair in compared.pairs:
        changed = [ChangedProgram.model_validate(c | {"run": new[run]})
                   for run, condition in (arms[pair.a], arms[pair.b])
                   for c in changes[run] if condition is None or c["condition"] == condition]
        pairs.append(SensitivityPair(
            a=pair.a_name, b=pair.b_name, a_label=pair.a, b_label=pair.b,
            by_set=pair.by_set,
            conclusion=pair.conclusion,
            survives=pair.survives,
            same_conclusion=pair.same_conclusion,
            changed=changed,
        ))
    return SideBySide(pairs=pairs, sets=compared.sets, holm_family_size=compared.holm_family_size,
                      changed_programs=sum(len(c) for c in changes.values()))
