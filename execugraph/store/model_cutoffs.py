"""Each model's training cutoff, as edited in the dashboard's table: the default "released after" of its runs."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from sqlalchemy import delete, insert, inspect, select

from execugraph.store.engine import writer
from execugraph.store.models import ModelCutoff, utcnow
from execugraph.store.validation import table_of

if TYPE_CHECKING:
    from execugraph.store.store import Store

CUTOFF = table_of(ModelCutoff)


def model_cutoffs(store: Store) -> dict[str, str]:
    """model spec -> training cutoff (YYYY-MM-DD), sorted by model; empty for a database from before migration 0009
    opened read-only (it cannot be migrated, and has no cutoffs)."""
    with store.engine.connect() as conn:
        if not inspect(conn).has_table(CUTOFF.name):
            return {}
        rows = conn.execute(select(CUTOFF.c.model, CUTOFF.c.cutoff).order_by(CUTOFF.c.model))
        return {str(model): str(cutoff) for model, cutoff in rows}


def set_model_cutoff(store: Store, model: str, cutoff: str) -> None:
    """Add or replace one model's cutoff (the date already checked as YYYY-MM-DD)."""
    with writer(store.engine).begin() as conn:
        conn.execute(delete(CUTOFF).where(CUTOFF.c.model == model))
        conn.execute(insert(CUTOFF).values(model=model, cutoff=cutoff, updated_at=utcnow()))


def remove_model_cutoffs(store: Store, models: Iterable[str]) -> None:
    """Forget these models' cutoffs (unknown names are ignored)."""
    names = list(models)
    if names:
        with writer(store.engine).begin() as conn:
            conn.execute(delete(CUTOFF).where(CUTOFF.c.model.in_(names)))
