"""The Batch page's form: where the problems come from, the grid, and the BatchSpec it adds up to."""

from __future__ import annotations

from typing import Any

import streamlit as st

from execugraph.batch.spec import BatchSpec, parse_seeds
from execugraph.benchmarks import BenchmarkError, benchmark_names, file_benchmark_names
from execugraph.configuration.conditions import condition_descriptions, condition_names
from execugraph.safety.inert_text import one_line
from ui import release_inputs, resources, views
from ui.keys import Batch


def problem_source(upload_folder: Any) -> tuple[str, list[Any], dict[str, str]]:
    """Benchmark picker (with an upload for file suites); returns (benchmark, problems, benchmark options)."""
    benchmark = st.selectbox("Benchmark", benchmark_names(), key=Batch.BENCHMARK)
    problems: list[Any] = []
    options: dict[str, str] = {}
    try:
        if benchmark in file_benchmark_names():
            upload = st.file_uploader(
                f"{benchmark} JSONL file",
                type=["jsonl", "json"],
                key=Batch.UPLOAD,
                max_upload_size=resources.upload_limit_mb(),
                help="format: docs/benchmark-format.md; at most EXECUGRAPH_UPLOAD_MAX_BYTES (200 MiB by default)",
            )
            if upload is not None:
                data = upload.getvalue()
                problems = resources.parse_upload(benchmark, data, upload.name)
                kept = views.keep_upload(data, upload.name, upload_folder)
                options = {"path": str(kept)}
                if st.session_state.get(Batch.PRUNED_FOR) != str(kept):  # once per file kept, not every rerun
                    views.prune_uploads(upload_folder, resources.store(), keep=kept)
                    st.session_state[Batch.PRUNED_FOR] = str(kept)
        else:
            problems = resources.benchmark_problems(benchmark)
    except (BenchmarkError, ValueError) as exc:
        st.error(f"Cannot use this benchmark: {exc}", icon=":material/error:")
    return benchmark, problems, options


def grid_inputs(problems: list[Any]) -> None:
    """Category filter, subset, conditions, seeds, trials, concurrency and trial order."""
    categories = sorted({p.category for p in problems})
    st.session_state[Batch.CATEGORIES] = [c for c in st.session_state[Batch.CATEGORIES] if c in categories]
    st.multiselect("Categories (none = all)", categories, key=Batch.CATEGORIES, format_func=one_line)
    release_inputs.window_inputs(problems)  # released after / before, when the problems carry dates
    a, b = st.columns(2)
    a.number_input("Random subset of N problems (0 = all)", min_value=0, step=1, key=Batch.SUBSET)
    b.number_input("Subset seed", min_value=0, step=1, key=Batch.SUBSET_SEED)
    st.multiselect(
        "Conditions",
        condition_names(),
        key=Batch.CONDITIONS,
        help="; ".join(f"{k}: {v}" for k, v in condition_descriptions().items()),
    )
    a, b, c = st.columns(3)
    a.text_input("Seeds", key=Batch.SEEDS, help="e.g. 0-4 or 0,2,5")
    b.number_input("Trials per seed", min_value=1, max_value=100, key=Batch.TRIALS)
    c.number_input("Concurrency", min_value=1, max_value=64, key=Batch.CONCURRENCY, help="trials run at once")
    st.selectbox(
        "Trial order",
        ["paired", "condition-major"],
        key=Batch.ORDER,
        help="paired: problem by problem in a seeded random order, every condition of a problem before the next, "
        "so a batch stopped early is still a paired sample; condition-major: one condition after another",
    )
    a, b, c = st.columns(3)
    a.selectbox("Executor", ["local", "ray"], key=Batch.EXECUTOR,
                help="local: threads in the background worker; ray: one Ray task per trial (docs/scale-out.md)")
    ray = st.session_state[Batch.EXECUTOR] == "ray"
    b.text_input("Ray address (empty = local cluster)", key=Batch.RAY_ADDRESS, disabled=not ray)
    c.text_input(
        "LLM endpoints",
        key=Batch.OLLAMA_HOSTS,
        placeholder="host:11434, host2:11434",
        disabled=not ray,
        help="Comma-separated Ollama servers (http://host:11434) or OpenAI-compatible ones (http://host:8000/v1) to balance "
        "trials over; empty: OLLAMA_HOST or EXECUGRAPH_OPENAI_BASE_URL, whichever the models use",
    )
    fault_inputs()
    sequential_inputs()


def sequential_inputs() -> None:
    """Opt-in sequential batch: looks and the smallest difference worth finding."""
    st.checkbox(
        "Sequential: stop each comparison once it is decided",
        key=Batch.SEQUENTIAL,
        help="Interim looks at equal shares of the problems; each condition is compared to the first listed with "
        "Hwang-Shih-DeCani alpha spending (Bonferroni over the comparisons) and stops for efficacy, or for "
        "futility when the observed trend has under 4% predictive power of becoming significant. Needs paired "
        "order.",
    )
    on = bool(st.session_state[Batch.SEQUENTIAL])
    a, b = st.columns(2)
    a.number_input("Looks", min_value=2, max_value=50, step=1, key=Batch.LOOKS, disabled=not on)
    b.number_input("Difference worth finding (pp; 0 = the planned MDD)", min_value=0.0, max_value=100.0, step=1.0,
                   key=Batch.SEQ_MDD, disabled=not on)


def sequential_design(plan_mdd_pp: float | None) -> Any:
    """The form's SequentialDesign (None unless chosen); its MDD is the form's, else the plan's."""
    from execugraph.sequential.design import SequentialDesign

    s = st.session_state
    if not s[Batch.SEQUENTIAL]:
        return None
    mdd_pp = float(s[Batch.SEQ_MDD]) or plan_mdd_pp
    return SequentialDesign(looks=int(s[Batch.LOOKS]), mdd=None if not mdd_pp else min(100.0, mdd_pp) / 100.0)


def fault_inputs() -> None:
    """How long trials wait for an LLM endpoint that stopped answering, and the read timeout of one call."""
    a, b = st.columns(2)
    a.number_input(
        "Outage budget per endpoint (minutes)",
        min_value=0.0,
        max_value=7 * 24 * 60.0,
        step=1.0,
        key=Batch.OUTAGE_BUDGET_MIN,
        help="While an LLM endpoint is down its trials wait and retry (the batch shows 'waiting: ...'); "
        "only after this long do they end as llm_error",
    )
    b.number_input(
        "LLM read timeout (seconds)",
        min_value=1.0,
        max_value=86400.0,
        step=60.0,
        key=Batch.LLM_TIMEOUT_S,
        help="Per call; generous by default so a server can load a large model cold (a timeout is retried)",
    )


def model_axis_input(choices: list[str]) -> dict[str, str]:
    """Models to compare: every condition runs on each, as arm `<condition>@<label>`; {} for a one-model batch."""
    chosen = [m for m in st.session_state[Batch.MODEL_AXIS] if isinstance(m, str)]
    st.multiselect(
        "Compare models (two or more; none = the model above)",
        list(dict.fromkeys([*choices, *chosen])),
        key=Batch.MODEL_AXIS,
        format_func=one_line,
        help="Every condition runs on each model, as arm CONDITION@MODEL, paired by problem: one batch, one "
        "family of comparisons, one report. Models per role above still apply to their role.",
    )
    picked = st.session_state[Batch.MODEL_AXIS]
    if not picked:
        return {}
    from execugraph.configuration.model_axis import parse_models

    return parse_models(",".join(picked))


def spec_from_form(benchmark: str, options: dict[str, str], default_model: str, models: dict[str, str],
                   model_axis: dict[str, str] | None = None) -> BatchSpec:
    """The BatchSpec the form describes (ValueError / ValidationError name the bad field)."""
    s = st.session_state
    return BatchSpec(
        model_axis=model_axis or {},
        benchmark=benchmark,
        benchmark_options=options,
        categories=s[Batch.CATEGORIES],
        subset=s[Batch.SUBSET] or None,
        subset_seed=s[Batch.SUBSET_SEED],
        conditions=s[Batch.CONDITIONS],
        seeds=parse_seeds(s[Batch.SEEDS]),
        trials=s[Batch.TRIALS],
        models=models,
        default_model=default_model,
        concurrency=s[Batch.CONCURRENCY],
        order=s[Batch.ORDER],
        feedback_tests=s[Batch.FEEDBACK],
        executor=s[Batch.EXECUTOR],
        **_ray_fields(s),
        outage_budget_s=float(s[Batch.OUTAGE_BUDGET_MIN]) * 60.0,
        llm_timeout_s=float(s[Batch.LLM_TIMEOUT_S]),
        title=s[Batch.TITLE].strip(),
        **release_inputs.window_fields(),
    )


def _ray_fields(s: Any) -> dict[str, Any]:
    """Scale-out settings, only when the Ray executor is chosen (BatchSpec refuses them otherwise)."""
    if s[Batch.EXECUTOR] != "ray":
        return {}
    hosts = [h.strip() for h in s[Batch.OLLAMA_HOSTS].split(",") if h.strip()]
    return {"ray_address": s[Batch.RAY_ADDRESS].strip() or None, "endpoints": hosts}
