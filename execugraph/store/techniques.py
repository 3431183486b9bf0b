"""Technique library rows: a database's edits to the library (append-only) and the libraries runs searched.

The rules (what an edit may do, how the library is put together) live in
`execugraph.store.technique_library`; this module only writes and reads the rows.
"""

from __future__ import annotations

from sqlmodel import Session, select

from execugraph.domain.json_types import JsonObject
from execugraph.store.dialect_insert import insert_for
from execugraph.store.models import TechniqueEdit, TechniqueLibrarySnapshot, utcnow
from execugraph.store.transactions import StoreCore
from execugraph.store.validation import table_of

EDIT_ACTIONS = ("add", "update")


class TechniqueRecords(StoreCore):
    """The Store's technique-library methods (see `Store`)."""

    def add_technique_edit(self, action: str, technique: JsonObject) -> int:
        """Append one edit (the whole technique as a dict with an `id`); returns the edit's id."""
        if action not in EDIT_ACTIONS:
            raise ValueError(f"TechniqueEdit.action must be one of {', '.join(EDIT_ACTIONS)}; got {action!r}")
        technique_id = technique.get("id") if isinstance(technique, dict) else None
        if not isinstance(technique_id, str) or not technique_id:
            raise ValueError("TechniqueEdit.technique must be a dict with a non-empty 'id'")
        values = {"technique_id": technique_id, "action": action, "technique": dict(technique),
                  "created_at": utcnow()}
        edits = table_of(TechniqueEdit)

        def work(session: Session) -> int:
            row = TechniqueEdit(**values)
            session.add(row)
            session.flush()
            return int(row.id)  # type: ignore[arg-type]

        def found(session: Session) -> int | None:
            row = session.exec(select(edits.c.id).where(edits.c.technique_id == technique_id,
                                                        edits.c.created_at == values["created_at"])).first()
            return None if row is None else int(row[0] if isinstance(row, tuple) else row)

        return self._transact(f"store an edit of technique {technique_id!r}", work, found=found)

    def technique_edits(self) -> list[TechniqueEdit]:
        """Every edit of this database's library, oldest first."""
        with self._read() as session:
            return list(session.exec(select(TechniqueEdit).order_by(table_of(TechniqueEdit).c.id)))

    def save_library_snapshot(self, digest: str, techniques: list[JsonObject]) -> None:
        """Keep `techniques` under `digest` unless a library with that digest is kept already."""
        if not isinstance(digest, str) or len(digest) != 64:
            raise ValueError(f"TechniqueLibrarySnapshot.digest must be a 64-character sha256; got {digest!r}")
        if not techniques:
            raise ValueError("TechniqueLibrarySnapshot.techniques is empty")
        values = {"digest": digest, "techniques": list(techniques), "size": len(techniques), "created_at": utcnow()}
        table = table_of(TechniqueLibrarySnapshot)

        def work(session: Session) -> None:
            if self._dialect in ("sqlite", "postgresql"):
                insert = insert_for(self._dialect)
                session.exec(insert(table).values(**values).on_conflict_do_nothing(index_elements=["digest"]))
            elif session.get(TechniqueLibrarySnapshot, digest) is None:
                session.add(TechniqueLibrarySnapshot(**values))

        self._transact(f"keep technique library {digest[:12]}", work)

    def library_snapshot(self, digest: str) -> list[JsonObject] | None:
        """The techniques kept under `digest`, in order, or None when this database has no such library."""
        with self._read() as session:
            row = session.get(TechniqueLibrarySnapshot, digest)
        return None if row is None else list(row.techniques)
