"""Derived runs (rescores) listed under the run they came from, named by what they re-graded, at their own cost.

Why: a rescore child copies its parent's trials (retries, tokens, LLM calls and wall-clock
describe how each program was produced), so listed on its own it repeats its parent's name
and cost. Here a child is named `<parent name> · rescored <protocol>[ on <tests> tests] #id`
and costs what the rescore cost: no LLM call, no token, the time rescoring took (`—` when
nothing says). A child whose parent is not listed (filtered out, or deleted) keeps a row of
its own, which says so. Names compose `run_names.run_name`; nothing here imports streamlit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from execugraph.domain.run_names import ARM_SEPARATOR, conditions_of, run_name
from execugraph.store import run_reads
from ui.views.formatting import duration

if TYPE_CHECKING:
    from execugraph.store import Store

MISSING = "—"
GONE = "its run is no longer here (deleted, or not imported)"
HIDDEN_COLUMNS = ("id", "title", "parent_id", "derived")  # kept for the page's logic, not drawn
_DEFAULT_TITLE = re.compile(r"^rescore of run \d+(?::\s*(?P<title>.*))?$", re.DOTALL)


@dataclass
class RunGroup:
    """A listed run (a parent, a plain run, or a child whose parent is not listed) and its listed children."""

    row: dict[str, Any]
    children: list[dict[str, Any]] = field(default_factory=list)


def is_rescore(kind: str | None, config: Mapping[str, Any] | None) -> bool:
    """A rescore re-grades stored programs (no LLM call): its kind says so, or its config keeps a rescore report."""
    return kind == "rescore" or isinstance((config or {}).get("rescore"), Mapping)


def rescore_label(config: Mapping[str, Any] | None) -> str:
    """`rescored standalone`, `rescored with-prompt on current tests`, ...: the verdict set a rescore made."""
    summary = (config or {}).get("rescore")
    summary = summary if isinstance(summary, Mapping) else {}
    protocol = summary.get("grading_protocol")
    if isinstance(protocol, Mapping) and protocol:
        words = " + ".join(sorted(str(p) for p in protocol))
    elif isinstance(protocol, str) and protocol:
        words = protocol
    else:
        words = "as recorded"
    tests = summary.get("tests")
    label = f"rescored {words}"
    if isinstance(tests, str) and tests and tests != "recorded":
        tests_words = " ".join(tests.replace("_", " ").replace("-", " ").split())
        label += f" on {tests_words}" + ("" if tests_words.endswith("tests") else " tests")
    return label


def own_seconds(
    started: datetime | None, finished: datetime | None, config: Mapping[str, Any] | None
) -> float | None:
    """How long a rescore took: its run's start to finish, else the duration its report recorded, else None."""
    if isinstance(started, datetime) and isinstance(finished, datetime):
        try:
            seconds = (finished - started).total_seconds()
        except TypeError:  # one aware, one naive: fall back to the recorded duration
            seconds = -1.0
        if seconds >= 0:
            return seconds
    summary = (config or {}).get("rescore")
    recorded = summary.get("duration_s") if isinstance(summary, Mapping) else None
    return float(recorded) if isinstance(recorded, int | float) and recorded >= 0 else None


def family_count(children: Sequence[Mapping[str, Any]]) -> str:
    """`2 rescores`, `1 rescore, 1 derived run`: what a parent's collapsed section holds."""
    rescores = sum(1 for c in children if c.get("derived") == "rescore")
    others = len(children) - rescores
    parts = []
    if rescores:
        parts.append(f"{rescores} rescore{'s' if rescores != 1 else ''}")
    if others:
        parts.append(f"{others} derived run{'s' if others != 1 else ''}")
    return ", ".join(parts)


def listed_rows(groups: Sequence[RunGroup]) -> list[dict[str, Any]]:
    """Every listed row, each parent followed by its children (the order pickers offer them)."""
    return [row for group in groups for row in (group.row, *group.children)]


def _header_name(header: run_reads.RunHeader) -> str:
    return run_name(header.id, header.title, benchmark=header.benchmark, conditions=conditions_of(header.config),
                    created=header.created_at)


def _child_name(row: Mapping[str, Any], header: run_reads.RunHeader, parent: str | None, rescore: bool) -> str:
    """The parent's name (or, the parent gone, the title it had) and what the child did, then the child's #id."""
    title = " ".join((header.title or "").split())
    default = _DEFAULT_TITLE.match(title) if rescore else None
    if default or not title:
        base = parent or (default.group("title") if default and default.group("title") else "") or "a run no longer here"
    elif not rescore and parent and title == " ".join(parent.rsplit(" #", 1)[0].split()):
        base = parent  # a copy titled like its parent
    else:
        base = title
    what = rescore_label(header.config) if rescore else f"derived {header.kind}"
    return f"{base}{ARM_SEPARATOR}{what} #{row['id']}"


def _costs(store: Store, ids: list[int]) -> dict[int, tuple[int, int, str]]:
    return {run_id: (calls, tokens, duration(wall) if done else MISSING)
            for run_id, calls, tokens, wall, done in run_reads.run_cost_rows(store, ids)}


class _Names:
    """Names of the listed runs and their parents, a child's composed from its parent's (grandchildren too)."""

    def __init__(self, headers: dict[int, run_reads.RunHeader], lineage: dict[int, tuple[Any, ...]],
                 rows: dict[int, Mapping[str, Any]]) -> None:
        self.headers, self.lineage, self.rows = headers, lineage, rows
        self.done: dict[int, str] = {}

    def parent_of(self, run_id: int) -> int | None:
        return self.lineage.get(run_id, (None, None, None))[0]

    def derived(self, run_id: int) -> str | None:
        header = self.headers.get(run_id)
        if header is not None and is_rescore(header.kind, header.config):
            return "rescore"
        return "derived" if self.parent_of(run_id) is not None else None

    def name(self, run_id: int, seen: frozenset[int] = frozenset()) -> str | None:
        if run_id in self.done:
            return self.done[run_id]
        header = self.headers.get(run_id)
        if header is None:
            return None
        row = self.rows.get(run_id)
        own = str(row["name"]) if row is not None else _header_name(header)
        kind = self.derived(run_id)
        if kind is not None and run_id not in seen:
            parent = self.parent_of(run_id)
            parent_name = self.name(parent, seen | {run_id}) if parent is not None else None
            own = _child_name({"id": run_id}, header, parent_name, kind == "rescore")
        self.done[run_id] = own
        return own


def _root(run_id: int, names: _Names, listed: set[int]) -> int:
    """The listed ancestor a listed run is grouped under (itself when its parent is not listed)."""
    seen = {run_id}
    while names.derived(run_id) and (parent := names.parent_of(run_id)) in listed and parent not in seen:
        run_id = parent
        seen.add(run_id)
    return run_id


def group_runs(store: Store, rows: Sequence[Mapping[str, Any]]) -> list[RunGroup]:
    """`run_rows` regrouped: children under their listed parent, named by what they did, each at its own cost.

    Every row gains `family` (`2 rescores`, `rescore of #5`, or why its parent is not listed), `llm_calls`,
    `tokens`, `wall_clock` (a rescore's: its own, never its trials' copied numbers), `parent_id` and
    `derived` (`rescore`, `derived` or None). Groups keep the order of `rows`; children keep theirs. A
    rescore of a rescore is listed under the run both came from.
    """
    by_id = {int(r["id"]): r for r in rows}
    listed = set(by_id)
    headers = {h.id: h for h in run_reads.run_headers(store, list(by_id))}
    lineage = run_reads.run_lineage(store, list(by_id))
    missing = sorted({p for p, _, _ in lineage.values() if p is not None} - listed)
    headers |= {h.id: h for h in run_reads.run_headers(store, missing)}
    lineage |= run_reads.run_lineage(store, missing)
    names = _Names(headers, lineage, by_id)
    costs = _costs(store, list(by_id))
    out: dict[int, dict[str, Any]] = {}
    for run_id, row in by_id.items():
        header = headers.get(run_id)
        parent, started, finished = lineage.get(run_id, (None, None, None))
        derived = names.derived(run_id)
        calls, tokens, wall = costs.get(run_id, (0, 0, MISSING))
        if derived == "rescore":
            seconds = own_seconds(started, finished, header.config if header else None)
            calls, tokens, wall = 0, 0, MISSING if seconds is None else duration(seconds)
        family = ""
        if derived:
            if parent is None:
                family = f"{derived}; {GONE}"
            else:
                family = f"{derived} of #{parent}" + ("" if parent in listed else ", not listed here")
        head = {"id": run_id, "name": names.name(run_id) or row["name"], "family": family}
        out[run_id] = {**head, **{k: v for k, v in row.items() if k not in head}, "llm_calls": calls,
                       "tokens": tokens, "wall_clock": wall, "parent_id": parent, "derived": derived}
    roots = {run_id: _root(run_id, names, listed) for run_id in out}
    groups = {run_id: RunGroup(row) for run_id, row in out.items() if roots[run_id] == run_id}
    for run_id, row in out.items():
        if roots[run_id] != run_id:
            if roots[run_id] in groups:
                groups[roots[run_id]].children.append(row)
            else:  # a parent link that loops (never written by the product): listed on its own
                groups[run_id] = RunGroup(row)
    for group in groups.values():
        if group.children:
            count = family_count(group.children)
            group.row["family"] = f"{group.row['family']}; {count}" if group.row["family"] else count
    return list(groups.values())
