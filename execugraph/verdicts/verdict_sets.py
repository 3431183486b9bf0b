"""Verdict sets: each run's trials as run (or as published) and as rescored under each grading protocol.

A rescore (`verdicts.rescore_run`) writes a child run holding the trials it could
rerun. For the statistics every trial of the run is kept: a trial the rescore could
not rerun (no code, problem not found) keeps its published verdict, so the numbers
under a protocol differ from the published ones by exactly the flips, each of which
says why. A child made earlier for the same run, protocol, recorded tests, sandbox
policy and benchmark file is reused instead of rerunning every program.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict, cast

from execugraph.domain.json_types import JsonObject
from execugraph.grading.outcome import ResultsMemo
from execugraph.grading.rules import PROTOCOLS
from execugraph.store import Store, run_reads, verdict_reads
from execugraph.verdicts.rescore import RESCORE_RULES, recorded_benchmark, rescore_run

PUBLISHED = "published"  # a reproduction's reference set: the verdicts the study's logs state
AS_RUN = "as run"  # a stored run's reference set: the verdicts stored with its trials (published ones for an import)
VERDICT_SETS: tuple[str, ...] = (PUBLISHED, *PROTOCOLS)
PROMPTED_BENCHMARKS = ("humaneval", "humaneval-plus")  # benchmarks whose problems carry a prompt preamble
Key = tuple[str, str, int, int]
ProgressFn = Callable[[int, int], None]


class VerdictRecord(TypedDict, total=False):
    """One trial as `stats.build_report_from_records` reads it (the store's RECORD_COLUMNS, then the run and
    best-of-N samples); a plain dict at run time, so a report or a JSON file takes it as it is."""

    problem_id: str
    category: str | None
    condition: str
    seed: int
    trial_index: int
    passed: bool | None
    error_class: str | None
    retries_used: int
    wallclock_s: float | None
    tokens_in: int | None
    tokens_out: int | None
    llm_calls: int | None
    test_source: str | None
    feedback_source: str | None
    status: str
    benchmark: str | None
    run_id: str  # the run the trial belongs to, as the statistics name runs
    samples_total: int  # best-of-N: samples drawn (only on such trials)
    samples_passed: int | None  # ... and how many passed


class MissingRescore(TypedDict):
    """A rescore that would complete the verdict sets, and the command that makes it."""

    run: int
    protocol: str
    command: str


def trial_records(store: Store, run_id: int) -> list[VerdictRecord]:
    """The run's trials as plain records for `stats.build_report_from_records` (samples from grade steps)."""
    rows, samples = verdict_reads.trial_records(store, run_id)
    records: list[VerdictRecord] = []
    for row in rows:
        record = cast(VerdictRecord, row)
        record["run_id"] = str(run_id)
        sample = samples.get((record["problem_id"], record["condition"], record["seed"], record["trial_index"]))
        if sample:
            record["samples_total"], record["samples_passed"] = sample
        records.append(record)
    return records


def _key(record: VerdictRecord) -> Key:
    return (record["problem_id"], record["condition"], int(record["seed"] or 0), int(record["trial_index"] or 0))


@dataclass
class Rescored:
    """One protocol's rescore of one run: the child run and its summary (`RescoreReport.to_dict()`)."""

    protocol: str  # the grading protocol of the rescore
    child_id: int  # the child run holding its verdicts
    summary: JsonObject  # `RescoreReport.to_dict()`, as the child's config stores it (with its run id)
    reused_child: bool = False  # an earlier identical rescore was reused, nothing ran

    def flips_by_cause(self) -> dict[str, int]:
        """Flips counted under their first (most telling) cause."""
        counts = Counter((flip.get("causes") or ["unexplained"])[0] for flip in self.summary.get("flips", []))
        return dict(sorted(counts.items()))


@dataclass
class RunVerdicts:
    """A run's records under every verdict set, and the rescores behind them."""

    run_id: int
    records: dict[str, list[VerdictRecord]] = field(default_factory=dict)  # verdict set -> the run's records
    rescored: dict[str, Rescored] = field(default_factory=dict)  # protocol -> the rescore behind it
    kept: dict[str, int] = field(default_factory=dict)  # protocol -> trials that keep their published verdict


def wanted_benchmark(run_config: Mapping[str, Any] | None, override: Mapping[str, Any] | None) -> str | None:
    """The stored benchmark whose tests grade the run's trials first: the given file's, else its own."""
    if override and isinstance(override.get("benchmark"), str):
        return str(override["benchmark"])
    return recorded_benchmark(dict(run_config or {}))  # a stored config: JSON


def earlier_rescore(store: Store, run_id: int, protocol: str, benchmark: str | None, policy: str) -> Rescored | None:
    """The newest child of `run_id` rescored under `protocol` with the recorded tests, this sandbox policy, these
    rescore rules and `benchmark`'s problems, if one exists."""
    for child_id, config in run_reads.finished_rescores(store, run_id):
        summary = config.get("rescore")
        if not isinstance(summary, dict):
            continue
        same = (summary.get("grading_protocol") == protocol and summary.get("tests") == "recorded"
                and str(summary.get("policy_version")) == policy and recorded_benchmark(config) == benchmark
                and summary.get("rules", 1) == RESCORE_RULES)
        if same:
            return Rescored(protocol, int(child_id), {**summary, "run_id": int(child_id)}, reused_child=True)
    return None


def rescore_both(
    store: Store,
    run_id: int,
    run_config: Mapping[str, Any] | None,
    *,
    override: Mapping[str, Any] | None,
    pool: Callable[[], Any],
    memo: ResultsMemo,
    on_progress: Callable[[str, int, int], None] | None = None,
) -> dict[str, Rescored]:
    """The run rescored under each protocol (an earlier identical rescore reused); `pool()` starts the sandbox."""
    from sandbox import POLICY_VERSION

    out: dict[str, Rescored] = {}
    benchmark = wanted_benchmark(run_config, override)
    for protocol in PROTOCOLS:
        found = earlier_rescore(store, run_id, protocol, benchmark, str(POLICY_VERSION))
        if found is None:
            def progress(done: int, total: int, protocol: str = protocol) -> None:
                if on_progress is not None:
                    on_progress(protocol, done, total)

            report = rescore_run(store, run_id, pool=pool(), protocol=protocol, tests="recorded",
                                 benchmark_file=override, memo=memo, on_progress=progress)
            found = Rescored(protocol, int(report.run_id or 0), report.to_dict())
        out[protocol] = found
        if on_progress is not None:
            on_progress(protocol, 1, 1)
    return out


def merge_verdicts(store: Store, records: list[VerdictRecord], child_id: int) -> tuple[list[VerdictRecord], int]:
    """`records` with the verdict of `child_id`'s trial of the same key wherever there is one; and how many kept theirs."""
    child = {(r[0], r[1], r[2], r[3]): (bool(r[4]), r[5]) for r in verdict_reads.trial_verdicts(store, child_id)}
    merged: list[VerdictRecord] = []
    kept = 0
    for record in records:
        now = child.get(_key(record))
        if now is None:
            kept += 1
            merged.append(record)
        else:
            merged.append({**record, "passed": now[0], "error_class": now[1], "status": "done"})
    return merged, kept


def run_verdicts(store: Store, run_id: int, rescored: Mapping[str, Rescored]) -> RunVerdicts:
    """The run's records as published, and under each protocol with the rescored verdict wherever there is one."""
    published = trial_records(store, run_id)
    result = RunVerdicts(run_id, {PUBLISHED: published}, dict(rescored))
    for protocol, rescore in rescored.items():
        result.records[protocol], result.kept[protocol] = merge_verdicts(store, published, rescore.child_id)
    return result


def second_verdict_sets(store: Store, run_id: int) -> dict[str, int]:
    """verdict set -> the child run holding a file's second verdicts for `run_id` (EvalPlus: `evalplus-plus`)."""
    found: dict[str, int] = {}
    plus = [(c, config) for c, config in run_reads.finished_rescores(store, run_id) if config.get("verdict_set")]
    for child_id, config in [*run_reads.imported_children(store, run_id), *plus]:  # `rescore --suite plus`: `plus`
        name = config.get("verdict_set")
        if isinstance(name, str) and name not in found:
            found[name] = child_id
    return found


def run_protocols(store: Store, run_ids: Sequence[int]) -> dict[int, str | None]:
    """The protocol each run's trials were graded under (most trials win); None when not recorded.

    Our own runs from before protocols were recorded graded `standalone`, the only
    behaviour then; a published log that does not say stays unknown.
    """
    ids = [int(r) for r in run_ids]
    kinds = run_reads.run_kinds_and_configs(store, ids)
    best: dict[int, tuple[int, str]] = {}
    for run_id, protocol, n in verdict_reads.grading_protocol_counts(store, ids):
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
    candidates = [r for r in candidates if r == run_id or not is_amplified_rescore(store, r)]
    protocols = run_protocols(store, candidates)
    found: dict[str, int] = {}
    for candidate in candidates:
        protocol = protocols.get(candidate)
        if protocol is not None and protocol not in found:
            found[protocol] = candidate
    return found


def is_amplified_rescore(store: Store, run_id: int) -> bool:
    """Whether `run_id` is a rescore on stronger tests (`rescore --suite amplified`): not a protocol counterpart."""
    kind, config = run_reads.run_kinds_and_configs(store, [run_id]).get(run_id, ("", {}))
    tests = (config.get("rescore") or {}).get("tests") if kind == "rescore" else None
    return isinstance(tests, str) and (tests.startswith("amplified:") or tests == "plus")


def protocols_can_differ(store: Store, run_ids: Sequence[int]) -> bool:
    """Whether any problem of these runs has a prompt preamble (else both protocols grade them the same)."""
    ids = [int(r) for r in run_ids]
    return verdict_reads.has_trial_of_benchmark(store, ids, PROMPTED_BENCHMARKS) or (
        verdict_reads.has_trial_with_preamble(store, ids)
    )


@dataclass
class StoreVerdictSets:
    """Stored runs under every verdict set: as run, then each protocol (a run's own, or its rescore merged in)."""

    records: dict[str, list[VerdictRecord]]  # verdict set -> every run's records under it
    runs: dict[str, list[int | None]]  # verdict set -> the run whose verdicts each run takes there
    missing: list[MissingRescore]  # the rescores that would complete the sets, with their commands


def store_verdict_sets(store: Store, run_ids: Sequence[int]) -> StoreVerdictSets:
    """Records of `run_ids` as run and under each protocol (a protocol without a counterpart is listed as missing).

    Under a protocol a run keeps its own verdicts when it was graded under it, else takes
    its newest rescore under it, trial by trial; a trial the rescore could not rerun keeps
    its verdict, exactly as `run_verdicts` does for a reproduction.
    """
    ids = [int(r) for r in run_ids]
    own = {r: trial_records(store, r) for r in ids}
    mapping = {r: counterparts(store, r) for r in ids}
    missing = [
        MissingRescore(run=r, protocol=p, command=f"python -m execugraph rescore --run {r} --grading-protocol {p}")
        for r in ids for p in PROTOCOLS if p not in mapping[r]
    ]
    records: dict[str, list[VerdictRecord]] = {AS_RUN: [rec for r in ids for rec in own[r]]}
    runs: dict[str, list[int | None]] = {AS_RUN: list(ids)}
    for protocol in PROTOCOLS:
        runs[protocol] = [mapping[r].get(protocol) for r in ids]
        if any(p is None for p in runs[protocol]):
            continue
        merged: list[VerdictRecord] = []
        for r in ids:
            source = mapping[r][protocol]
            merged.extend(own[r] if source == r else merge_verdicts(store, own[r], source)[0])
        records[protocol] = merged
    _add_second_sets(store, ids, own, records, runs)
    return StoreVerdictSets(records, runs, missing)


def _add_second_sets(store: Store, ids: list[int], own: Mapping[int, list[VerdictRecord]],
                     records: dict[str, list[VerdictRecord]], runs: dict[str, list[int | None]]) -> None:
    """A file's second verdict set (EvalPlus plus tests) after the protocols, when every run has one."""
    second = {r: second_verdict_sets(store, r) for r in ids}
    names = sorted(set.intersection(*(set(s) for s in second.values()))) if ids else []
    for name in names:
        runs[name] = [second[r][name] for r in ids]
        records[name] = [rec for r in ids for rec in merge_verdicts(store, own[r], second[r][name])[0]]


def changed_programs(store: Store, run_a: int, run_b: int, protocol_a: str, protocol_b: str) -> list[JsonObject]:
    """Trials (same key in both runs) whose verdict differs between the two runs (JSON rows: each side's verdict
    word under its protocol's name)."""
    a, b = _verdicts(store, run_a), _verdicts(store, run_b)
    out = []
    for key in sorted(set(a) & set(b), key=str):
        if a[key][0] != b[key][0]:
            out.append({
                "problem_id": key[0], "condition": key[1], "seed": key[2], "trial_index": key[3],
                protocol_a: _word(*a[key]), protocol_b: _word(*b[key]),
            })
    return out


def _verdicts(store: Store, run_id: int) -> dict[Key, tuple[bool, str | None]]:
    rows = verdict_reads.trial_verdicts(store, run_id, ("done", "error"))
    return {(r[0], r[1], r[2], r[3]): (bool(r[4]), r[5]) for r in rows}


def _word(passed: bool, error_class: str | None) -> str:
    return "passed" if passed else (error_class or "failed")
