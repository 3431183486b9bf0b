"""Problems kept with their tests (so ad-hoc ones stay reviewable) and the LLM response cache: upserts and reads."""

from __future__ import annotations

from collections.abc import Mapping

from sqlmodel import Session, SQLModel, select

from execugraph.domain.problem import Problem
from execugraph.store.dialect_insert import insert_for
from execugraph.store.models import LLMCacheEntry, ProblemRecord, utcnow
from execugraph.store.transactions import StoreCore
from execugraph.store.validation import table_of


class ProblemCacheRecords(StoreCore):
    """The Store's problem and LLM-cache methods (see `Store`)."""

    def _upsert(self, model: type[SQLModel], values: Mapping[str, object], key: list[str]) -> None:
        table = table_of(model)

        def work(session: Session) -> None:
            if self._dialect in ("sqlite", "postgresql"):
                dialect_insert = insert_for(self._dialect)
                stmt = dialect_insert(table).values(**values)
                changes = {name: stmt.excluded[name] for name in values if name not in key}
                session.exec(stmt.on_conflict_do_update(index_elements=key, set_=changes))
            else:
                session.merge(model(**values))

        self._transact(f"store a {model.__name__}", work)

    def upsert_problem(self, problem: Problem) -> None:
        """Store `problem`, replacing an earlier copy with the same benchmark and id."""
        record = ProblemRecord.from_problem(problem)
        self._upsert(ProblemRecord, record.model_dump(), ["benchmark", "problem_id"])

    def get_problem(self, benchmark: str, problem_id: str) -> Problem | None:
        """The stored Problem, or None."""
        with self._read() as session:
            record = session.get(ProblemRecord, (benchmark, problem_id))
        return None if record is None else record.to_problem()

    def problems_of(self, benchmark: str) -> dict[str, Problem]:
        """Every stored Problem of `benchmark` by id, in one query (a rescore reads hundreds)."""
        with self._read() as session:
            rows = session.exec(select(ProblemRecord).where(ProblemRecord.benchmark == benchmark)).all()
        return {row.problem_id: row.to_problem() for row in rows}

    def cache_get(self, key: str) -> LLMCacheEntry | None:
        """The cached completion for `key`, or None."""
        with self._read() as session:
            return session.get(LLMCacheEntry, key)

    def cache_put(self, key: str, provider: str, model: str, response: str, tokens_in: int, tokens_out: int) -> None:
        """Cache a completion under `key` (a later put with the same key replaces it)."""
        values = {
            "key": key,
            "provider": provider,
            "model": model,
            "response": response,
            "tokens_in": tokens_in,
            "tokens_out": tokens_out,
            "created_at": utcnow(),
        }
        self._upsert(LLMCacheEntry, values, ["key"])

