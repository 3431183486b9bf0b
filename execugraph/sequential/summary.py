"""A sequential batch's state in words: what `status`, `stats`, the report and the Batch page say."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from execugraph.sequential.state import ArmState, SequentialState
    from execugraph.stats.report_model import SequentialRow
    from execugraph.store import Run, Store


def _pp(x: float) -> str:
    return f"{x * 100:+.1f} pp"


def arm_line(arm: str, baseline: str, entry: ArmState, *, alpha: float, mdd: float, rule: str = "obf-mdd") -> str:
    """One comparison: its decision, the look, the difference with its repeated CI and p (or its power)."""
    looks = entry.get("looks") or []
    if not looks:
        return f"{arm} vs {baseline}: no look yet"
    last = looks[-1]
    where = f"look {last['look']} of {last['looks']} ({last['problems']} of {last['planned']} problems)"
    if last["ci_high"] > last["ci_low"]:
        ci = f"repeated {1 - alpha:.0%} CI [{_pp(last['ci_low'])}, {_pp(last['ci_high'])}]"
    else:  # a look stored before intervals had a floor, on problems that all agreed: no interval to quote
        ci = f"no repeated {1 - alpha:.0%} CI yet (its {last['problems']} problems all agree)"
    decision = entry.get("decision", "continue")
    if decision == "efficacy":
        p = last.get("p_repeated")
        return (f"{arm} vs {baseline}: differs, decided at {where}: {_pp(last['delta'])}, {ci}"
                + ("" if p is None else f", adjusted p = {p:.3g}"))
    if decision == "futility":
        cp = last.get("conditional_power") or 0.0
        if rule == "hsd-trend":
            return (f"{arm} vs {baseline}: stopped for futility at {where}: {_pp(last['delta'])}, {ci}; "
                    f"predictive power {cp:.1%} on the observed trend")
        return (f"{arm} vs {baseline}: stopped for futility at {where}: {_pp(last['delta'])}, {ci}; "
                f"conditional power {cp:.0%} at the {mdd * 100:.1f} pp MDD")
    if decision == "not significant":
        return f"{arm} vs {baseline}: no difference found at the final look ({where}): {_pp(last['delta'])}, {ci}"
    return f"{arm} vs {baseline}: open after {where}: {_pp(last['delta'])}, {ci}"


def describe(state: SequentialState | None, *, alpha: float = 0.05) -> list[str]:
    """The headline (stopped at which look, trials saved) and one line per comparison; [] without a state."""
    if not state:
        return []
    arms: dict[str, ArmState] = state.get("arms") or {}
    baseline = state.get("baseline", "?")
    decided = [a for a, e in arms.items() if e.get("decision", "continue") != "continue"]
    saved = int(state.get("saved_trials") or 0)
    if state.get("stopped"):
        stops = [e.get("stopped_at_look") or 0 for e in arms.values()]
        last = max((e["looks"][-1] for e in arms.values() if e.get("looks")), key=lambda x: x["look"], default=None)
        at = "" if last is None else f" at look {max(stops)} of {last['looks']}"
        head = f"sequential: stopped{at}, every comparison decided; {saved} trials saved"
    else:
        head = f"sequential: {len(decided)} of {len(arms)} comparisons decided"
        if saved:
            head += f"; {saved} trials saved so far"
    if len(arms) > 1:
        head += f" (each comparison at level {alpha:g}/{len(arms)}, Bonferroni)"
    sizes, asked = state.get("look_sizes") or [], state.get("looks_asked")
    if asked and 0 < len(sizes) < asked:
        head += f"; {len(sizes)} looks ({asked} asked: with {state.get('planned_problems')} problems a look comes " \
                "at most once per problem)"
    mdd = float(state.get("mdd") or 0.0)
    rule = str(state.get("rule") or "obf-mdd")  # states stored before rules had names used obf-mdd
    return [head] + [arm_line(a, baseline, e, alpha=alpha, mdd=mdd, rule=rule) for a, e in arms.items()]


def state_of(run: Run) -> SequentialState | None:
    """The stored sequential state of a batch run, if it is a sequential batch that has started."""
    config = run.config or {}
    return config.get("sequential_state")


def alpha_of(run: Run) -> float:
    """The family level the batch was planned at."""
    design = ((run.config or {}).get("batch") or {}).get("sequential") or {}
    return float(design.get("alpha", 0.05))


def report_section(store: Store, run_labels: list[str]) -> list[SequentialRow]:
    """One row per comparison of every sequential batch among the runs (labels `RUN` or `RUN:CONDITION`)."""
    from execugraph.stats.report_model import SequentialRow  # the stats package is heavy; `status` needs none of it

    rows: list[SequentialRow] = []
    seen: set[int] = set()
    for label in run_labels:
        head = str(label).partition(":")[0]
        if not head.isdigit() or int(head) in seen:
            continue
        seen.add(int(head))
        run = store.get_run(int(head))
        state = state_of(run) if run is not None else None
        if not state:
            continue
        for arm, entry in (state.get("arms") or {}).items():
            last = (entry.get("looks") or [None])[-1]
            rows.append(SequentialRow(
                run=int(head), comparison=f"{arm} vs {state.get('baseline')}",
                decision=entry.get("decision", "continue"),
                look=None if last is None else f"{last['look']} of {last['looks']}",
                problems=None if last is None else last["problems"],
                planned=None if last is None else last["planned"],
                delta=None if last is None else 100 * last["delta"],  # percentage points, as tables show them
                ci=None if last is None else (100 * last["ci_low"], 100 * last["ci_high"]),
                p_repeated=None if last is None else last.get("p_repeated"),
                saved_trials=entry.get("saved_trials", 0),
                lines=describe(state, alpha=alpha_of(run)),
            ))
    return rows
