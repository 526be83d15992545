"""The procedure monitor as its callers push into it: one event in, the alerts and finished hand
histories it produced out.

The API's ingest, the live pipeline's snapshot wrapper and the review all speak this shape;
``procedure_feed()`` gives the project's monitor behind it (:mod:`monitor.procedure.feed_adapter`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from monitor.alerts.model import Alert
from monitor.events.schema import Event


@dataclass(frozen=True, slots=True)
class HistoryRecord:
    table_id: str
    round_id: str
    game: str | None
    data: dict[str, Any]


@dataclass(slots=True)
class FeedOutput:
    alerts: list[Alert] = field(default_factory=list)
    histories: list[HistoryRecord] = field(default_factory=list)


class ProcedureFeed(Protocol):
    def push(self, event: Event) -> FeedOutput: ...

    def flush(self) -> FeedOutput:
        """Release events held back waiting for a missing sequence number (called when idle)."""
        ...


def procedure_feed() -> ProcedureFeed:
    """The project's procedure monitor behind the :class:`ProcedureFeed` shape."""
    from monitor.procedure.feed_adapter import StreamFeedAdapter

    return StreamFeedAdapter()
