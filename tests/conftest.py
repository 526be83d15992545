"""Fixtures every test package may use: the databases of the store and API tests (a SQLite file, a
throwaway PostgreSQL).
What is not a fixture (stand-ins, builders, paths) is in tests/support/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.postgres import PgCluster, started_cluster


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """A PostgreSQL cluster for the whole run (skipped where none can be started)."""
    yield from started_cluster()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database: a SQLite file, or a new database in the throwaway cluster."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    return cluster.new_database()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A fresh SQLite file's URL (the file not yet there)."""
    return f"sqlite:///{tmp_path / 'store.db'}"
