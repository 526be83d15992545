"""The store tests' own fixture: a session factory on a fresh database (``db_url``: SQLite, and
PostgreSQL where one starts) migrated to the newest schema."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.orm import Session, sessionmaker

from monitor.store.db import make_engine, make_sessionmaker
from monitor.store.migrate import upgrade


@pytest.fixture
def sessions(db_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(db_url)
    upgrade(engine)
    yield make_sessionmaker(engine)
    engine.dispose()
