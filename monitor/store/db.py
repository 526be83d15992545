"""Engines and sessions: SQLite (WAL, one writer at a time) by default, PostgreSQL by URL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.orm import Session, sessionmaker

from monitor.store.types import json_dumps

DEFAULT_DB_URL = "sqlite:///table-monitor.db"


class StoreURLError(ValueError):
    """A database URL that the store cannot use."""


def normalize_url(url: str) -> URL:
    """Parse ``url``; plain ``postgresql://`` gets the psycopg 3 driver that the project ships."""
    try:
        parsed = make_url(url)
    except Exception:  # the parser's message quotes the whole URL, password included: keep it out
        raise StoreURLError("not a database URL (expected sqlite:///FILE or postgresql://...)") from None
    backend = parsed.get_backend_name()
    if backend == "postgresql" and parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    if backend not in ("sqlite", "postgresql"):
        raise StoreURLError(f"unsupported database backend {backend!r}: use sqlite or postgresql")
    if backend == "sqlite" and parsed.database in (None, "", ":memory:"):
        raise StoreURLError("the store needs a SQLite file, not an in-memory database")
    return parsed


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets readers run while one writer commits; synchronous=FULL makes each commit survive a
    # power cut, which is what "acknowledged only after committed" promises to a sensor.
    dbapi_connection.isolation_level = None  # we issue BEGIN ourselves (below)
    cur = dbapi_connection.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=FULL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.close()


READ_ONLY = "table_monitor_read_only"


def _sqlite_begin(conn: Any) -> None:
    # Writers take the write lock at BEGIN: the audit chain reads its head then appends, and a
    # deferred transaction could not upgrade its lock when another process wrote in between.
    # Readers begin deferred: in WAL mode they never block the writer, nor it them.
    read_only = conn.get_execution_options().get(READ_ONLY, False)
    conn.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")


def make_engine(url: str, *, echo: bool = False) -> Engine:
    """An engine for ``url``; SQLite files get WAL, FULL sync and immediate transactions."""
    parsed = normalize_url(url)
    if parsed.get_backend_name() == "sqlite":
        assert parsed.database is not None
        Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(parsed, echo=echo, json_serializer=json_dumps,
                               connect_args={"check_same_thread": False, "timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    return create_engine(parsed, echo=echo, json_serializer=json_dumps, pool_pre_ping=True, pool_size=10,
                         max_overflow=20)


def make_sessionmaker(engine: Engine, *, read_only: bool = False) -> sessionmaker[Session]:
    """Sessions on ``engine``; ``read_only`` ones never take SQLite's write lock."""
    bind = engine.execution_options(**{READ_ONLY: True}) if read_only else engine
    return sessionmaker(bind, expire_on_commit=False)


def redacted(url: str) -> str:
    """``url`` with any password hidden, for logs and messages."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "<unparseable database URL>"
