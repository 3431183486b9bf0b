"""The model-cutoff table (migration 0009) on a real database: rows set, replaced and removed; a database migrated
only to 0008 (as one opened read-only would stay) reads as having no cutoffs instead of failing."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from execugraph.store import Store, make_engine
from execugraph.store.migrations import migrate
from execugraph.store.model_cutoffs import model_cutoffs, remove_model_cutoffs, set_model_cutoff


def test_cutoffs_are_set_replaced_and_removed(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "s.db")) as store:
        set_model_cutoff(store, "ollama:b", "2024-05-01")
        set_model_cutoff(store, "ollama:a", "2023-12-31")
        set_model_cutoff(store, "ollama:b", "2024-06-01")
        assert model_cutoffs(store) == {"ollama:a": "2023-12-31", "ollama:b": "2024-06-01"}
        remove_model_cutoffs(store, ["ollama:a", "unknown"])
    with Store.open(str(tmp_path / "s.db")) as store:
        assert model_cutoffs(store) == {"ollama:b": "2024-06-01"}


def test_a_database_before_0009_has_no_cutoffs(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    try:
        migrate(engine, target="0008_problem_release_date")
        assert model_cutoffs(SimpleNamespace(engine=engine)) == {}  # type: ignore[arg-type]
    finally:
        engine.dispose()
