"""Alembic environment: runs against the engine handed over by ``monitor.store.migrate``."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Engine

from monitor.store.models import Base

config = context.config
engine = config.attributes.get("engine")
if not isinstance(engine, Engine):
    raise RuntimeError("run migrations through monitor.store.migrate.upgrade(engine), not the alembic CLI")

with engine.connect() as connection:
    context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
    connection.commit()
