"""ExecuGraph: execution-grounded multi-agent code synthesis, measured. The core; never imports streamlit or `ui`.

Packages, roughly in the direction dependencies run:
- `configuration` (RunConfig, named conditions, every environment variable, the project's words);
- `safety` (secrets redaction; data-derived text made inert);
- `workflow` (the Problem, typed state, step outputs, events, the graph, one trial, one ad-hoc run);
- `grading` (the one grading rule, CPU-time calibration, suite-file caps);
- `providers` (the chat-model factory, the per-trial router, outages, failure classes, doctor checks);
- `parsing` (model output), `agents` (the six agents, prompts and the node registry), `retrieval`,
  `benchmarks`, `store` (tables, engine, migrations, every query, run names, the technique-library pin),
  `batch` (progress, the lease loop, the local executor), `sequential`, `scaleout` (Ray, endpoint balancing),
  `verdicts` and `amplify` (verdict sets, stronger tests), `stats`, `figures`, `publication` (bundles,
  published layouts, harness files), `reproduce` (a published study in one command), `cli` (`python -m execugraph`).

What the dashboard shows is in `ui/` (the view models in `ui/views/`, free of Streamlit; the pages in `pages/`).
"""

__version__ = "0.1.0"
