"""Batches: a grid of trials queued up front, run by whichever worker claims it, resumable.

- `spec`: BatchSpec, what a user asks for, validated and expanded into trial keys.
- `control`: queue a batch's whole grid, ask for a cancel, resume.
- `order`: the paired order trials are queued (and so claimed) in, the tail rule (the last waves heaviest
  first), and whether what finished pairs.
- `progress`, `outcome`: where a run stands, and the counts and status words every surface shows.
- `eta`: the time left, from each condition's trial costs (this run's, earlier runs'), with a range.
- `lease`: RunLease, a worker's hold on one run (heartbeat thread, trust period, guard for writes).
- `leased_run`: LeasedRun, the one lease loop every executor runs in: lease, cancel check,
  progress refresh, release.
- `local`: LocalExecutor, a claimed run's trials on threads in this process.
- `runner`: Worker, which claims runs and hands each to the executor its spec names.
- `worker_process`: the detached singleton worker process of a database.
- `warmup`: what a worker (or a Ray worker actor) imports before its first claim.
- `matched_budget_spec`, `matched_plan`: `--match-budget`, extra seeds of a cheaper arm planned from stored costs.

Executors other than `local` are passed to the Worker by whoever builds it (the CLI
passes `execugraph.scaleout`'s Ray executor): nothing here imports `execugraph.scaleout`.
"""

__all__ = [
    "control",
    "destinations",
    "lease",
    "leased_run",
    "matched_budget_spec",
    "matched_plan",
    "order",
    "outcome",
    "progress",
    "release_window",
    "runner",
    "spec",
    "warmup",
    "worker_process",
]
