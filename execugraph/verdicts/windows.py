"""Contamination windows: every comparison on all problems and again on the problems released in a date window.

A model may have seen a problem published before its training cutoff, so a
comparison is also shown on the problems released after it. The window is
given (`--released-after`, `--released-before`: strictly after / strictly
before, dates as YYYY-MM-DD) or, per pair, is "released after the later
training cutoff of the two models compared" (`--cutoff MODEL=DATE`). The
windowed numbers come from the same report engine on the records of the
problems in the window, so each has its own n, CI and Holm-adjusted p (Holm over
the family as it stands in that window). Problems without a release date are
counted and named, never silently dropped; the conclusion rule is
`verdicts.compare.conclusion`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any

from execugraph.domain.json_types import JsonObject

if TYPE_CHECKING:  # the statistics (scipy) load where a window is compared: `batch` only parses dates here
    from execugraph.stats.family import Family
    from execugraph.stats.records import TrialRecord
    from execugraph.stats.report_model import PairSection, StatsReport
    from execugraph.store import Store

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def parse_date(value: Any, where: str) -> str:
    """`value` as a YYYY-MM-DD date; ValueError naming `where` (e.g. file, record and field) otherwise."""
    text = value if isinstance(value, str) else None
    if text is not None and _DATE.fullmatch(text.strip()):
        try:
            return date.fromisoformat(text.strip()).isoformat()
        except ValueError:
            pass
    return _raise(f"{where}: {value!r} is not a date in YYYY-MM-DD form")


def _raise(message: str) -> str:
    raise ValueError(message)


def parse_cutoffs(items: Iterable[str] | None) -> dict[str, str]:
    """`MODEL=DATE` items (the `--cutoff` flag) as model -> date; ValueError naming the bad item."""
    cutoffs: dict[str, str] = {}
    for item in items or ():
        model, sep, when = item.rpartition("=")
        if not sep or not model.strip():
            raise ValueError(f"--cutoff {item!r}: expected MODEL=DATE")
        cutoffs[model.strip()] = parse_date(when, f"--cutoff {item!r}")
    return cutoffs


@dataclass(frozen=True)
class Window:
    """Problems released strictly after `after` and strictly before `before` (either may be open)."""

    after: str | None = None
    before: str | None = None

    def __post_init__(self) -> None:
        if self.after and self.before and self.after >= self.before:
            raise ValueError(f"empty window: released after {self.after} and before {self.before}")

    @property
    def open(self) -> bool:
        """No bound at all (every dated problem is inside)."""
        return not self.after and not self.before

    def holds(self, released: str) -> bool:
        """Whether a problem released on `released` (YYYY-MM-DD) is inside."""
        return (not self.after or released > self.after) and (not self.before or released < self.before)

    def describe(self) -> str:
        """The window in words: 'released after 2024-05-01 and before 2024-09-01'."""
        parts = [f"after {self.after}" if self.after else "", f"before {self.before}" if self.before else ""]
        return "released " + " and ".join(p for p in parts if p) if not self.open else "every dated problem"


@dataclass
class WindowPair:
    """One comparison on all problems and in its window, and whether the conclusion holds there."""

    a: str
    b: str
    a_name: str
    b_name: str
    window: Window
    full: JsonObject
    windowed: JsonObject | None  # None: no common problem of the two arms in the window
    holds: bool | None  # None: the window cannot test it
    sentence: str


@dataclass
class WindowSection:
    """The windowed comparisons of a report, and the problems that could not be placed in a window."""

    windows: list[Window]
    pairs: list[WindowPair] = field(default_factory=list)
    arms: list[JsonObject] = field(default_factory=list)  # per arm and window: its rate on the window's problems
    undated: list[str] = field(default_factory=list)
    inside: dict[str, int] = field(default_factory=dict)  # window described -> problems in it
    cutoffs: dict[str, str] = field(default_factory=dict)

    def to_json_dict(self) -> JsonObject:
        """What `stats --json` and reproduce.json carry."""
        return {
            "windows": [{"after": w.after, "before": w.before, "problems": self.inside.get(w.describe(), 0)}
                        for w in self.windows],
            "cutoffs": dict(self.cutoffs),
            "undated": {"count": len(self.undated), "problems": list(self.undated)},
            "arms": list(self.arms),
            "pairs": [{"a": p.a, "b": p.b, "a_name": p.a_name, "b_name": p.b_name, "released_after": p.window.after,
                       "released_before": p.window.before, "all": p.full, "window": p.windowed,
                       "holds": p.holds, "sentence": p.sentence} for p in self.pairs],
        }


PAIR_KEYS = ("n", "delta_pp", "ci_lo", "ci_hi", "p_wilcoxon", "p_holm", "p_mcnemar", "p_holm_mcnemar")


def _values(pair: PairSection) -> JsonObject:
    return {k: getattr(pair, k) for k in PAIR_KEYS}


def pair_window(a_model: str | None, b_model: str | None, explicit: Window, cutoffs: Mapping[str, str]) -> Window:
    """The pair's window: the explicit one when it has a lower bound, else after the later of the models' cutoffs."""
    if explicit.after or not cutoffs:
        return explicit
    known = [cutoffs[m] for m in (a_model, b_model) if m and m in cutoffs]
    return Window(max(known), explicit.before) if known else explicit


def _verdict(values: Mapping[str, Any], a: str, b: str) -> str:
    from execugraph.verdicts.compare import conclusion

    found = conclusion(values)
    p = values.get("p_holm")
    shown_p = "n/a" if p is None else f"{p:.3g}"
    if not found.significant:
        return f"no significant difference (delta {values['delta_pp']:+.1f} pp, Holm p {shown_p})"
    ahead = b if found.direction > 0 else a
    return f"{ahead} ahead by {abs(values['delta_pp']):.1f} pp (Holm p {shown_p})"


def window_sentence(a: str, b: str, full: Mapping[str, Any], windowed: Mapping[str, Any] | None,
                    window: Window) -> tuple[bool | None, str]:
    """(whether the conclusion holds in the window, one sentence saying so with both numbers)."""
    from execugraph.verdicts.compare import survives

    head = f"{b} vs {a}"
    on_all = f"on all {full['n']} common problems, {_verdict(full, a, b)}"
    if not windowed or not windowed.get("n"):
        return None, f"{head}: untested in the window ({window.describe()}): no common problem falls in it; {on_all}."
    from execugraph.verdicts.compare import conclusion

    holds = survives(full, windowed)
    before, after = conclusion(full), conclusion(windowed)
    why = "the direction changes" if before.direction != after.direction else "its significance changes"
    said = "the conclusion holds in the window" if holds else f"the conclusion does NOT hold in the window ({why})"
    inside = f"on the {windowed['n']} {window.describe()}, {_verdict(windowed, a, b)}"
    return holds, f"{head}: {said}: {on_all}; {inside}."


def windowed_comparisons(
    full: StatsReport,
    items: Iterable[Mapping[str, Any] | Any],
    dates: Mapping[str, str],
    run_ids: Sequence[str],
    conditions: Sequence[str] | None = None,
    *,
    window: Window | None = None,
    cutoffs: Mapping[str, str] | None = None,
    runs_meta: Mapping[str, Mapping[str, Any]] | None = None,
    family: Family | None = None,
    names: Mapping[str, str] | None = None,
) -> WindowSection:
    """Every pair of `full` again on the records whose problem's release date is in its window.

    `items` are the trial records `full` was computed from, `dates` problem id -> YYYY-MM-DD, `names`
    arm label -> the name to show (default: the report's).
    Raises ValueError when neither a window bound nor a cutoff is given.
    """
    from execugraph.stats.from_records import build_report_from_records
    from execugraph.stats.records import to_records

    explicit = window or Window()
    cutoffs = dict(cutoffs or {})
    if explicit.open and not cutoffs:
        raise ValueError("a contamination window needs --released-after, --released-before or --cutoff MODEL=DATE")
    records: list[TrialRecord] = to_records(items)
    problems = sorted({r.problem_id for r in records})
    undated = [p for p in problems if p not in dates]
    models = {a.label: a.model for a in full.arms}
    per_pair = {(p.a, p.b): pair_window(models.get(p.a), models.get(p.b), explicit, cutoffs) for p in full.pairs}
    windows = list(dict.fromkeys(per_pair.values())) or [explicit]
    reports: dict[Window, StatsReport | None] = {}
    section = WindowSection(windows=windows, undated=undated, cutoffs=cutoffs)
    for w in windows:
        inside = {p for p in problems if p in dates and w.holds(dates[p])}
        section.inside[w.describe()] = len(inside)
        kept = [r for r in records if r.problem_id in inside]
        reports[w] = build_report_from_records(kept, run_ids, conditions, runs_meta=runs_meta,
                                               family=family) if kept else None
        section.arms += _arm_rows(full, reports[w], w, names or {})
    for pair in full.pairs:
        w = per_pair[(pair.a, pair.b)]
        report = reports[w]
        match = next((p for p in report.pairs if (p.a, p.b) == (pair.a, pair.b)), None) if report else None
        full_values = _values(pair)
        windowed = _values(match) if match else None
        a_name, b_name = (names or {}).get(pair.a, pair.a_shown), (names or {}).get(pair.b, pair.b_shown)
        holds, sentence = window_sentence(a_name, b_name, full_values, windowed, w)
        section.pairs.append(WindowPair(pair.a, pair.b, a_name, b_name, w, full_values, windowed, holds, sentence))
    return section


def _arm_rows(full: StatsReport, report: StatsReport | None, w: Window, names: Mapping[str, str]) -> list[JsonObject]:
    inside = {a.label: a for a in report.arms} if report else {}
    rows = []
    for arm in full.arms:
        got = inside.get(arm.label)
        rows.append({"arm": arm.label, "name": names.get(arm.label, arm.shown), "released_after": w.after, "released_before": w.before,
                     "all": {"problems": arm.problems, "pass_rate": arm.pass_rate, "ci_lo": arm.ci_lo,
                             "ci_hi": arm.ci_hi},
                     "window": {"problems": got.problems if got else 0, "pass_rate": got.pass_rate if got else None,
                                "ci_lo": got.ci_lo if got else None, "ci_hi": got.ci_hi if got else None}})
    return rows


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100.0 * value:.1f}%"


def window_lines(section: WindowSection) -> list[str]:
    """The section as text for the terminal and the Markdown report."""
    out = ["Contamination window (each comparison on all problems and on the problems in its window)"]
    for w in section.windows:
        out.append(f"- {w.describe()}: {section.inside.get(w.describe(), 0)} problem(s)")
    if section.cutoffs:
        out.append("- training cutoffs: " + ", ".join(f"{m} {d}" for m, d in section.cutoffs.items()))
    if section.undated:
        shown = ", ".join(section.undated[:20]) + (" ..." if len(section.undated) > 20 else "")
        out.append(f"- {len(section.undated)} problem(s) without a release date, left out of every window: {shown}")
    else:
        out.append("- every problem has a release date")
    out += ["", "Pass rate on all problems and in the window"]
    for row in section.arms:
        where = Window(row["released_after"], row["released_before"]).describe()
        out.append(f"- {row['name']}: {_pct(row['all']['pass_rate'])} on {row['all']['problems']} problem(s); "
                   f"{_pct(row['window']['pass_rate'])} on {row['window']['problems']} {where}")
    if section.pairs:
        out += ["", "Comparisons in the window"]
        out += [f"- {p.sentence}" for p in section.pairs]
    return out


def store_windowed_comparisons(store: Store, full: StatsReport, run_ids: Sequence[str], conditions: Sequence[str] | None,
                               *, window: Window | None = None, cutoffs: Mapping[str, str] | None = None,
                               family: Family | None = None) -> WindowSection:
    """`windowed_comparisons` for stored runs: their trials, and release dates from what the store kept."""
    from execugraph.store import run_reads
    from execugraph.store.release_dates import release_dates
    from execugraph.verdicts.compare import runs_meta
    from execugraph.verdicts.verdict_sets import trial_records

    keys = [int(r) for r in run_ids]
    records = [rec for key in keys for rec in trial_records(store, key)]
    meta = runs_meta(run_reads.run_headers(store, keys))
    return windowed_comparisons(full, records, release_dates(store, keys), [str(k) for k in keys], conditions,
                                window=window, cutoffs=cutoffs, runs_meta=meta, family=family)
