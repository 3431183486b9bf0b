"""Batch page: launch condition comparisons from a form (with the detectable difference shown first),
and watch running batches progress, cancel or resume them."""

import streamlit as st
from pydantic import ValidationError

from execugraph import views
from execugraph.batch_spec import BatchSpec, parse_seeds
from execugraph.benchmarks import BENCHMARKS, FILE_BENCHMARKS, BenchmarkError
from execugraph.conditions import DESCRIPTIONS, condition_names
from execugraph.runner import enqueue_batch
from ui import keys, resources
from ui.batch_parts import progress_panel
from ui.keys import Batch
from ui.widgets import model_pickers, show_model_problems

keys.init_state(st.session_state)
store = resources.store()
settings = resources.settings()
st.title("Batch")
st.caption("Every problem x condition x seed x trial is queued and run by the background worker; results are paired "
           "by problem for the statistics.")
progress_panel(store)

st.subheader("New batch")
left, right = st.columns(2, gap="large")
benchmark = left.selectbox("Benchmark", BENCHMARKS, key=Batch.BENCHMARK)
problems, options = [], {}
try:
    if benchmark in FILE_BENCHMARKS:
        upload = left.file_uploader(f"{benchmark} JSONL file", type=["jsonl", "json"], key=Batch.UPLOAD,
                                    help="format: docs/benchmark-format.md")
        if upload is not None:
            data = upload.getvalue()
            problems = resources.parse_upload(benchmark, data, upload.name)
            options = {"path": str(views.keep_upload(data, upload.name, settings.cache_dir / "uploads"))}
    else:
        problems = resources.benchmark_problems(benchmark)
except (BenchmarkError, ValueError) as exc:
    left.error(f"Cannot use this benchmark: {exc}", icon=":material/error:")
categories = sorted({p.category for p in problems})
st.session_state[Batch.CATEGORIES] = [c for c in st.session_state[Batch.CATEGORIES] if c in categories]
left.multiselect("Categories (none = all)", categories, key=Batch.CATEGORIES)
a, b = left.columns(2)
a.number_input("Random subset of N problems (0 = all)", min_value=0, step=1, key=Batch.SUBSET)
b.number_input("Subset seed", min_value=0, step=1, key=Batch.SUBSET_SEED)
left.multiselect("Conditions", condition_names(), key=Batch.CONDITIONS, help="; ".join(f"{k}: {v}" for k, v in DESCRIPTIONS.items()))
a, b, c = left.columns(3)
a.text_input("Seeds", key=Batch.SEEDS, help="e.g. 0-4 or 0,2,5")
b.number_input("Trials per seed", min_value=1, max_value=100, key=Batch.TRIALS)
c.number_input("Concurrency", min_value=1, max_value=64, key=Batch.CONCURRENCY, help="trials run at once")
with right:
    choices, why_missing = resources.model_choices(settings.ollama_host)
    default_model, models = model_pickers(Batch.DEFAULT_MODEL, Batch.ROLE_MODEL, choices, why_missing)
    st.selectbox("Feedback tests", ["grading", "visible", "generated"], key=Batch.FEEDBACK)
    st.text_input("Title (optional)", key=Batch.TITLE)
    st.slider("Expected baseline pass rate (for planning)", 0.0, 0.95, step=0.05, key=Batch.BASELINE)

spec = plan = None
try:
    spec = BatchSpec(benchmark=benchmark, benchmark_options=options, categories=st.session_state[Batch.CATEGORIES],
                     subset=st.session_state[Batch.SUBSET] or None, subset_seed=st.session_state[Batch.SUBSET_SEED],
                     conditions=st.session_state[Batch.CONDITIONS], seeds=parse_seeds(st.session_state[Batch.SEEDS]),
                     trials=st.session_state[Batch.TRIALS], models=models, default_model=default_model,
                     concurrency=st.session_state[Batch.CONCURRENCY], feedback_tests=st.session_state[Batch.FEEDBACK],
                     title=st.session_state[Batch.TITLE].strip())
    if problems:
        plan = views.plan_batch(spec, problems, st.session_state[Batch.BASELINE])
except (ValidationError, ValueError) as exc:
    st.error(f"Fix the form: {views.readable_error(exc)}", icon=":material/error:")

if plan is not None:
    detect = (f"the smallest improvement over a {st.session_state[Batch.BASELINE]:.0%} baseline it can detect "
              f"(paired, 80% power, two-sided alpha 0.05) is **{plan.mdd_pp:.1f} percentage points**"
              if plan.mdd_pp is not None else f"no improvement is reliably detectable ({plan.note})")
    holm = (f"; under Holm's correction over {plan.pairs} comparisons the strictest step needs {plan.mdd_holm_pp:.1f} pp"
            if plan.pairs > 1 and plan.mdd_holm_pp is not None else "")
    st.info(f"{plan.problems} problems x {plan.conditions} conditions x {plan.seeds} seeds x {plan.trials_per_seed} "
            f"trials = **{plan.total_trials} trials**. With {plan.seeds * plan.trials_per_seed} trial(s) per problem "
            f"and condition, {detect}{holm}.", icon=":material/straighten:")
elif not problems and benchmark in FILE_BENCHMARKS:
    st.info(f"Upload a {benchmark} JSONL file to plan the batch.", icon=":material/upload_file:")

if st.button("Launch batch", type="primary", key=Batch.LAUNCH, disabled=plan is None, icon=":material/rocket_launch:"):
    missing = views.model_problems([default_model, *models.values()], settings.ollama_host)
    if missing:
        show_model_problems(missing)
    else:
        run_id = enqueue_batch(store, spec, problems)
        st.session_state[Batch.LAUNCHED] = run_id
        resources.start_worker(resources.db_url())
        st.rerun()
if st.session_state[Batch.LAUNCHED] is not None:
    st.success(f"Batch #{st.session_state[Batch.LAUNCHED]} is queued; its progress is shown at the top of this page.",
               icon=":material/check:")
