"""The shipped Alembic migrations build exactly the ORM's schema, idempotently, on both backends."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from monitor.store.db import StoreURLError, make_engine, normalize_url, redacted
from monitor.store.migrate import current_revision, head_revision, upgrade
from monitor.store.models import Base


def test_migrations_match_the_models_and_rerun_cleanly(db_url: str) -> None:
    engine = make_engine(db_url)
    try:
        assert current_revision(engine) is None
        upgrade(engine)
        upgrade(engine)  # applied on every start: must be a no-op the second time
        assert current_revision(engine) == head_revision(engine)
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            diff = compare_metadata(context, Base.metadata)
        assert diff == []
    finally:
        engine.dispose()


def test_sqlite_runs_in_wal_mode_with_full_sync(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    engine.dispose()


@pytest.mark.parametrize(
    ("url", "problem"),
    [("mysql://u@h/db", "unsupported database backend 'mysql'"), ("sqlite://", "needs a SQLite file"),
     ("not a url at all", "not a database URL")],
)
def test_bad_database_urls_are_refused_clearly(url: str, problem: str) -> None:
    with pytest.raises(StoreURLError, match=problem):
        normalize_url(url)


def test_passwords_never_appear_in_messages() -> None:
    assert "s3cret" not in redacted("postgresql://u:s3cret@db/x")
    assert normalize_url("postgresql://u@db/x").drivername == "postgresql+psycopg"
