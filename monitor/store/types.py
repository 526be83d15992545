"""Column types shared by the ORM models."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in, aware UTC datetimes out, on every backend.

    SQLite has no time zones, so values are stored as naive UTC and tagged again on load.
    """

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r} given to a UTC column; attach a time zone")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        assert isinstance(value, datetime)
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


class RawJSON(str):
    """Text that is already JSON (e.g. pydantic's ``model_dump_json``): JSON columns store it as
    is instead of encoding a dict again (see :func:`json_dumps`, the engines' serializer)."""


def json_dumps(value: Any) -> str:
    """The JSON columns' serializer: ``RawJSON`` passes through, anything else is encoded."""
    return value if isinstance(value, RawJSON) else json.dumps(value)
