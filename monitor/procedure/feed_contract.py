"""The procedure monitor as its callers push into it: one event in, the alerts and finished hand
histories it produced out.

The API's ingest (of ``serve`` and of ``run``'s embedded server) and a review push into this shape;
:class:`monitor.procedure.feed.MonitorFeed` is the project's monitor behind it, and
:class:`monitor.pipeline.snapshots.SnapshotFeed` wraps one to attach a picture to each alert.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from monitor.alerts.model import Alert
from monitor.events.schema import Event
from monitor.rules.profile import PaiGowProfile


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

    def close(self) -> FeedOutput:
        """End of the stream: release what is held and close every open round as incomplete."""
        ...

    def warm_up(self) -> None:
        """Do at start-up what would otherwise slow the first events (compiling, building tables)."""
        ...

    def profile_for(self, table_id: str) -> PaiGowProfile:
        """The rule profile that judges ``table_id``."""
        ...
