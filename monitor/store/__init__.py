"""The alert store: tables, rounds, hand histories, events, alerts and their audit chain.

SQLAlchemy 2 over a single SQLite file (WAL) by default, PostgreSQL by URL; the schema is
owned by the Alembic migrations shipped in ``monitor/store/migrations`` and applied on start.
Events come in through one writer, :mod:`monitor.store.event_writer` (the API's ingest and a
review alike), which keeps each table's state (:mod:`monitor.store.table_state`, what the
dashboard shows) and stores the procedure's alerts as rows (:mod:`monitor.store.alert_records`).
"""
