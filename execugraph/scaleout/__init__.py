"""Scale-out of batches: trials on a Ray cluster, LLM calls balanced over several endpoints. Built on
`execugraph.batch`, which never imports this package.

- `executor`: RayExecutor, the `ray` executor a batch Worker is given (by the CLI), and `run_on_ray`;
  connecting to the cluster and the store URL its workers use.
- `driver`: RayBatchDriver, which places every attempt of a claimed run, inside the same lease loop
  as a local run (`execugraph.batch.leased_run.LeasedRun`: heartbeat, cancel check, progress, release).
- `workers`: the pool of Ray actors that run trials (one per node by default).
- `trial_worker`: TrialWorker, what runs inside each Ray worker process.
- `endpoints`: EndpointBalancer, per-endpoint limits, health checks and draining.

Attempts write through `Store.fenced` (`execugraph.store.fencing`), so a superseded attempt can
never write into its trial. docs/scale-out.md explains the design.
"""

__all__ = [
    "executor",
]
