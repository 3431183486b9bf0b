"""Scale-out of batches: trials on a Ray cluster, LLM calls balanced over several Ollama endpoints.

- `driver`: RayBatchDriver, the process holding the run lease and placing every attempt.
- `workers`: the pool of Ray actors that run trials (one per node by default).
- `trial_worker`: TrialWorker, what runs inside each Ray worker process.
- `endpoints`: EndpointBalancer, per-endpoint limits, health checks and draining.

Attempts write through `Store.fenced` (`execugraph.store.fencing`), so a superseded attempt can
never write into its trial; the run lease is `execugraph.batch.lease.RunLease`, as for local batches.
Entry points are in `execugraph.scaleout.executor`; docs/scale-out.md explains the design.
"""
