"""The tables a paper needs, cut from one statistics report (`build_report`).

Each builder takes the report (`StatsReport`) and returns a `Table` of raw values with a
kind per column; `table_format` writes it as LaTeX, CSV or Markdown and
`Table.display_rows` gives the text the dashboard shows, so the page, the
downloads and `python -m execugraph report` print the same numbers. Nothing
here computes a statistic: every value is read from the report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from execugraph.stats.comparison import PairedComparison
from execugraph.stats.cost_compare import MODEL_TIME
from execugraph.stats.paired import ALPHA
from execugraph.stats.report_model import (
    ArmSection,
    CategoryComparison,
    PairSection,
    RateCI,
    RunSection,
    StatsReport,
)

# Column kinds: how a raw value is shown (see `display`).
TEXT, INT, PCT, PP, P, NUM1, NUM2, CI_PCT, CI_PP = "text", "int", "pct", "pp", "p", "num1", "num2", "ci_pct", "ci_pp"
MISSING = "—"  # an em dash: every surface shows it for a missing or undefined number (JSON keeps null)
P_FLOOR = 1e-4
ASYMPTOTIC_MARK = "†"
MODEL_TIME_NOTE = ("Model time: the summed durations of a trial's LLM calls, read only when the report compares it "
                   "(stats --cost model-time); a dash where it was not read or no call was stored.")


@dataclass(frozen=True)
class Column:
    """One column: the row key it reads, its header, and its kind."""

    key: str
    title: str
    kind: str = TEXT

    @property
    def numeric(self) -> bool:
        return self.kind != TEXT


@dataclass
class Table:
    """A titled grid of raw values (rates in [0, 1], CIs as (lo, hi) pairs), with notes under it."""

    key: str  # file stem: paired -> paired.tex / paired.csv
    title: str
    columns: list[Column]
    rows: list[Mapping[str, object]]  # column key -> raw cell value (a report row, or one built here)
    notes: list[str] = field(default_factory=list)

    def display_rows(self) -> list[dict[str, str]]:
        """Every cell as the text the page and the Markdown/LaTeX files show, keyed by column title."""
        return [{c.title: display(row.get(c.key), c.kind) for c in self.columns} for row in self.rows]


def is_missing(value: Any) -> bool:
    """None, NaN or an infinity: a number that is not there (shown as MISSING, never as None or nan)."""
    return value is None or (isinstance(value, float) and not math.isfinite(value))


def display(value: Any, kind: str) -> str:
    """One cell as text: percentages and points to one decimal, p-values to four (below 0.0001 as a bound);
    MISSING for None, NaN or an infinity (also inside a CI or beside a p-value's mark)."""
    if is_missing(value):
        return MISSING
    if kind in (CI_PCT, CI_PP):
        lo, hi = value
        if is_missing(lo) or is_missing(hi):
            return MISSING
        inner = PCT if kind == CI_PCT else PP
        return f"[{display(lo, inner)}, {display(hi, inner)}]"
    if kind == PCT:
        return f"{100 * value:.1f}"
    if kind == PP:
        return f"{value:+.1f}"
    if kind == P:
        mark = ""
        if isinstance(value, tuple):
            value, mark = value
            if is_missing(value):
                return MISSING
        return (f"<{P_FLOOR:.4f}" if value < P_FLOOR else f"{value:.4f}") + mark
    if kind == NUM1:
        return f"{value:.1f}"
    if kind == NUM2:
        return f"{value:.2f}"
    if kind == INT:
        return str(int(value))
    return str(value)


def _ci(section: RateCI | ArmSection) -> tuple[float | None, float | None]:
    return (section.ci_lo, section.ci_hi)


def reference_pairs(report: StatsReport) -> dict[str, PairSection]:
    """arm label -> its comparison, when every compared arm has exactly one reference (a baseline, or one pair)."""
    pairs = report.pairs
    if report.family.is_baseline or len(pairs) == 1:
        return {p.b: p for p in pairs}
    return {}


def category_table(report: StatsReport) -> Table:
    """Pass rate per arm and category (and overall) with its 95% CI over problems; against a single reference
    (a baseline, or the one pair), each arm's delta, exact Wilcoxon p and Holm p per category beside its rates."""
    against = reference_pairs(report)
    rows = []
    for arm in report.arms:
        pair = against.get(arm.label)
        by_category = {c.category: c for c in pair.categories} if pair else {}
        for category, r in sorted(arm.categories.items()):
            rows.append({"arm": arm.name, "category": category, **_rate(r), **_paired_cells(by_category.get(category))})
        rows.append({"arm": arm.name, "category": "overall", **_rate(arm),
                     **_paired_cells(pair.comparison if pair else None)})
    columns = [
        Column("arm", "Arm"),
        Column("category", "Category"),
        Column("problems", "Problems", INT),
        Column("trials", "Trials", INT),
        Column("pass_rate", "Pass (%)", PCT),
        Column("ci", "95% CI (%)", CI_PCT),
    ]
    notes = [f"95% CI: {report.method['rate_ci']}."]
    if against:
        reference = next(iter(against.values())).a_name
        columns += [
            Column("delta", f"Delta vs {reference} (pp)", PP),
            Column("p", "p (Wilcoxon, exact)", P),
            Column("p_holm", "p (Holm)", P),
        ]
        notes.append(
            f"Delta and p: paired over the common problems, arm minus {reference}. Holm: over the categories of "
            "each comparison on category rows (the category family); over the family's comparisons on overall rows."
        )
    return Table("category_rates", "Pass rate per category with 95% CI", columns, rows, notes)


def _mark(section: PairedComparison | CategoryComparison) -> str:
    """The mark beside a p from the normal approximation ('' for an exact p)."""
    return ASYMPTOTIC_MARK if section.wilcoxon_method == "asymptotic" else ""


def _paired_cells(section: PairedComparison | CategoryComparison | None) -> dict[str, object]:
    if not section:
        return {"delta": None, "p": None, "p_holm": None}
    return {"delta": section.delta_pp, "p": (section.p_wilcoxon, _mark(section)), "p_holm": section.p_holm}


def category_paired_table(report: StatsReport) -> Table:
    """Every comparison of the family per category: both arms' rates, delta, exact Wilcoxon p, Holm p within it."""
    rows = []
    for p in report.pairs:
        for c in p.categories:
            rows.append(
                {
                    "a": p.a_name,
                    "b": p.b_name,
                    "category": c.category,
                    "n": c.n,
                    "a_rate": c.a_rate,
                    "b_rate": c.b_rate,
                    "delta": c.delta_pp,
                    **{k: v for k, v in _paired_cells(c).items() if k != "delta"},
                }
            )
    first, second = _sides(report)
    columns = [
        Column("a", first),
        Column("b", second),
        Column("category", "Category"),
        Column("n", "n", INT),
        Column("a_rate", f"{first} (%)", PCT),
        Column("b_rate", f"{second} (%)", PCT),
        Column("delta", "Delta (pp)", PP),
        Column("p", "p (Wilcoxon, exact)", P),
        Column("p_holm", "p (Holm, within comparison)", P),
    ]
    notes = [
        f"Per category: {second.lower()} minus {first.lower()} over the common problems of the category; "
        "rates are mean per-problem pass rates over those problems. Holm over the categories of each comparison."
    ]
    return Table("category_paired", "Paired comparisons per category", columns, rows, notes)


def _sides(report: StatsReport) -> tuple[str, str]:
    """Headings of a comparison's two sides: baseline and arm in a baseline family, else A and B."""
    return ("Baseline", "Arm") if report.family.is_baseline else ("A", "B")


def _rate(section: RateCI | ArmSection) -> dict[str, object]:
    return {
        "problems": section.problems,
        "trials": section.trials,
        "pass_rate": section.pass_rate if section.trials else None,
        "ci": _ci(section) if section.trials else (None, None),
    }


def paired_table(report: StatsReport) -> Table:
    """The paired comparisons of the report's family, Holm-adjusted over exactly those rows."""
    comparisons = report.comparisons
    rows = [
        {"a": c.a_name, "b": c.b_name, "n": c.n, "problems_differ": c.problems_differ,
         "majority_discordant": c.majority_discordant, "delta_pp": c.delta_pp, "ci": c.ci,
         "p_wilcoxon": (c.p_wilcoxon, _mark(c)), "p_holm": c.p_holm}
        for c in comparisons
    ]
    first, second = _sides(report)
    columns = [
        Column("a", first),
        Column("b", second),
        Column("n", "n", INT),
        Column("problems_differ", "Problems that differ", INT),
        Column("majority_discordant", "Majority-discordant", INT),
        Column("delta_pp", "Delta (pp)", PP),
        Column("ci", "95% CI (pp)", CI_PP),
        Column("p_wilcoxon", "p (Wilcoxon, exact)", P),
        Column("p_holm", "p (Holm)", P),
    ]
    notes = [
        f"Delta: {second.lower()} minus {first.lower()}, mean per-problem pass-rate difference over the n common "
        "problems. Problems that differ: per-problem pass rates differ (the Wilcoxon test's n). "
        "Majority-discordant: the majority outcome differs (McNemar's discordant pairs).",
        "Family: " + report.method.get("family", f"{len(rows)} comparison(s)") + ".",
    ]
    if any(r["p_wilcoxon"][1] for r in rows):
        notes.append(f"{ASYMPTOTIC_MARK} normal approximation (more than 400 problems differ).")
    notes += _limit_notes(comparisons)
    for x in report.excluded:
        notes.append(f"Not compared: {x.b_name} vs {x.a_name} ({x.reason}).")
    return Table("paired", "Paired comparisons", columns, rows, notes)


def _limit_notes(pairs: list[PairedComparison]) -> list[str]:
    """Footnotes for pairs whose p cannot reach 0.05 (too few problems differ) or whose CI and p disagree.

    Read from the report's `p_min_wilcoxon` and interval; a report written before those
    fields existed simply gets no footnote.
    """
    floor: list[str] = []
    disagree: list[str] = []
    for p in pairs:
        name = f"{p.b_name} vs {p.a_name}"
        p_min = p.p_min_wilcoxon
        if p_min is not None and p.wilcoxon_method == "exact" and p.problems_differ and p_min > ALPHA:
            floor.append(f"{name}: {p.problems_differ} differ, smallest p {display(p_min, P)}")
        excludes = p.ci_lo is not None and p.ci_hi is not None and (p.ci_lo > 0 or p.ci_hi < 0)
        if p.n > 1 and p.problems_differ and excludes != (p.p_wilcoxon < ALPHA):
            disagree.append(name)
    notes = []
    if floor:
        notes.append(
            "Smallest attainable p: with this few problems that differ, the exact Wilcoxon test cannot give p "
            "below the value listed (every difference one way; 2 / 2^n for n problems that differ), so no result "
            "could be significant at 0.05, and Holm only raises p: " + "; ".join(floor) + "."
        )
    if disagree:
        notes.append(
            "CI and p disagree for " + ", ".join(disagree) + ": the CI describes the size of the mean difference "
            "over these problems (Newcombe's score interval); the p tests whether per-problem differences lean "
            "one way."
        )
    return notes


def ablation_table(report: StatsReport) -> Table:
    """Arms x categories and overall pass rate; with a baseline, each arm's delta against it."""
    categories = sorted({c for arm in report.arms for c in arm.categories})
    keys = {c: f"cat{i}" for i, c in enumerate(categories)}
    family = report.family
    deltas = {p.b: p.delta_pp for p in report.pairs} if family.is_baseline else {}
    rows = []
    for arm in report.arms:
        row: dict[str, object] = {"arm": arm.name, "overall": arm.pass_rate if arm.trials else None}
        for category in categories:
            section = arm.categories.get(category)
            row[keys[category]] = section.pass_rate if section and section.trials else None
        if deltas:
            row["delta"] = deltas.get(arm.label)
        rows.append(row)
    columns = [Column("arm", "Arm"), *(Column(keys[c], f"{c} (%)", PCT) for c in categories)]
    columns.append(Column("overall", "Overall (%)", PCT))
    notes = []
    if deltas:
        columns.append(Column("delta", f"Delta vs {family.baseline_name} (pp)", PP))
        notes.append("Delta: the paired difference over common problems (see the paired table).")
    return Table("ablation", "Ablation: pass rate by arm and category", columns, rows, notes)


def retry_table(report: StatsReport) -> Table:
    """Pass rate and cost per retry budget within each series (benchmark, condition, model; see `stats.retries`).

    Only sweeps are rows; series with one budget and arms in no series are named in the notes, and a budget
    without graded trials shows no pass rate (not 0%).
    """
    rows = [
        {
            "series": r.series or "",
            "budget": r.retry_budget,
            "arms": ", ".join(r.names or r.arms),
            "trials": r.trials,
            "pass_rate": r.pass_rate if r.graded_or_trials else None,
            "retries": r.mean_retries_used,
            "wall": r.mean_wallclock_s,
            "tokens": r.mean_tokens,
            "calls": r.mean_llm_calls,
        }
        for r in report.retry_budgets
    ]
    columns = [
        Column("series", "Series"),
        Column("budget", "Retry budget", INT),
        Column("arms", "Arms"),
        Column("trials", "Trials", INT),
        Column("pass_rate", "Pass (%)", PCT),
        Column("retries", "Mean retries", NUM2),
        Column("wall", "Mean wall-clock (s)", NUM1),
        Column("tokens", "Mean tokens", NUM1),
        Column("calls", "Mean LLM calls", NUM2),
    ]
    notes = ["Series: benchmark · condition (budget suffix stripped); arms of different series are never pooled."]
    empty = [f"{r['series']} at {r['budget']}" for r in rows if r["pass_rate"] is None]
    if empty:
        notes.append(f"{MISSING} in Pass: no graded trials ({', '.join(empty)}).")
    if report.retry_budget_missing:
        notes.append("Not a sweep (left out): " + "; ".join(m.note for m in report.retry_budget_missing) + ".")
    if report.unknown_budget:
        names = {a.label: a.name for a in report.arms}
        notes.append("Unknown budget (left out): " + ", ".join(names[x] for x in report.unknown_budget) + ".")
    return Table("retry_budget", "Retry-budget sweep", columns, rows, notes)


def model_time_means(report: StatsReport) -> dict[str, float | None]:
    """arm label -> its mean model time per trial (summed LLM call seconds; None where the report did not read it:
    only `--cost model-time` does, `stats.model_time`)."""
    out: dict[str, float | None] = {}
    for arm in report.cost_comparison.arms:
        cell = arm.metrics.get(MODEL_TIME)
        out[arm.arm] = cell.mean if cell else None
    return out


def cost_table(report: StatsReport) -> Table:
    """Mean and median wall-clock, tokens and LLM calls, and mean model time, per trial for each arm."""
    rows: list[dict[str, object]] = []
    model_time = model_time_means(report)
    for arm in report.arms:
        cost = arm.cost
        rows.append(
            {
                "arm": arm.name,
                "trials": arm.trials,
                "wall_mean": cost.wallclock_s.mean,
                "wall_median": cost.wallclock_s.median,
                "tokens_mean": cost.tokens.mean,
                "tokens_median": cost.tokens.median,
                "calls_mean": cost.llm_calls.mean,
                "calls_median": cost.llm_calls.median,
                "model_time_mean": model_time.get(arm.label),
            }
        )
    columns = [
        Column("arm", "Arm"),
        Column("trials", "Trials", INT),
        Column("wall_mean", "Wall-clock mean (s)", NUM1),
        Column("wall_median", "Wall-clock median (s)", NUM1),
        Column("tokens_mean", "Tokens mean", NUM1),
        Column("tokens_median", "Tokens median", NUM1),
        Column("calls_mean", "LLM calls mean", NUM2),
        Column("calls_median", "LLM calls median", NUM2),
        Column("model_time_mean", "Model time mean (s)", NUM1),
    ]
    return Table("cost", "Cost per trial and condition", columns, rows, [MODEL_TIME_NOTE])


def error_table(report: StatsReport) -> Table:
    """Share of each arm's failed trials per error class (the error taxonomy)."""
    classes = list(dict.fromkeys(e.error_class for arm in report.arms for e in arm.errors))
    keys = {c: f"err{i}" for i, c in enumerate(classes)}
    rows = []
    for arm in report.arms:
        shares = {e.error_class: e.share for e in arm.errors}
        row: dict[str, object] = {"arm": arm.name, "failed": sum(e.count for e in arm.errors)}
        row.update({keys[c]: shares.get(c, 0.0 if row["failed"] else None) for c in classes})
        rows.append(row)
    columns = [Column("arm", "Arm"), Column("failed", "Failed trials", INT)]
    columns += [Column(keys[c], f"{c} (%)", PCT) for c in classes]
    return Table("errors", "Error taxonomy: share of failed trials per class", columns, rows)


def sampling_table(report: StatsReport) -> Table:
    """The sampling control: each arm's pass@1 and pass@N, how often all N samples agree, and what it costs in calls.

    Best-of-N arms sit beside the retrying and multi-agent arms at their observed
    call counts, so a reader sees whether a pipeline beats plain sampling for the
    same number of LLM calls.
    """
    rows = [
        {
            "arm": c.name,
            "kind": c.kind,
            "n": c.n,
            "p1": c.pass_at_1,
            "pn": c.pass_at_n,
            "agree": c.agree,
            "of": c.agree_problems or None,
            "share": c.agree_share,
            "per_attempt": c.calls_per_attempt,
            "for_n": c.calls_for_pass_at_n,
        }
        for c in report.sampling.control
    ]
    columns = [
        Column("arm", "Arm"),
        Column("kind", "Kind"),
        Column("n", "N (samples)", INT),
        Column("p1", "pass@1 (%)", PCT),
        Column("pn", "pass@N (%)", PCT),
        Column("agree", "All samples agree (problems)", INT),
        Column("of", "Problems with >= 2 samples", INT),
        Column("share", "All agree (%)", PCT),
        Column("per_attempt", "LLM calls per sample", NUM2),
        Column("for_n", "LLM calls for pass@N", NUM2),
    ]
    notes = [
        "pass@k: unbiased estimator (Chen et al., 2021). Best-of-N: N samples per problem (recorded per trial, or "
        "one per trial); other arms: one trial is one attempt, N is the fewest trials any problem has. LLM calls "
        "for pass@N: N times the calls observed per sample or attempt; an arm's pass@1 costs its calls per sample."
    ]
    for c in report.sampling.equal_budget:
        at_n = MISSING if c.pass_at_n is None else f"{100 * c.pass_at_n:.1f}%"
        notes.append(
            f"Equal budget: {c.sampler_name} with {c.n} sample(s) per problem (pass@{c.n} {at_n}) vs "
            f"{c.reference_name} {100 * c.reference_pass_rate:.1f}%."
        )
    return Table("sampling", "Sampling control", columns, rows, notes)


def _condition_of(arm: ArmSection, runs: dict[str, RunSection]) -> str:
    if arm.condition:
        return arm.condition
    run = runs.get(arm.run)
    own = list(run.conditions) if run else []
    return own[0] if len(own) == 1 else arm.name


def cross_model_table(report: StatsReport) -> Table:
    """Pass rate per condition (rows) and generator model (columns), when the arms differ by model."""
    runs = {r.id: r for r in report.runs}
    models = list(dict.fromkeys(a.model for a in report.arms if a.model))
    keys = {m: f"m{i}" for i, m in enumerate(models)}
    table: dict[str, dict[str, str | float | None]] = {}  # condition -> its cells by column key
    for arm in report.arms:
        if not arm.model or not arm.trials:
            continue
        condition = _condition_of(arm, runs)
        table.setdefault(condition, {"condition": condition})[keys[arm.model]] = arm.pass_rate
    columns = [Column("condition", "Condition"), *(Column(keys[m], f"{m} (%)", PCT) for m in models)]
    notes = ["Model: the generator's model as the run recorded it."]
    return Table("cross_model", "Pass rate by condition and model", columns, list(table.values()), notes)


def has_sampling_control(report: StatsReport) -> bool:
    """Whether any arm sampled (best-of-N) or repeated trials: only then is there a sampling control to show."""
    return any(c.kind == "best-of-N" or c.n for c in report.sampling.control)


def sequential_table(report: StatsReport) -> Table:
    """Each comparison of a sequential batch: where it stopped, its repeated CI and adjusted p, trials saved."""
    columns = [
        Column("run", "Run", INT),
        Column("comparison", "Comparison"),
        Column("decision", "Decision"),
        Column("look", "Look"),
        Column("problems", "Problems", INT),
        Column("delta", "Delta (pp)", PP),
        Column("ci", "Repeated 95% CI (pp)", CI_PP),
        Column("p_repeated", "Adjusted p", P),
        Column("saved_trials", "Trials saved", INT),
    ]
    notes = ["Group-sequential looks (Lan-DeMets alpha spending: Hwang-Shih-DeCani gamma -2 with futility on the "
             "observed trend for rule hsd-trend, the default; O'Brien-Fleming type with futility at the MDD for "
             "obf-mdd; Bonferroni over the comparisons of a batch, non-binding futility); the repeated CI and the "
             "repeated p hold whichever look stopped."]
    rows = [r.model_dump() for r in report.sequential or []]
    return Table("sequential", "Sequential stops", columns, rows, notes)


def accuracy_tables(report: StatsReport) -> list[Table]:
    """Every table the report has data for, in the order a paper would show them."""
    tables = [category_table(report), paired_table(report), ablation_table(report)]
    optional: list[tuple[Callable[[StatsReport], Table], bool]] = [
        (category_paired_table, any(p.categories for p in report.pairs)),
        (retry_table, bool(report.retry_budgets)),
        (cost_table, any(a.trials for a in report.arms)),
        (error_table, any(a.errors for a in report.arms)),
        (sampling_table, has_sampling_control(report)),
        (cross_model_table, len({a.model for a in report.arms if a.model}) > 1),
        (sequential_table, bool(report.sequential)),
    ]
    for build, wanted in optional:
        if wanted:
            table = build(report)
            if table.rows:
                tables.append(table)
    return tables

