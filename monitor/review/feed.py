"""The procedure monitor as a review feeds it: events in, alerts (with snapshots) and hand histories out.

The same monitor the live API runs (:class:`monitor.procedure.monitor.Monitor`), wrapped in the live
pipeline's :class:`~monitor.pipeline.snapshots.SnapshotFeed` so each alert gets the JPEG of the frame
nearest its trigger, exactly as live. ``close()`` is the end of a file: held events are released and
an open round is closed as incomplete (its history is kept, marked so).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from monitor.events.schema import Event, EventBase
from monitor.pipeline.snapshots import FrameRing, SnapshotFeed
from monitor.procedure.feed_contract import FeedOutput, HistoryRecord
from monitor.procedure.monitor import Monitor
from monitor.rules.profile import DEFAULT_PROFILE, PaiGowProfile


class _MonitorFeed:
    """A :class:`ProcedureFeed` over one Monitor; ``closing`` turns the next flush into the file's end."""

    def __init__(self, profile: PaiGowProfile = DEFAULT_PROFILE) -> None:
        self._histories: list[Any] = []
        self.monitor = Monitor(profile=profile, on_history=self._histories.append)
        self.closing = False

    def push(self, event: Event) -> FeedOutput:
        return self._output(self.monitor.feed(event))

    def flush(self) -> FeedOutput:
        return self._output(self.monitor.finish() if self.closing else self.monitor.flush())

    def _output(self, alerts: list[Any]) -> FeedOutput:
        out = FeedOutput(alerts=list(alerts))
        out.histories = [HistoryRecord(h.table_id, h.round_id, getattr(h.game, "value", h.game),
                                       h.model_dump(mode="json")) for h in self._histories]
        self._histories.clear()
        return out


class ReviewFeed:
    def __init__(self, ring: FrameRing, snapshots: Path, profile: PaiGowProfile = DEFAULT_PROFILE) -> None:
        """``profile``: the table file's rule profile, which judges every event of the review."""
        self._inner = _MonitorFeed(profile)
        self._feed = SnapshotFeed(self._inner, ring, snapshots)
        self._first = True

    def push(self, event: EventBase) -> FeedOutput:
        out = self._feed.push(event)  # type: ignore[arg-type]  # every EventBase made here is an Event
        if self._first:
            # A file (or a resumed one) starts at its own sequence number, not 0: release the first
            # event now rather than after the reorder window fills (there is nothing before it).
            self._first = False
            more = self._feed.flush()
            out.alerts += more.alerts
            out.histories += more.histories
        return out

    def close(self) -> FeedOutput:
        self._inner.closing = True
        return self._feed.flush()
