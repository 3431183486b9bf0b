"""ExecuGraph: execution-grounded multi-agent code synthesis, measured. The core; never imports streamlit.

Top-level modules hold one rule each: `settings` (every environment variable), `config`
(RunConfig) and `conditions` (named conditions), `state`, `steps` and `events` (the typed
graph state, step outputs and trial events), `graph` (build_graph), `trial` and `single`
(one trial, one ad-hoc run), `grading` (the one grading rule), `problem` and `suite_files`,
`llm` and `model_router` (providers, cache, usage), `health`, `outages` and `provider_errors`
(endpoints and their failures), `run_names` (how a run is named everywhere),
`technique_library` (a database's technique library and the one each retrieving run pins).

Packages, roughly in the direction dependencies run: `parsing` (model output), `agents`
(the six agents and prompts), `retrieval`, `benchmarks`, `store` (tables, engine, migrations
and every query), `batch` (progress, the lease loop, the local executor), `scaleout` (Ray,
endpoint balancing), `stats`, `figures`, `publication` (bundles, published layouts,
rescoring), `reproduce` (a published study in one command), `views` (what the pages show),
`cli` (`python -m execugraph`).
"""

__version__ = "0.1.0"
