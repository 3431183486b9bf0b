"""ExecuGraph: execution-grounded multi-agent code synthesis, measured. The core; never imports streamlit or `ui`.

Packages, roughly in the direction dependencies run (the floors are in `tests/layout/test_layers.py`):
- `domain` (the ground floor: the Problem, step outputs, events, RunConfig, the project's words, JSON types,
  run names; it imports nothing of ours);
- `configuration` (named conditions, every environment variable);
- `safety` (secrets redaction; data-derived text made inert);
- `workflow` (the graph, one trial, one ad-hoc run; the trial state is `agents.state`);
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

__all__ = [
    "__version__",
    "agents",
    "amplify",
    "batch",
    "benchmarks",
    "cli",
    "configuration",
    "domain",
    "figures",
    "grading",
    "inputs",
    "parsing",
    "plugins",
    "providers",
    "publication",
    "reproduce",
    "retrieval",
    "safety",
    "scaleout",
    "sequential",
    "stats",
    "store",
    "verdicts",
    "workflow",
]
