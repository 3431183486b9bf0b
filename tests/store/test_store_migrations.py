"""Migrations: an older database is upgraded in place with its rows intact, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import Column, Integer, inspect, text

from execugraph.store import LATEST_MIGRATION, Store, make_engine
from execugraph.store import migrations as migrations_module
from execugraph.store.engine import writer
from execugraph.store.migrations import MIGRATIONS, Migration, SchemaTooNewError, applied_migrations, migrate
from execugraph.store.models import STORE_TABLES
from execugraph.store.schema_v1 import initial_metadata
from tests.support.trace_rows import add_step

pytestmark = pytest.mark.integration

T0 = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)


def _seed_v1(url: str) -> None:
    """Build a database at migration 0001 and fill it with one run's worth of rows, as 0001 knew them."""
    engine = make_engine(url)
    assert migrate(engine, target="0001_initial") == ["0001_initial"]
    t = initial_metadata().tables
    with writer(engine).begin() as conn:
        conn.execute(
            t["run"].insert(),
            [
                {
                    "id": 1,
                    "kind": "batch",
                    "title": "old run",
                    "status": "done",
                    "config": {"seeds": [0]},
                    "benchmark": "internal30",
                    "host": "old-host",
                    "versions": {"python": "3.11.0"},
                    "models": {"generator": "ollama:old"},
                    "tags": ["legacy"],
                    "created_at": T0,
                    "started_at": T0,
                    "finished_at": T0,
                    "parent_run_id": None,
                    "progress_total": 1,
                    "progress_done": 1,
                    "progress_passed": 1,
                    "error": None,
                },
            ],
        )
        conn.execute(
            t["trial"].insert(),
            [
                {
                    "id": 10,
                    "run_id": 1,
                    "problem_id": "p1",
                    "benchmark": "internal30",
                    "category": "math",
                    "condition": "multi-full",
                    "seed": 0,
                    "trial_index": 0,
                    "status": "done",
                    "passed": True,
                    "tests_passed": 3,
                    "tests_total": 3,
                    "retries_used": 0,
                    "error_class": None,
                    "test_source": "problem",
                    "final_code": "def f(): return 1",
                    "explanation": "it works",
                    "message": None,
                    "wallclock_s": 2.5,
                    "tokens_in": 100,
                    "tokens_out": 20,
                    "llm_calls": 4,
                    "started_at": T0,
                    "finished_at": T0,
                },
            ],
        )
        conn.execute(
            t["step"].insert(),
            [
                {
                    "id": 100,
                    "trial_id": 10,
                    "seq": 1,
                    "node": "planner",
                    "attempt": 0,
                    "started_at": T0,
                    "ended_at": T0,
                    "output": {"plan": "p"},
                }
            ],
        )
        conn.execute(
            t["llm_call"].insert(),
            [
                {
                    "trial_id": 10,
                    "step_id": 100,
                    "role": "planner",
                    "provider": "ollama",
                    "model": "old",
                    "messages": [{"role": "user", "content": "q"}],
                    "response": "a",
                    "tokens_in": 5,
                    "tokens_out": 1,
                    "latency_s": 0.1,
                    "seed": 0,
                    "temperature": 0.2,
                    "cache_hit": False,
                    "prompt_hash": "h",
                    "created_at": T0,
                }
            ],
        )
        conn.execute(
            t["execution"].insert(),
            [
                {
                    "trial_id": 10,
                    "step_id": 100,
                    "purpose": "grading",
                    "code": "c",
                    "verdict": "passed",
                    "tests_passed": 3,
                    "tests_total": 3,
                    "results": [{"name": "t1", "passed": True}],
                    "stdout": "",
                    "stderr": "",
                    "policy_version": "v0",
                    "isolation": {},
                    "duration_s": 0.3,
                    "created_at": T0,
                }
            ],
        )
        conn.execute(
            t["retrieval_hit"].insert(),
            [{"trial_id": 10, "technique_id": "dp", "technique_name": "DP", "score": 0.7, "rank": 1, "query": "q"}],
        )
        conn.execute(
            t["problem"].insert(),
            [
                {
                    "benchmark": "internal30",
                    "problem_id": "p1",
                    "category": "math",
                    "statement": "s",
                    "entry_point": "f",
                    "aliases": [],
                    "signature": "def f():",
                    "tests": [],
                    "source": "ours",
                }
            ],
        )
        conn.execute(
            t["llm_cache"].insert(),
            [
                {
                    "key": "k",
                    "provider": "ollama",
                    "model": "old",
                    "response": "r",
                    "tokens_in": 1,
                    "tokens_out": 1,
                    "created_at": T0,
                }
            ],
        )
        if conn.dialect.name == "postgresql":  # explicit ids above do not advance the sequences
            for table in ("run", "trial", "step"):
                conn.execute(
                    text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
                )
    engine.dispose()


def test_database_at_0001_is_upgraded_with_rows_intact(db_url: str) -> None:
    _seed_v1(db_url)
    with Store.open(db_url) as store:
        assert store.schema_version() == LATEST_MIGRATION
        assert applied_migrations(store.engine) == [m.name for m in MIGRATIONS]

        run = store.get_run(1)
        assert (run.title, run.status, run.config, run.tags, run.host) == (
            "old run",
            "done",
            {"seeds": [0]},
            ["legacy"],
            "old-host",
        )
        assert run.created_at == T0 and run.models == {"generator": "ollama:old"}
        assert (run.cancel_requested, run.worker_id, run.heartbeat_at) == (False, None, None), "0002 columns defaulted"

        trial = store.get_trial(10)
        assert (trial.problem_id, trial.passed, trial.tests_passed, trial.final_code) == (
            "p1",
            True,
            3,
            "def f(): return 1",
        )
        assert trial.feedback_source is None
        assert (trial.grading_protocol, trial.suite_digest) == (None, None), "0005 columns defaulted"
        assert [(s.seq, s.node, s.output) for s in store.steps_for_trial(10)] == [(1, "planner", {"plan": "p"})]
        assert store.llm_calls_for_trial(10)[0].messages == [{"role": "user", "content": "q"}]
        assert store.executions_for_trial(10)[0].results == [{"name": "t1", "passed": True}]
        assert store.hits_for_trial(10)[0].technique_id == "dp"
        problem = store.get_problem("internal30", "p1")
        assert (problem.statement, problem.difficulty, problem.rationale) == ("s", "", ""), "0003 columns defaulted"
        assert (problem.preamble, problem.timeout_s) == ("", None), "0005 columns defaulted"
        assert store.cache_get("k").response == "r"
        assert store.run_progress(1)["passed"] == 1

        # The upgraded database takes new writes, including the new columns.
        assert add_step(store, 10, "generator") > 100
        assert [s.seq for s in store.steps_for_trial(10)] == [1, 2]
        store.update_run(1, cancel_requested=True, worker_id="w2")
        assert store.get_run(1).cancel_requested is True
        new_trial = store.create_trial(1, "p2", "multi-full", 0, 0, feedback_source="generated")
        assert store.get_trial(new_trial).feedback_source == "generated"


def test_database_at_0002_is_upgraded(db_url: str) -> None:
    engine = make_engine(db_url)
    migrate(engine, target="0002_worker_control")
    assert applied_migrations(engine) == ["0001_initial", "0002_worker_control"]
    engine.dispose()
    with Store.open(db_url) as store:
        assert store.schema_version() == LATEST_MIGRATION


def test_reopening_applies_nothing(db_url: str) -> None:
    with Store.open(db_url) as store:
        assert migrate(store.engine) == []
        assert applied_migrations(store.engine) == [m.name for m in MIGRATIONS]


def _schema(engine) -> dict[str, dict]:
    inspector = inspect(engine)
    schema = {}
    for model in STORE_TABLES:
        name = model.__tablename__
        schema[name] = {
            "columns": {c["name"]: c["nullable"] for c in inspector.get_columns(name)},
            "pk": sorted(inspector.get_pk_constraint(name)["constrained_columns"]),
            "unique": sorted(tuple(u["column_names"]) for u in inspector.get_unique_constraints(name)),
            "indexes": sorted(
                (i["name"], tuple(i["column_names"]))
                for i in inspector.get_indexes(name)
                if not i.get("duplicates_constraint")
            ),
            "fks": sorted(
                (tuple(f["constrained_columns"]), f["referred_table"]) for f in inspector.get_foreign_keys(name)
            ),
        }
    return schema


def _expected_schema() -> dict[str, dict]:
    expected = {}
    for model in STORE_TABLES:
        table = model.__table__
        expected[table.name] = {
            "columns": {c.name: c.nullable for c in table.columns},
            "pk": sorted(c.name for c in table.primary_key.columns),
            "unique": sorted(
                tuple(c.name for c in con.columns)
                for con in table.constraints
                if con.__class__.__name__ == "UniqueConstraint"
            ),
            "indexes": sorted((i.name, tuple(c.name for c in i.columns)) for i in table.indexes),
            "fks": sorted(((fk.parent.name,), fk.column.table.name) for fk in table.foreign_keys),
        }
    return expected


@pytest.mark.parametrize("start", ["empty", "0001_initial"])
def test_migrated_schema_matches_the_models(db_url: str, start: str) -> None:
    """Whatever path a database took, after migrating it is exactly what models.py declares."""
    if start != "empty":
        engine = make_engine(db_url)
        migrate(engine, target=start)
        engine.dispose()
    with Store.open(db_url) as store:
        assert _schema(store.engine) == _expected_schema()


def test_failed_migration_leaves_the_database_as_it_was(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with Store.open(db_url) as store:
        run_id = store.create_run("single", "before", {})

    def broken(conn) -> None:
        migrations_module._add_column(conn, "run", Column("half_done", Integer, nullable=True))
        raise RuntimeError("migration 0004 blew up")

    monkeypatch.setattr(migrations_module, "MIGRATIONS", (*MIGRATIONS, Migration("0004_broken", broken)))
    with pytest.raises(RuntimeError, match="0004 blew up"):
        Store.open(db_url)
    monkeypatch.undo()

    with Store.open(db_url) as store:
        assert store.schema_version() == LATEST_MIGRATION
        assert "half_done" not in {c["name"] for c in inspect(store.engine).get_columns("run")}
        assert store.get_run(run_id).title == "before"


def test_database_from_a_newer_version_is_refused(db_url: str) -> None:
    with Store.open(db_url) as store:
        with writer(store.engine).begin() as conn:
            conn.execute(
                text("INSERT INTO schema_migration (name, applied_at) VALUES ('9999_from_the_future', :t)"), {"t": T0}
            )
    with pytest.raises(SchemaTooNewError, match="9999_from_the_future.*upgrade ExecuGraph"):
        Store.open(db_url)


def test_unknown_target_is_named(db_url: str) -> None:
    engine = make_engine(db_url)
    with pytest.raises(ValueError, match="unknown migration '0042_nope'"):
        migrate(engine, target="0042_nope")
    engine.dispose()
