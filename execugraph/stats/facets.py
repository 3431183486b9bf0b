"""Pass rate per arm by problem difficulty and by platform, beside the category breakdown, where problems carry them.

LiveCodeBench problems carry both (difficulty easy / medium / hard; platform leetcode /
atcoder / codeforces); APPS and user suites may carry a difficulty. Each cell is the
arm's pooled pass rate on the problems of that value with its Wilson interval over
problems (`stats.rates.rate_summary`, as the category rates) and n (problems). A
problem without the value counts under "unknown", so nothing is dropped; a facet no
problem carries is left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from execugraph.domain.json_types import JsonObject
from execugraph.stats.rates import rate_summary
from execugraph.stats.records import ProblemTally, to_records
from execugraph.stats.report_model import StatsReport

FACETS = ("difficulty", "platform")
UNKNOWN = "unknown"
ORDER = {"easy": 0, "medium": 1, "hard": 2, "introductory": 0, "interview": 1, "competition": 2}


def _sort_key(value: str) -> tuple[int, str]:
    return (1 if value == UNKNOWN else 0, f"{ORDER.get(value, 9)}{value}")


def facet_breakdowns(full: StatsReport, items: Iterable[Mapping[str, Any] | Any],
                     facets: Mapping[str, Mapping[str, str]], names: Mapping[str, str] | None = None) -> JsonObject:
    """facet -> rows {value, arm, name, problems, trials, passed, pass_rate, ci_lo, ci_hi}, arms in report order.

    `items` are the trial records `full` was built from; `facets` problem id -> {facet: value}; `names`
    arm label -> the name to show (default: the report's).
    Only facets at least one of the records' problems carries appear.
    """
    records = [r for r in to_records(items) if r.counted]
    problems = {r.problem_id for r in records}
    out: JsonObject = {}
    for facet in FACETS:
        values = {p: (facets.get(p) or {}).get(facet) or UNKNOWN for p in problems}
        if all(v == UNKNOWN for v in values.values()):
            continue
        rows = []
        for arm in full.arms:
            groups: dict[str, dict[str, ProblemTally]] = {}
            for rec in records:
                if rec.run_id != arm.run or (arm.condition is not None and rec.condition != arm.condition):
                    continue
                value = values[rec.problem_id]
                tally = groups.setdefault(value, {}).setdefault(rec.problem_id, ProblemTally(rec.problem_id, value))
                tally.trials += 1
                tally.passed += int(rec.passed is True)
            for value in sorted(groups, key=_sort_key):
                summary = rate_summary(groups[value].values())
                rows.append({"value": value, "arm": arm.label, "name": (names or {}).get(arm.label, arm.shown), **summary.as_dict()})
        out[facet] = rows
    return out


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100.0 * value:.1f}%"


def facet_lines(breakdowns: Mapping[str, Any]) -> list[str]:
    """The breakdowns as text (terminal and the Markdown report): one block per facet, one line per arm and value."""
    out: list[str] = []
    for facet, rows in breakdowns.items():
        out += ["", f"Pass rate by {facet} (95% Wilson CI over problems; n = problems)"]
        for row in rows:
            ci = ("" if row["ci_lo"] is None else
                  f" [{100.0 * row['ci_lo']:.1f}, {100.0 * row['ci_hi']:.1f}]")
            out.append(f"- {row['name']}, {row['value']}: {_pct(row['pass_rate'])}{ci}, n = {row['problems']} "
                       f"({row['passed']}/{row['trials']} trials)")
    return out
