"""The alert store: tables, rounds, hand histories, events, alerts and their audit chain.

SQLAlchemy 2 over a single SQLite file (WAL) by default, PostgreSQL by URL; the schema is
owned by the Alembic migrations shipped in ``monitor/store/migrations`` and applied on start.
"""
