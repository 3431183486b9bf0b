"""Protocol sensitivity: does a family of comparisons say the same under both grading protocols?

A run is graded under one protocol; rescoring it under the other (`rescore --grading-protocol`)
makes a child run. For the runs a report compares, this finds each run's counterpart under
every protocol (the run itself, its rescore children, or for a rescore its parent and
siblings), builds the same report for each protocol, and sets the pairs side by side: delta,
CI, p and Holm p per protocol, whether the conclusion holds, and the programs whose verdict
changed between the protocols. When a counterpart is missing it says which rescore to run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from execugraph.grading import PROTOCOLS
from execugraph.stats.bootstrap import DEFAULT_BOOTSTRAP, DEFAULT_SEED
from execugraph.store import run_reads, verdict_reads

if TYPE_CHECKING:
    from execugraph.store import Store

PROMPTED_BENCHMARKS = ("humaneval",)  # benchmarks whose problems carry a prompt preamble
ALPHA = 0.05
_PAIR_FIELDS = ("delta_pp", "ci_lo", "ci_hi", "p_wilcoxon", "p_holm", "problems_differ", "majority_discordant")


def run_protocols(store: Store, run_ids: Sequence[int]) -> dict[int, str | None]:
    """The protocol each run's trials were graded under (most trials win); None when not recorded.

    Our own runs from before protocols were recorded graded `standalone`, the only
    behaviour then; a published log that does not say stays unknown.
    """
    ids = [int(r) for r in run_ids]
    kinds = run_reads.run_kinds_and_configs(store, ids)
    counts = verdict_reads.grading_protocol_counts(store, ids)
    best: dict[int, tuple[int, str]] = {}
    for run_id, protocol, n in counts:
        if n > best.get(run_id, (0, ""))[0]:
            best[run_id] = (int(n), protocol)
    out: dict[int, str | None] = {}
    for run_id in ids:
        if run_id in best:
            out[run_id] = best[run_id][1]
        elif run_id in kinds and not isinstance(kinds[run_id][1].get("reference"), dict):
            out[run_id] = "standalone"
        else:
            out[run_id] = None
    return out


def counterparts(store: Store, run_id: int) -> dict[str, int]:
    """protocol -> the run graded under it for `run_id`'s programs (the run itself first, newest rescore next)."""
    found_family = run_reads.rescore_family(store, run_id)
    if found_family is None:
        return {}
    root, family = found_family
    candidates = [run_id, *([root] if root != run_id else []), *(r for r in family if r != run_id)]
    protocols = run_protocols(store, candidates)
    found: dict[str, int] = {}
    for candidate in candidates:
        protocol = protocols.get(candidate)
        if protocol is not None and protocol not in found:
            found[protocol] = candidate
    return found


def _verdicts(store: Store, run_id: int) -> dict[tuple, tuple[bool, str | None]]:
    rows = verdict_reads.trial_verdicts(store, run_id, ("done", "error"))
    return {(r[0], r[1], r[2], r[3]): (bool(r[4]), r[5]) for r in rows}


def changed_programs(store: Store, run_a: int, run_b: int, protocol_a: str, protocol_b: str) -> list[dict[str, Any]]:
    """Trials (same key in both runs) whose verdict differs between the two runs."""
    a, b = _verdicts(store, run_a), _verdicts(store, run_b)
    out = []
    for key in sorted(set(a) & set(b), key=str):
        if a[key][0] != b[key][0]:
            out.append({
                "problem_id": key[0], "condition": key[1], "seed": key[2], "trial_index": key[3],
                protocol_a: _word(*a[key]), protocol_b: _word(*b[key]),
            })
    return out


def _word(passed: bool, error_class: str | None) -> str:
    return "passed" if passed else (error_class or "failed")


def protocols_can_differ(store: Store, run_ids: Sequence[int]) -> bool:
    """Whether any problem of these runs has a prompt preamble (else both protocols grade them the same)."""
    ids = [int(r) for r in run_ids]
    return verdict_reads.has_trial_of_benchmark(store, ids, PROMPTED_BENCHMARKS) or (
        verdict_reads.has_trial_with_preamble(store, ids)
    )


def _arm_keys(report: dict, run_order: dict[str, int]) -> dict[str, tuple[int, str | None]]:
    return {a["label"]: (run_order[str(a["run"])], a["condition"]) for a in report["arms"]}


def _conclusion(values: dict[str, dict[str, Any]]) -> bool:
    """Same sign of delta and the same side of alpha (Holm) under every protocol."""
    signs = {(v["delta_pp"] > 0) - (v["delta_pp"] < 0) for v in values.values()}
    significant = {(v["p_holm"] if v["p_holm"] is not None else 1.0) < ALPHA for v in values.values()}
    return len(signs) == 1 and len(significant) == 1


def protocol_sensitivity(
    store: Store,
    run_ids: Sequence[str | int],
    conditions: Sequence[str] | None = None,
    *,
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """Each comparison of the family under both protocols, side by side, with the programs that changed verdict."""
    from execugraph.stats.report import build_report

    ids = [int(str(r).strip()) for r in run_ids]
    if not protocols_can_differ(store, ids):
        return {"available": False, "applies": False, "runs": {}, "missing": [], "pairs": [],
                "note": "no problem of these runs has a prompt preamble: standalone and with-prompt grade them alike"}
    mapping = {r: counterparts(store, r) for r in ids}
    missing = [
        {"run": r, "protocol": p, "command": f"python -m execugraph rescore --run {r} --grading-protocol {p}"}
        for r in ids for p in PROTOCOLS if p not in mapping[r]
    ]
    out: dict[str, Any] = {
        "available": not missing,
        "applies": True,
        "runs": {p: [mapping[r].get(p) for r in ids] for p in PROTOCOLS},
        "missing": missing,
        "pairs": [],
    }
    if missing:
        return out
    reports = {p: build_report(store, [str(mapping[r][p]) for r in ids], conditions, n_boot=n_boot, seed=seed)
               for p in PROTOCOLS}
    keyed: dict[str, dict[tuple, dict]] = {}
    for p, report in reports.items():
        order = {str(mapping[r][p]): i for i, r in enumerate(ids)}
        arms = _arm_keys(report, order)
        keyed[p] = {(arms[pair["a"]], arms[pair["b"]]): pair for pair in report["pairs"]}
    first = PROTOCOLS[0]
    changes = {r: changed_programs(store, mapping[r][PROTOCOLS[0]], mapping[r][PROTOCOLS[1]], *PROTOCOLS) for r in ids}
    for key in keyed[first]:
        values = {p: {f: keyed[p][key][f] for f in _PAIR_FIELDS} for p in PROTOCOLS if key in keyed[p]}
        if len(values) < len(PROTOCOLS):
            continue
        changed = [c | {"run": ids[i]} for i, cond in key for c in changes[ids[i]]
                   if cond is None or c["condition"] == cond]
        out["pairs"].append({
            "a": _label(key[0], ids, len(ids)), "b": _label(key[1], ids, len(ids)),
            "by_protocol": values,
            "same_conclusion": _conclusion(values),
            "changed": changed,
        })
    out["changed_programs"] = sum(len(c) for c in changes.values())
    return out


def _label(key: tuple[int, str | None], ids: list[int], n_runs: int) -> str:
    index, condition = key
    if condition is None:
        return str(ids[index])
    return condition if n_runs == 1 else f"{ids[index]}:{condition}"
