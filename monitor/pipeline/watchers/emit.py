"""Where the watchers' events are stamped and queued, in the order they were confirmed."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from monitor.events.schema import EVENT_TYPES, EventBase, Source

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


class Outbox:
    """Stamps each event (table, sequence number, media and wall time, source, confidence) and keeps
    it until taken. One outbox is shared by a table's watchers, so the sequence numbers follow the
    order the events were confirmed in, whichever watcher confirmed them.

    ``before``: called with each event's type before it is stamped; the deal watcher sends the cards
    it still holds there, so that what closes or follows the deal comes after its cards.
    """

    def __init__(self, table_id: str, next_seq: Callable[[], int] | None = None,
                 wall_time: Callable[[float], datetime] | None = None) -> None:
        self.table_id = table_id
        counter = itertools.count()
        self._next_seq = next_seq or (lambda: next(counter))
        self._wall = wall_time or (lambda t: EPOCH + timedelta(seconds=t))
        self.before: Callable[[str], None] | None = None
        self.now = 0.0  # the frame being judged: what an event is dated at unless told otherwise
        self.frame = 0
        self._events: list[EventBase] = []

    def at(self, frame: int, now: float) -> None:
        self.frame, self.now = frame, now

    def emit(self, etype: str, confidence: float = 1.0, source: Source = Source.VISION,
             at: tuple[float, int] | None = None, **fields: Any) -> None:
        """``at``: (media time, frame) the event happened at, when earlier than the frame confirming it."""
        if self.before is not None:
            self.before(etype)
        t, frame = at if at is not None else (self.now, self.frame)
        cls = EVENT_TYPES[etype]
        self._events.append(cls(
            table_id=self.table_id, seq=self._next_seq(), media_time=max(0.0, t), frame=frame,
            wall_time=self._wall(t), source=source, confidence=max(0.0, min(1.0, confidence)),
            **fields,
        ))

    def take(self) -> list[EventBase]:
        """The events queued since the last take, in order."""
        out, self._events = self._events, []
        return out

    @property
    def queued(self) -> list[EventBase]:
        """The events queued and not yet taken (read only)."""
        return list(self._events)
