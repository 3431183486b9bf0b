"""What a batch card shows beyond its progress line: per-condition counts, elapsed time, tokens, the trials
in flight (to open in Trace) and, for a random subset, the problems drawn."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from execugraph.store import batch_cards
from ui.views.formatting import duration

if TYPE_CHECKING:
    from execugraph.store import Run, Store


@dataclass(frozen=True)
class TrialLink:
    """A trial in flight, as Trace names it (`?run=&trial=`)."""

    run_id: int
    trial_id: int
    label: str  # `trial #12 · coin_change · multi-full, running 1 min 05 s`


@dataclass(frozen=True)
class CardDetails:
    """The card's extra lines, ready to draw."""

    conditions: list[str]  # `multi-full: 3/8 finished, 2 passed, 12,400 tokens`
    summary: str  # `elapsed 4 min 10 s · 31,200 tokens`
    in_flight: list[TrialLink] = field(default_factory=list)
    subset: list[str] = field(default_factory=list)  # problems drawn by a random subset (empty: no subset)


def _elapsed(run: Run, now: datetime) -> float | None:
    start = run.started_at
    if start is None:
        return None
    end = run.finished_at if run.status not in ("queued", "running") and run.finished_at else now
    return max((_aware(end) - _aware(start)).total_seconds(), 0.0)


def _aware(moment: datetime) -> datetime:
    from datetime import UTC

    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def card_details(store: Store, run: Run, now: datetime) -> CardDetails:
    """Per-condition counts, elapsed time and tokens, the trials in flight and the subset drawn, of one batch."""
    counts = batch_cards.condition_counts(store, int(run.id))
    lines = [f"{c.condition}: {c.finished}/{c.total} finished, {c.passed}/{c.graded} passed, {c.tokens:,} tokens"
             for c in counts]
    elapsed = _elapsed(run, now)
    tokens = sum(c.tokens for c in counts)
    summary = " · ".join(p for p in (f"elapsed {duration(elapsed)}" if elapsed is not None else "",
                                      f"{tokens:,} tokens") if p)
    links = []
    if run.status == "running":
        for t in batch_cards.in_flight(store, int(run.id)):
            ran = "" if t.started_at is None else f", running {duration((now - _aware(t.started_at)).total_seconds())}"
            label = f"trial #{t.trial_id} · {t.problem_id} · {t.condition}{ran}"
            links.append(TrialLink(int(run.id), t.trial_id, label))
    subset: list[str] = []
    if ((run.config or {}).get("batch") or {}).get("subset"):
        subset = batch_cards.problems_in_order(store, int(run.id))
    return CardDetails(lines, summary, links, subset)
