"""The procedure monitor as the API sees it: push one event, get the alerts and finished hand
histories it produced. ``procedure_feed()`` adapts the project's stream feed to this shape."""

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
    from monitor.api.procedure_adapter import StreamFeedAdapter

    return StreamFeedAdapter()
