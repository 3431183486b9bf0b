"""Each run's trials under three sets of verdicts: as published, and as rescored under each grading protocol.

A rescore (`publication.rescore_run`) writes a child run holding the trials it could
rerun. For the statistics every trial of the run is kept: a trial the rescore could
not rerun (no code, problem not found) keeps its published verdict, so the numbers
under a protocol differ from the published ones by exactly the flips, each of which
says why. A child made earlier for the same run, protocol, recorded tests, sandbox
policy and benchmark file is reused instead of rerunning every program.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from execugraph.grading import PROTOCOLS
from execugraph.publication.rescore import recorded_benchmark, rescore_run
from execugraph.store import Store, run_reads, verdict_reads

PUBLISHED = "published"
VERDICT_SETS: tuple[str, ...] = (PUBLISHED, *PROTOCOLS)
CAUSE_LABELS = {
    "not_graded_then": "never graded then",
    "suite_changed": "suite differs",
    "protocol_changed": "protocol differs",
    "policy_changed": "sandbox policy changed",
    "timeout": "timeout",
    "custom_judge": "custom judge not published",
    "unexplained": "unexplained",
}
Key = tuple[str, str, int, int]
ProgressFn = Callable[[int, int], None]


def trial_records(store: Store, run_id: int) -> list[dict[str, Any]]:
    """The run's trials as plain records for `stats.build_report_from_records` (samples from grade steps)."""
    rows, samples = verdict_reads.trial_records(store, run_id)
    records = []
    for record in rows:
        record["run_id"] = str(run_id)
        sample = samples.get((record["problem_id"], record["condition"], record["seed"], record["trial_index"]))
        if sample:
            record["samples_total"], record["samples_passed"] = sample
        records.append(record)
    return records


def _key(record: Mapping[str, Any]) -> Key:
    return (record["problem_id"], record["condition"], int(record["seed"] or 0), int(record["trial_index"] or 0))


@dataclass
class Rescored:
    """One protocol's rescore of one run: the child run and its summary (`RescoreReport.to_dict()`)."""

    protocol: str
    child_id: int
    summary: dict[str, Any]
    reused_child: bool = False

    def flips_by_cause(self) -> dict[str, int]:
        """Flips counted under their first (most telling) cause."""
        counts = Counter((flip.get("causes") or ["unexplained"])[0] for flip in self.summary.get("flips", []))
        return dict(sorted(counts.items()))


@dataclass
class RunVerdicts:
    """A run's records under every verdict set, and the rescores behind them."""

    run_id: int
    records: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    rescored: dict[str, Rescored] = field(default_factory=dict)
    kept: dict[str, int] = field(default_factory=dict)  # protocol -> trials that keep their published verdict


def wanted_benchmark(run_config: Mapping[str, Any] | None, override: Mapping[str, Any] | None) -> str | None:
    """The stored benchmark whose tests grade the run's trials first: the given file's, else its own."""
    if override and isinstance(override.get("benchmark"), str):
        return str(override["benchmark"])
    return recorded_benchmark(dict(run_config or {}))


def earlier_rescore(store: Store, run_id: int, protocol: str, benchmark: str | None, policy: str) -> Rescored | None:
    """The newest child of `run_id` rescored under `protocol` with the recorded tests, this sandbox policy and
    `benchmark`'s problems, if one exists."""
    for child_id, config in run_reads.finished_rescores(store, run_id):
        summary = config.get("rescore")
        if not isinstance(summary, dict):
            continue
        same = (summary.get("grading_protocol") == protocol and summary.get("tests") == "recorded"
                and str(summary.get("policy_version")) == policy and recorded_benchmark(config) == benchmark)
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
    memo: dict[str, dict[str, Any]],
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


def run_verdicts(store: Store, run_id: int, rescored: Mapping[str, Rescored]) -> RunVerdicts:
    """The run's records as published, and under each protocol with the rescored verdict wherever there is one."""
    published = trial_records(store, run_id)
    result = RunVerdicts(run_id, {PUBLISHED: published}, dict(rescored))
    for protocol, rescore in rescored.items():
        child = {(r[0], r[1], r[2], r[3]): (bool(r[4]), r[5])
                 for r in verdict_reads.trial_verdicts(store, rescore.child_id)}
        merged, kept = [], 0
        for record in published:
            now = child.get(_key(record))
            if now is None:
                kept += 1
                merged.append(record)
            else:
                merged.append({**record, "passed": now[0], "error_class": now[1], "status": "done"})
        result.records[protocol] = merged
        result.kept[protocol] = kept
    return result
